// cg-reduce as a student runs it, on the reference model: bad input is refused at once with a
// reason (exit 2), a model run shows every rung and the ladder and says what needs a GPU, --part
// picks rungs and the trace, and every --json document validates against schema/report-v2.json.
// Then the sections, fed with made-up GPU results.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {
namespace {

using test::CliResult;
using test::contains;
using test::expect_usage_error;
using test::failed_checks;
using test::run_cli;
using test::shown;
using test::UsageCase;
using test::valid_document;

std::vector<std::string> section_ids(const nlohmann::ordered_json& doc) {
  std::vector<std::string> ids;
  for (const auto& [id, s] : doc["report"]["sections"].items()) ids.push_back(id);
  return ids;
}

TEST(CgReduceCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const UsageCase cases[] = {
      {"cg-reduce --n 0", {"--n", "at least 1"}},
      {"cg-reduce --n -5", {"-5", "at least 1"}},
      {"cg-reduce --n 2000000000", {"2000000000", "1073741824", "2^30", "int"}},
      {"cg-reduce --n lots", {"lots", "whole number"}},
      {"cg-reduce --block 100", {"--block 100", "one of 32, 64, 128, 256, 512, 1024"}},
      {"cg-reduce --block 16", {"--block 16", "one of 32, 64"}},
      {"cg-reduce --block 2048", {"--block 2048", "one of 32, 64"}},
      {"cg-reduce --part two_pass", {"--part", "two_pass", "two-pass", "grid-sync"}},
      {"cg-reduce --dtype half", {"--dtype", "half", "float", "double"}},
      {"cg-reduce --part trace --n 20000000", {"--part trace", "16777216", "2^24", "20000000"}},
      {"cg-reduce --part trace --block 512", {"--part trace", "--block 256", "512"}},
      {"cg-reduce --trace-block 3", {"--trace-block", "trace", "--part"}},
      {"cg-reduce --part trace --n 1000 --trace-block 8", {"--trace-block 8", "blocks 0..7"}},
      {"cg-reduce --part trace --trace-warp 4", {"--trace-warp 4", "warps 0..3"}},
      {"cg-reduce --part shared --grid 100", {"--grid", "grid-sync"}},
      {"cg-reduce --grid 0", {"--grid", "0"}},
      {"cg-reduce --bench --sizes 9", {"--sizes", "9"}},
      {"cg-reduce --backend model --sizes 20", {"--sizes", "--bench"}},
      {"cg-reduce --backend model --bench --n 1000", {"--n", "--bench", "--sizes"}},
      {"cg-reduce --backend model --bench --part trace", {"--part", "--bench"}},
      {"cg-reduce --backend model --bench --grid 5", {"--grid", "--bench"}},
      // The model holds the whole input: above --max-memory (default 1 GiB) it stops before allocating.
      // The bound covers the model's sums beside the input: 4 GiB of input needs a 5G bound.
      {"cg-reduce --backend model --n 1073741824", {"--n 1073741824", "4.0 GiB", "--max-memory 5G"}},
      {"cg-reduce --backend model --n 536870912 --dtype double", {"--n 536870912", "doubles", "4.0 GiB"}},
      // 2^20 elements: the seed grid's 10240 x 128 threads hold one accumulator per element.
      {"cg-reduce --backend model --n 1048576 --max-memory 1M", {"--n 1048576", "9.0 MiB", "--max-memory 10M"}},
      // Found by fuzzing: a --grid as large as --n gives every element a thread, and the model's
      // per-thread sums are as large as the input (it peaked at 2 GiB under the 1 GiB bound).
      {"cg-reduce --backend model --n 268435456 --part grid-sync --grid 268435456",
       {"--n 268435456", "--grid 268435456", "2.0 GiB", "--max-memory 3G", "accepted:"}},
      {"cg-reduce --backend model --n 1073741824 --part grid-sync --grid 1073741824 --max-memory 4G",
       {"--grid 1073741824", "8.0 GiB", "--max-memory 9G"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(CgReduceCli, AModelRunWithinItsMemoryBoundRuns) {
  // 4 MiB of input, 32 KiB of block sums and a block's scratch.
  const CliResult r = run_cli("cg-reduce --backend model --part shared --n 1048576 --max-memory 5M");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
}

TEST(CgReduceMemory, TheGridSyncRungsSumsGrowWithTheGridUpToOneThreadPerElement) {
  using cg_reduce::Kernel;
  const std::int64_t n = std::int64_t{1} << 24;
  cg_reduce::Plan plan = cg_reduce::default_plan(128);
  const auto small = cg_reduce::model_working_bytes(Kernel::grid_sync, n, plan, sizeof(float));
  plan.grid_sync_grid = 1 << 17;  // 2^17 blocks of 128: a thread per element
  const auto large = cg_reduce::model_working_bytes(Kernel::grid_sync, n, plan, sizeof(float));
  EXPECT_LT(small, static_cast<std::uint64_t>(n) * sizeof(float) / 4);
  EXPECT_GE(large, static_cast<std::uint64_t>(n) * sizeof(float)) << "one sum per element's thread";
  EXPECT_GE(cg_reduce::model_working_bytes(Kernel::shared_atomic, n, plan, sizeof(double)),
            static_cast<std::uint64_t>(n / 128) * sizeof(double))
      << "one sum per block";
  EXPECT_EQ(cg_reduce::model_working_bytes(Kernel::cub_sum, n, plan, sizeof(float)), 0u) << "the model runs no CUB";
}

TEST(CgReduceCli, ModelRunShowsEveryRungTheLadderAndWhatNeedsAGpu) {
  const CliResult r = run_cli("cg-reduce --backend model --n 100000 --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== setup", "== rung 1: shared", "== rung 2: syncwarp", "== rung 3: shfl", "== rung 4: cg",
                        "== rung 5: two-pass", "== rung 6: static", "== rung 7: grid-sync", "== rung 8: cub",
                        "== the ladder", "needs a GPU", "8 cub::DeviceReduce::Sum", "checks: "})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "== trace")) << "the trace runs only with --part trace";
  const auto doc = valid_document("cg-reduce --backend model --n 100000 --json", 0);
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"overview", "setup", "shared", "syncwarp", "shfl", "cg", "two-pass",
                                                        "static", "grid-sync", "cub", "ladder"}));
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  const auto& sections = doc["report"]["sections"];
  EXPECT_TRUE(sections["two-pass"]["checks"]["two-pass-fixed-grid-error-bound"]["passed"].get<bool>());
  EXPECT_TRUE(sections["shared"]["measurements"]["shared-atomic-time"]["needs_gpu"].get<bool>());
  EXPECT_EQ(sections["ladder"]["tables"]["ladder"]["rows"].size(), 12u);
  EXPECT_EQ(sections["setup"]["facts"]["n"]["value"], 100000);
}

TEST(CgReduceCli, PartAndDtypeSelectTheRungs) {
  const auto doc = valid_document("cg-reduce --backend model --part two-pass --dtype double --n 5000 --json", 0);
  // Three kernels ran: the ladder (the lesson's finish) shows them side by side.
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"setup", "two-pass", "ladder"}));
  EXPECT_EQ(doc["report"]["sections"]["setup"]["facts"]["dtype"]["value"], "double");
  EXPECT_EQ(doc["report"]["sections"]["ladder"]["tables"]["ladder"]["rows"].size(), 3u);
  // One kernel: no ladder.
  const auto one = valid_document("cg-reduce --backend model --part static --n 5000 --json", 0);
  EXPECT_EQ(section_ids(one), (std::vector<std::string>{"setup", "static"}));
}

// The d of each bound gamma_d is a column of its rung's results, not only a number in a check's
// words: two-pass at 2^24 floats, grid 10240 x 128, chains 13 + 7 + 10 + 10 = 40 additions long.
TEST(CgReduceCli, EachKernelsLongestChainIsAColumnBesideItsError) {
  const auto doc = valid_document("cg-reduce --backend model --part two-pass,cub --json", 0);
  std::vector<std::int64_t> chains;
  for (const auto& row : doc["report"]["sections"]["two-pass"]["tables"]["results"]["rows"])
    chains.push_back(row["chain"].get<std::int64_t>());
  EXPECT_EQ(chains, (std::vector<std::int64_t>{40, 83, 42}));
  EXPECT_TRUE(doc["report"]["sections"]["cub"]["tables"]["results"]["rows"][0]["chain"].is_null());  // no order
}

TEST(CgReduceCli, TheTraceIsAPartOfItsOwn) {
  const CliResult r = run_cli("cg-reduce --backend model --n 1000000 --block 128 --part trace --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== trace: block 0, warp 0", "s_y[i] of block 0 after each step",
                        "rung 3, warp 0: y += __shfl_down_sync(FULL_MASK, y, offset)", "the grid-stride loop"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  const auto doc = valid_document("cg-reduce --backend model --n 3000 --block 64 --part shfl,trace --trace-block 2 "
                                  "--trace-warp 1 --json",
                                  0);
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"overview", "setup", "shfl", "trace", "ladder"}));
  const auto& tables = doc["report"]["sections"]["trace"]["tables"];
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables["shared-tree"]["rows"].size(), 64u);
  EXPECT_EQ(tables["shuffle"]["rows"].size(), 32u);
  EXPECT_EQ(tables["grid-stride"]["rows"].size(), 32u);
}

TEST(CgReduceCli, EveryJsonDocumentValidates) {
  valid_document("cg-reduce --backend model --n 5000 --json", 0);
  const auto grid = valid_document("cg-reduce --backend model --n 777 --block 32 --part grid-sync --grid 5000 --json", 0);
  EXPECT_EQ(grid["report"]["sections"]["setup"]["facts"]["grid-sync-grid"]["value"], 5000);
  const auto bench = valid_document("cg-reduce --backend model --bench --sizes 10,12 --json", 0);
  EXPECT_EQ(section_ids(bench), (std::vector<std::string>{"setup", "bench-float", "bench-double"}));
  // Without a GPU the sweep measures nothing and says so: one measurement per kernel and size.
  for (const char* id : {"bench-float", "bench-double"}) {
    const auto& s = bench["report"]["sections"][id];
    EXPECT_EQ(s["measurements"].size(), 26u) << id;  // 12 rungs and the one-pass candidate, 2 sizes
    for (const auto& [mid, m] : s["measurements"].items()) EXPECT_TRUE(m["needs_gpu"].get<bool>()) << mid;
    EXPECT_TRUE(s["measurements"].contains("cub-sum-at-2-12")) << s["measurements"].dump();
    for (const char* t : {"median", "vs-cub-sum", "best", "model", "terms-one-pass-vector", "primitives", "best-vs-cub"})
      EXPECT_TRUE(s["tables"].contains(t)) << id << " " << t;
    EXPECT_EQ(s["tables"]["model"]["rows"].size(), 26u) << id;
    EXPECT_EQ(s["tables"]["best-vs-cub"]["rows"].size(), 2u) << id;
  }
  const auto err = valid_document("cg-reduce --block 100 --json", 2);
  EXPECT_TRUE(err.contains("error")) << err.dump(2);
}

TEST(CgReduceCli, ModelRunsAreDeterministicPerSeed) {
  const std::string args = "cg-reduce --backend model --n 20000 --part two-pass,grid-sync --json";
  const auto ladder = [](const std::string& out) {
    return nlohmann::json::parse(out)["report"]["sections"]["ladder"].dump();
  };
  const auto a = run_cli(args + " --seed 5");
  const auto b = run_cli(args + " --seed 5");
  const auto c = run_cli(args + " --seed 6");
  EXPECT_EQ(ladder(a.out), ladder(b.out));
  EXPECT_NE(ladder(a.out), ladder(c.out));
}

// ---- sections with made-up GPU results ------------------------------------------------------

Problem gpu_problem() {
  Problem p;
  p.dtype = Dtype::f32;
  p.n = 1000;
  p.plan = default_plan(128);
  p.gpu = true;
  p.reference = 500.0;
  p.reps = 3;
  return p;
}

KernelRun fixed_run(Kernel k, float model, float gpu) {
  KernelRun r;
  r.kernel = k;
  r.model = sum_of(model);
  r.gpu = sum_of(gpu);
  r.gpu_again = sum_of(gpu);
  r.depth = 20;
  r.ms = {0.1, 0.2, 0.3};
  return r;
}

const report::Check* find_check(const report::Section& s, const std::string& id) {
  for (const auto& c : s.checks)
    if (c.id == id) return &c;
  return nullptr;
}

TEST(CgReduceSections, AGpuSumOneBitOffTheModelFails) {
  const Problem p = gpu_problem();
  const float model = 500.0f;
  const float off = std::nextafter(model, 1000.0f);
  const auto good = rung_section("two-pass", {fixed_run(Kernel::two_pass_fixed_grid, model, model)}, p);
  const auto* c = find_check(good, "two-pass-fixed-grid-gpu-agrees");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->passed);
  const auto bad = rung_section("two-pass", {fixed_run(Kernel::two_pass_fixed_grid, model, off)}, p);
  c = find_check(bad, "two-pass-fixed-grid-gpu-agrees");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed) << c->detail;
  EXPECT_EQ(bad.tables[0].rows[0].mark, report::RowMark::mismatch);
  const auto ladder = ladder_section({fixed_run(Kernel::two_pass_fixed_grid, model, off)}, p);
  EXPECT_EQ(ladder.tables[0].rows[0].mark, report::RowMark::mismatch);
  EXPECT_EQ(std::get<std::string>(ladder.tables[0].cell(0, "model")), "MISMATCH");
  // Every id in the sections is kebab-case and unique (the JSON renderer relies on it).
  report::Report r;
  r.command = "cg-reduce";
  r.sections = {good, ladder};
  EXPECT_NO_THROW(report::validate_ids(r));
}

TEST(CgReduceSections, AtomicRungsAreJudgedByTheirOrderBound) {
  const Problem p = gpu_problem();
  KernelRun r = fixed_run(Kernel::shared_atomic, 500.0f, 500.0f + 0.25f);
  r.fixed_order = false;
  r.order_bound = 0.5;
  const auto in = rung_section("shared", {r}, p);
  const auto* c = find_check(in, "shared-atomic-gpu-in-bound");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->passed);
  EXPECT_EQ(find_check(in, "shared-atomic-gpu-agrees"), nullptr) << "no bit check without a fixed order";
  EXPECT_EQ(find_check(in, "shared-atomic-same-twice"), nullptr) << "atomics may differ from run to run";
  r.order_bound = 0.125;
  const auto out = rung_section("shared", {r}, p);
  EXPECT_FALSE(find_check(out, "shared-atomic-gpu-in-bound")->passed);
}

TEST(CgReduceSections, TheLadderDividesByCubsBandwidth) {
  const Problem p = gpu_problem();
  KernelRun cub = fixed_run(Kernel::cub_sum, 500.0f, 500.0f);
  cub.model_available = false;
  cub.ms = {0.1};
  KernelRun two = fixed_run(Kernel::two_pass_vector, 500.0f, 500.0f);
  two.ms = {0.2};
  const auto s = ladder_section({two, cub}, p);
  const auto& t = s.tables[0];
  EXPECT_DOUBLE_EQ(std::get<double>(t.cell(0, "vs-cub")), 0.5);
  EXPECT_DOUBLE_EQ(std::get<double>(t.cell(1, "vs-cub")), 1.0);
  EXPECT_EQ(std::get<std::string>(t.cell(0, "model")), "bit-exact");
  EXPECT_TRUE(std::holds_alternative<report::Undefined>(t.cell(1, "model"))) << "the model does not replay CUB";
}

TEST(CgReduceSections, AModelRunHasNoGpuColumnsAndNeedsAGpuForTimes) {
  Problem p = gpu_problem();
  p.gpu = false;
  KernelRun r;
  r.kernel = Kernel::grid_sync;
  r.model = sum_of(500.0f);
  r.depth = 30;
  const auto sec = rung_section("grid-sync", {r}, p);
  ASSERT_EQ(sec.tables.size(), 1u);
  std::vector<std::string> keys;
  for (const auto& c : sec.tables[0].columns) keys.push_back(c.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"kernel", "model", "rel-error", "chain"}));
  EXPECT_EQ(std::get<std::int64_t>(sec.tables[0].cell(0, "chain")), 30);
  ASSERT_FALSE(sec.measurements.empty());
  for (const auto& m : sec.measurements) EXPECT_TRUE(m.needs_gpu);
  ASSERT_EQ(sec.checks.size(), 1u);
  EXPECT_EQ(sec.checks[0].id, "grid-sync-error-bound");
  EXPECT_TRUE(sec.checks[0].passed) << sec.checks[0].detail;  // the model's sum is exact here
}

}  // namespace
}  // namespace cudasync::cg_reduce
