// The sections of named-barriers judge GPU results: fed made-up GPU results, right ones must pass
// and wrong ones must fail with the row marked. (The real GPU runs are in the _gpu_test.)
#include <gtest/gtest.h>

#include <algorithm>

#include "techniques/named_barriers/named_barriers_sections.hpp"

namespace cudasync::named_barriers {
namespace {

std::size_t failed(const report::Section& s) {
  return static_cast<std::size_t>(std::count_if(s.checks.begin(), s.checks.end(), [](const auto& c) { return !c.passed; }));
}
const report::Check* check_named(const report::Section& s, const std::string& part) {
  for (const auto& c : s.checks)
    if (c.name.find(part) != std::string::npos) return &c;
  return nullptr;
}
bool any_mismatch(const report::LaneTable& t) {
  return std::find(t.marks.begin(), t.marks.end(), report::RowMark::mismatch) != t.marks.end();
}

// A producer/consumer run as a correct GPU would report it: every round, producers arrive at
// 100*r, consumers leave full at 100*r + 50, read by +60, producers leave empty at +70.
PcResult good_pc(const PcSpec& spec) {
  PcResult r;
  r.consumed = model_consumed(spec);
  const int warps = spec.block_threads() / kWarpSize;
  r.stamps.assign(static_cast<std::size_t>(warps * spec.rounds * kPcStamps), 0);
  for (int w = 0; w < warps; ++w)
    for (int round = 0; round < spec.rounds; ++round) {
      long long* s = &r.stamps[static_cast<std::size_t>((w * spec.rounds + round) * kPcStamps)];
      const long long base = 1000 * round;
      if (w < spec.producer_warps()) {
        s[0] = base + 10; s[1] = base + 12; s[2] = base + 40; s[3] = base + 90;
      } else {
        s[0] = base + 5; s[1] = base + 50; s[2] = base + 60; s[3] = base + 60;
      }
    }
  r.ns_per_cycle = 0.5;
  return r;
}

PcSpec pc_spec() {
  PcSpec spec;
  spec.producers = 64;
  spec.consumers = 32;
  spec.rounds = 3;
  spec.input = make_input(spec.rounds, spec.producers, 4);
  return spec;
}

TEST(NamedBarriersSections, ProducerConsumerRightResultPasses) {
  const PcSpec spec = pc_spec();
  const report::Section s = pc_section(spec, good_pc(spec), true);
  EXPECT_EQ(failed(s), 0u);
  EXPECT_NE(check_named(s, "every value consumed equals the value produced"), nullptr);
  const auto trace = std::find_if(s.tables.begin(), s.tables.end(), [](const auto& t) { return t.id == "trace"; });
  ASSERT_NE(trace, s.tables.end()) << "--trace shows the trace table";
  EXPECT_EQ(trace->rows.size(), static_cast<std::size_t>(3 * 3));  // 3 warps x 3 rounds
}

TEST(NamedBarriersSections, ProducerConsumerWrongValueFailsAndIsMarked) {
  const PcSpec spec = pc_spec();
  PcResult r = good_pc(spec);
  r.consumed[static_cast<std::size_t>(64 + 7)] += 1;  // round 1, slot 7
  const report::Section s = pc_section(spec, r, false);
  const report::Check* c = check_named(s, "every value consumed");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_NE(c->detail.find("rounds 1"), std::string::npos) << c->detail;
  const auto rounds = std::find_if(s.tables.begin(), s.tables.end(), [](const auto& t) { return t.id == "rounds"; });
  ASSERT_NE(rounds, s.tables.end());
  EXPECT_EQ(rounds->marks[1], report::RowMark::mismatch);
  EXPECT_EQ(rounds->marks[0], report::RowMark::none);
}

TEST(NamedBarriersSections, ProducerConsumerEarlyReleaseFails) {
  const PcSpec spec = pc_spec();
  PcResult r = good_pc(spec);
  // Round 2: the consumer warp (warp 2) leaves full at cycle 2008, before producer warp 1 arrived (2010).
  r.stamps[static_cast<std::size_t>((2 * spec.rounds + 2) * kPcStamps + 1)] = 2008;
  const report::Section s = pc_section(spec, r, false);
  const report::Check* c = check_named(s, "consumers left the full barrier only after");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_NE(c->detail.find("rounds 2"), std::string::npos) << c->detail;
}

GroupsTrace groups_trace(const GroupsSpec& spec, long long short_step, long long long_step) {
  GroupsTrace t;
  const int warps = spec.block_threads() / kWarpSize;
  for (int w = 0; w < warps; ++w)
    for (int ph = 0; ph < spec.phases; ++ph) {
      const long long step = w < spec.warps(0) ? short_step : long_step;
      t.arrive.push_back(step * (ph + 1) - 5 + w);
      t.leave.push_back(step * (ph + 1) + 20);
    }
  t.passed.assign(static_cast<std::size_t>(warps), spec.phases);
  for (int g = 0; g < 2; ++g)
    for (int ph = 0; ph < spec.phases; ++ph) t.arrivals.push_back(spec.warps(g));
  t.ns_per_cycle = 0.55;
  return t;
}

TEST(NamedBarriersSections, GroupsIndependentPassesAndWaitingForTheOtherGroupFails) {
  GroupsSpec spec;
  spec.phases = 3;
  const report::Section good = groups_section(spec, groups_trace(spec, 2000, 10000));
  EXPECT_EQ(failed(good), 0u);
  ASSERT_NE(check_named(good, "never needed group 1"), nullptr);
  // Group 0 still in its phases when group 1 arrived: the hold did not work.
  const report::Section slow = groups_section(spec, groups_trace(spec, 10000, 10000));
  const report::Check* c = check_named(slow, "never needed group 1");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  // The hold gave up: group 0 could not finish without group 1.
  GroupsTrace stuck = groups_trace(spec, 2000, 10000);
  stuck.hold_gave_up = true;
  const report::Check* h = check_named(groups_section(spec, stuck), "never needed group 1");
  EXPECT_FALSE(h->passed);
  EXPECT_NE(h->detail.find("gave up"), std::string::npos) << h->detail;
  // A warp released before its group's last arrival breaks the barrier rule.
  GroupsTrace early = groups_trace(spec, 2000, 10000);
  early.leave[0] = early.arrive[static_cast<std::size_t>(spec.phases)] - 1;  // warp 0 left phase 0 before warp 1 arrived
  const report::Section e = groups_section(spec, early);
  EXPECT_FALSE(check_named(e, "no warp left a phase")->passed);
  EXPECT_TRUE(any_mismatch(e.tables.front()));
  // A missing arrival is a disagreement with the model.
  GroupsTrace missing = groups_trace(spec, 2000, 10000);
  missing.arrivals[1] = 1;
  EXPECT_FALSE(check_named(groups_section(spec, missing), "phases and arrivals per barrier id")->passed);
}

TEST(NamedBarriersSections, RedComparesBothFormsWithTheModel) {
  const Predicate p = *parse_predicate("lane<5");
  RedRun run{p, evaluate(p, 64, 1), RedResult{}};
  for (int tid = 0; tid < 64; ++tid)
    for (std::int32_t v : {10, 0, 1, 10, 0, 1}) run.gpu->values.push_back(v);
  const report::Section good = red_section(64, 1, {run});
  EXPECT_EQ(failed(good), 0u);
  EXPECT_FALSE(any_mismatch(good.tables.front()));
  // __syncthreads_or may return any non-zero value for true.
  for (int tid = 0; tid < 64; ++tid) run.gpu->values[static_cast<std::size_t>(tid * kRedColumns + red_or)] = 7;
  EXPECT_EQ(failed(red_section(64, 1, {run})), 0u);
  // One thread got a different popc.
  run.gpu->values[static_cast<std::size_t>(33 * kRedColumns + red_ptx_popc)] = 9;
  const report::Section bad = red_section(64, 1, {run});
  EXPECT_EQ(failed(bad), 1u);
  EXPECT_TRUE(any_mismatch(bad.tables.front()));
}

TEST(NamedBarriersSections, ListingChecksLookForTheInstructions) {
  KernelListing l = parse_kernel_listing(
      "S arch sm_90\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_113groups_kernelENS1_10GroupsArgsEPx\nS BAR.SYNC.DEFER_BLOCKING R11, R11\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_19pc_kernelEv\nS BAR.SYNC.DEFER_BLOCKING R3, R3\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_110red_kernelEv\nS BAR.RED.POPC.DEFER_BLOCKING R0, P0\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_122cuda_barrier_pc_kernelEv\nS @P0 SYNCS.ARRIVE.TRANS64.A1T0 R4\n"
      "S SYNCS.PHASECHK.TRANS64.TRYWAIT P0\n");
  l.available = true;
  EXPECT_EQ(listing_sass_arch(l, 90), "sm_90");
  EXPECT_EQ(listing_sass_arch(l, 75), "sm_90");  // not in the build: the newest it has
  const report::Section s = listing_section(l, "sm_90");
  EXPECT_TRUE(check_named(s, "groups_kernel compiled to BAR.SYNC")->passed);
  EXPECT_TRUE(check_named(s, "cuda_barrier_pc_kernel")->passed);  // a predicated instruction counts
  const report::Check* pc = check_named(s, "pc_kernel compiled to");
  EXPECT_FALSE(pc->passed);  // no BAR.ARV
  EXPECT_NE(pc->detail.find("BAR.ARV"), std::string::npos);
  EXPECT_FALSE(check_named(s, "red_kernel")->passed);  // no BAR.RED.AND / OR / B2R
  KernelListing none;
  none.reason = "this cudasync was built without CUDA: the PTX/SASS listing needs a CUDA build";
  const report::Section n = listing_section(none, "");
  EXPECT_TRUE(n.checks.empty());
  ASSERT_EQ(n.notes.size(), 1u);
  EXPECT_NE(n.notes[0].find("needs a CUDA build"), std::string::npos);
}

MisuseOutcome outcome(MisuseCase c, std::vector<long long> arrive, std::vector<long long> leave,
                      std::vector<long long> rescue) {
  MisuseOutcome o;
  o.c = c;
  o.status = MisuseOutcome::Status::ok;
  o.seen = {c, std::move(arrive), std::move(leave), std::move(rescue)};
  return o;
}

TEST(NamedBarriersSections, MisuseOutcomesAgainstTheModel) {
  const std::vector<MisuseCase> cases = {{48, 64}, {128, 64}};
  // 48 read as 64: warp 0 waits for warp 1; 128: two rescue arrivals release both warps.
  std::vector<std::optional<MisuseOutcome>> got = {
      outcome({48, 64}, {0, 20000}, {20040, 20030}, {}),
      outcome({128, 64}, {0, 20000}, {4020100, 4020090}, {2020000, 4020050})};
  const report::Section s = misuse_section(cases, 1, got, true);
  EXPECT_EQ(failed(s), 0u);
  EXPECT_NE(check_named(s, "case 1: bar.sync 1, 128"), nullptr);
  bool noted = false;
  for (const auto& n : s.notes) noted = noted || n.find("rounded up to whole warps") != std::string::npos;
  EXPECT_TRUE(noted) << "the note names the reading this GPU followed";
  // Released after one rescue arrival only: the model says two are needed.
  got[1] = outcome({128, 64}, {0, 20000}, {2020100, 2020090}, {2020000});
  EXPECT_FALSE(check_named(misuse_section(cases, 1, got, true), "case 1: bar.sync 1, 128")->passed);
  // A hang the host timeout had to end is a failure of the safety design; a CUDA error is not.
  MisuseOutcome hung;
  hung.c = cases[1];
  hung.status = MisuseOutcome::Status::timeout;
  hung.message = "no answer after 8000 ms: the child was killed";
  got[1] = hung;
  EXPECT_FALSE(check_named(misuse_section(cases, 1, got, true), "case 1: nothing hung")->passed);
  MisuseOutcome trapped = hung;
  trapped.status = MisuseOutcome::Status::cuda_error;
  trapped.message = "an illegal instruction was encountered";
  got[1] = trapped;
  const report::Section t = misuse_section(cases, 1, got, true);
  EXPECT_TRUE(check_named(t, "case 1: nothing hung")->passed);
  // Model run: the readings only, no checks.
  const report::Section m = misuse_section(cases, 1, {std::nullopt, std::nullopt}, false);
  EXPECT_TRUE(m.checks.empty());
  EXPECT_EQ(m.tables.size(), 2u);
}

TEST(NamedBarriersSections, ModelRunsMeasureNothing) {
  const report::Section s = cost_section({{"__syncthreads()", "", 64, {}}}, false, 2000);
  ASSERT_EQ(s.measurements.size(), 1u);
  EXPECT_TRUE(s.measurements[0].needs_gpu);
  EXPECT_TRUE(s.measurements[0].samples.empty());
  EXPECT_EQ(s.measurements[0].name, "__syncthreads(), 64 threads");
}

}  // namespace
}  // namespace cudasync::named_barriers
