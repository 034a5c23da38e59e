// multi-gpu's sections fed made-up GPU results (checks found by id), and the run's waive path on a
// made-up machine with one GPU: the two-GPU parts are waived with the reason, before any GPU call.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/errors.hpp"
#include "support/report_lookup.hpp"
#include "techniques/multi_gpu/lesson.hpp"
#include "techniques/multi_gpu/multi_gpu_test_support.hpp"

namespace cudasync::multi_gpu {
namespace {

using test::find_check;
using test::find_fact;
using test::find_table;

using test_support::counts;

std::vector<FlagRow> peer_rows(std::uint64_t stale_in_system_row, std::uint64_t timeouts = 0) {
  Options o;
  std::vector<FlagRow> rows = flag_rows(o, Consumer::peer_gpu);
  for (auto& r : rows)
    r.gpu = r.model.stale_allowed ? counts(1000, 7) : counts(1000 - stale_in_system_row, stale_in_system_row, timeouts);
  return rows;
}

TEST(MultiGpuSections, TheMatrixOfFences) {
  Options o;
  EXPECT_EQ(flag_rows(o, Consumer::peer_gpu).size(), 8u);
  EXPECT_EQ(flag_rows(o, Consumer::host).size(), 5u);
  o.fence = {"system", "device"};
  const auto two = flag_rows(o, Consumer::peer_gpu);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].spec.producer, Fence::system);
  EXPECT_EQ(two[0].spec.consumer, Fence::device);
  EXPECT_TRUE(two[0].model.stale_allowed);
  o.fence = {"rel-acq-system"};
  const auto one = flag_rows(o, Consumer::host);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_FALSE(one[0].model.stale_allowed);
}

TEST(MultiGpuSections, NoStaleReadPassesWhenEveryForbiddenRowStayedFresh) {
  const report::Section s = flag_section("peer-flag", "t", peer_rows(0), true);
  ASSERT_NE(find_check(s, "no-stale-read"), nullptr);
  EXPECT_TRUE(find_check(s, "no-stale-read")->passed);
  EXPECT_TRUE(find_check(s, "no-timeout")->passed);
  EXPECT_EQ(std::get<std::int64_t>(find_fact(s, "stale-where-forbidden")->value), 0);
  // Allowed stale reads are no finding.
  const report::Table* t = find_table(s, "outcomes");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::get<std::string>(t->cell(0, "verdict")), "allowed, seen");
}

TEST(MultiGpuSections, AForbiddenStaleReadFailsTheCheckAndMarksItsRow) {
  const report::Section s = flag_section("peer-flag", "t", peer_rows(3), true);
  EXPECT_FALSE(find_check(s, "no-stale-read")->passed);
  EXPECT_NE(find_check(s, "no-stale-read")->detail.find("system -> system: 3 stale"), std::string::npos)
      << find_check(s, "no-stale-read")->detail;
  const report::Table* t = find_table(s, "outcomes");
  bool marked = false;
  for (const auto& r : t->rows) marked = marked || r.mark == report::RowMark::mismatch;
  EXPECT_TRUE(marked);
}

TEST(MultiGpuSections, AWaitThatGaveUpFailsNoTimeout) {
  const report::Section s = flag_section("peer-flag", "t", peer_rows(0, 5), true);
  EXPECT_FALSE(find_check(s, "no-timeout")->passed);
}

TEST(MultiGpuSections, OnTheModelNoCountsAndNoChecks) {
  Options o;
  const report::Section s = flag_section("host-flag", "t", flag_rows(o, Consumer::host), false);
  EXPECT_TRUE(s.checks.empty());
  const report::Table* t = find_table(s, "outcomes");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::get<std::string>(t->cell(2, "verdict")), "forbidden");  // system -> host
}

BarrierSpec tiny() {
  BarrierSpec s;
  s.blocks = 2;
  s.threads = 32;
  s.phases = 5;
  return s;
}

TEST(MultiGpuSections, BarrierValuesAgreeOrNot) {
  const BarrierSpec spec = tiny();
  const auto model = model_values(spec, 1);
  MethodResult peer{Method::peer, BarrierRun{model, false}, {900.0, 1000.0, 1100.0}, false, ""};
  BarrierRun wrong{model, false};
  wrong.values[17] ^= 1u;
  MethodResult event{Method::event, wrong, {5000.0}, false, ""};
  MethodResult nccl{Method::nccl, std::nullopt, {}, false, "NCCL is not built into this cudasync"};
  const report::Section s = barrier_section(spec, model, {peer, nccl, event}, true, 1);
  EXPECT_TRUE(find_check(s, "values-peer")->passed);
  EXPECT_FALSE(find_check(s, "values-event")->passed);
  EXPECT_NE(find_check(s, "values-event")->detail.find("index 17"), std::string::npos);
  EXPECT_EQ(find_check(s, "values-nccl"), nullptr);  // waived: nothing to check
  EXPECT_TRUE(find_check(s, "protocol-model")->passed);
  EXPECT_TRUE(find_check(s, "no-deadline")->passed);
  const report::Table* t = find_table(s, "methods");
  EXPECT_EQ(std::get<std::string>(t->cell(1, "values")), "waived");
  EXPECT_DOUBLE_EQ(std::get<double>(t->cell(0, "ns")), 1000.0);
  bool noted = false;
  for (const auto& n : s.notes) noted = noted || n.find("nccl waived: NCCL is not built") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(MultiGpuSections, ADeadlineHitFailsTheBarrier) {
  const BarrierSpec spec = tiny();
  const auto model = model_values(spec, 1);
  MethodResult peer{Method::peer, BarrierRun{model, true}, {}, false, ""};
  const report::Section s = barrier_section(spec, model, {peer}, true, 1);
  EXPECT_FALSE(find_check(s, "no-deadline")->passed);
}

TEST(MultiGpuSections, AllReduceRatioToNccl) {
  ReduceRun n;
  n.elements = 1 << 20;
  n.ns = {10000.0, 10000.0, 10000.0};
  ReduceRun p = n;
  p.ns = {20000.0, 20000.0, 20000.0};
  p.mismatches[1] = 3;
  p.first_mismatch = 42;
  const report::Section s =
      all_reduce_section(1 << 20, 1, {{Reduce::nccl, n, ""}, {Reduce::peer, p, ""}}, true);
  EXPECT_TRUE(find_check(s, "sums-nccl")->passed);
  EXPECT_FALSE(find_check(s, "sums-peer")->passed);
  EXPECT_NE(find_check(s, "sums-peer")->detail.find("index 42"), std::string::npos);
  const report::Table* t = find_table(s, "methods");
  EXPECT_DOUBLE_EQ(std::get<double>(t->cell(1, "vs-nccl")), 0.5);
  EXPECT_DOUBLE_EQ(std::get<double>(t->cell(0, "gbps")), 4.0 * (1 << 20) / 10000.0);
}

// ---- the waive path on a made-up one-GPU machine ----------------------------------------------

struct OneGpu {
  GpuProbe probe;
  RunContext ctx;
  OneGpu() {
    DeviceInfo d;
    d.index = 0;
    d.name = "Made-up GPU";
    d.sm_count = 8;
    probe.built_with_cuda = true;
    probe.devices = {d};
    ctx.gpu = true;
    ctx.device = d;
    ctx.probe = &probe;
  }
};

parts::Selection all_parts() {
  parts::Selection s;
  s.ids = {"host-flag", "peer-flag", "barrier", "all-reduce"};
  return s;
}

TEST(MultiGpuWaive, TwoGpuPartsWaiveWithTheReasonOnOneGpu) {
  unsetenv("NCCL_NVLS_ENABLE");
  const OneGpu m;
  multi_gpu::Run run(Options{}, m.ctx, all_parts());
  EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");  // set before any NCCL call, inherited by children
  EXPECT_NE(run.pair_waiver.find("this machine has 1 GPU"), std::string::npos) << run.pair_waiver;
  for (const auto* part : {"peer-flag", "barrier", "all-reduce"}) {
    SCOPED_TRACE(part);
    const auto& table = lesson().parts;
    const auto p = std::find_if(table.begin(), table.end(), [&](const auto& x) { return x.id == part; });
    ASSERT_NE(p, table.end());
    try {
      p->run(run);
      ADD_FAILURE() << "not waived";
    } catch (const WaivedError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(part) + " needs two GPUs"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--devices"), std::string::npos) << e.what();
    }
  }
  // --bench keeps its tables: every cell says why it did not run, and nothing is checked.
  const auto bench = bench_sections(run);
  ASSERT_EQ(bench.size(), 2u);
  for (const auto& s : bench) {
    EXPECT_TRUE(s.checks.empty()) << s.id;
    const report::Table* median = find_table(s, "median");
    ASSERT_NE(median, nullptr) << s.id;
    EXPECT_FALSE(median->legend.empty());
    for (const auto& l : median->legend) EXPECT_NE(l.find("waived: needs two GPUs"), std::string::npos) << l;
    ASSERT_FALSE(s.notes.empty());
    EXPECT_NE(s.notes.back().find("this machine has 1 GPU"), std::string::npos) << s.notes.back();
  }
}

TEST(MultiGpuWaive, ADeviceThatDoesNotExistIsAUsageErrorWhereThereAreTwo) {
  OneGpu m;
  DeviceInfo second = m.probe.devices.front();
  second.index = 1;
  m.probe.devices.push_back(second);
  Options o;
  o.devices = {0, 5};
  try {
    multi_gpu::Run run(o, m.ctx, all_parts());
    ADD_FAILURE() << "accepted --devices 0,5 on two GPUs";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU 5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0..1"), std::string::npos) << e.what();
  }
}

TEST(MultiGpuWaive, TheModelWaivesNothing) {
  RunContext ctx;
  multi_gpu::Run run(Options{}, ctx, all_parts());
  EXPECT_TRUE(run.pair_waiver.empty());
  EXPECT_NO_THROW(run.require_peer("barrier"));
  EXPECT_EQ(run.barrier.blocks, kModelSmCount);
}

}  // namespace
}  // namespace cudasync::multi_gpu
