// cg-reduce as a student runs it, on the reference model: bad input is refused at once with a
// reason (exit 2), a model run prints every rung and says what needs a GPU, and every --json
// document validates against schema/report-v1.json. Then the sections, fed with made-up GPU results.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "support/json_schema.hpp"
#include "support/run_cli.hpp"
#include "techniques/cg_reduce/cg_reduce_sections.hpp"

namespace cudasync::cg_reduce {
namespace {

using test::CliResult;
using test::expect_usage_error;
using test::UsageCase;
using test::contains;
using test::report_schema;
using test::run_cli;
using test::shown;
using test::valid_document;

TEST(CgReduceCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const UsageCase cases[] = {
      {"cg-reduce --n 0", {"--n", "at least 1"}},
      {"cg-reduce --n -5", {"-5", "at least 1"}},
      {"cg-reduce --n 2000000000", {"2000000000", "1073741824", "2^30", "int"}},
      {"cg-reduce --n lots", {"lots", "whole number"}},
      {"cg-reduce --block 100", {"--block", "100", "power of two", "32, 64, 128, 256, 512, 1024"}},
      {"cg-reduce --block 16", {"--block", "16", "32..1024"}},
      {"cg-reduce --block 2048", {"--block", "2048", "32..1024"}},
      {"cg-reduce --variant two_pass", {"--variant", "two_pass", "two-pass", "grid-sync"}},
      {"cg-reduce --dtype half", {"--dtype", "half", "float", "double"}},
      {"cg-reduce --trace --n 20000000", {"--trace", "16777216", "2^24", "20000000"}},
      {"cg-reduce --trace --block 512", {"--trace", "--block 256", "512"}},
      {"cg-reduce --trace-block 3", {"--trace-block", "add --trace"}},
      {"cg-reduce --trace --n 1000 --trace-block 8", {"--trace-block 8", "blocks 0..7"}},
      {"cg-reduce --trace --trace-warp 4", {"--trace-warp 4", "warps 0..3"}},
      {"cg-reduce --variant shared --grid 100", {"--grid", "grid-sync"}},
      {"cg-reduce --grid 0", {"--grid", "0"}},
      {"cg-reduce --bench --sizes 9", {"--sizes", "9"}},
      {"cg-reduce --backend model --sizes 20", {"--sizes", "--bench"}},
      {"cg-reduce --backend model --bench --n 1000", {"--n", "--bench", "--sizes"}},
      {"cg-reduce --backend model --bench --trace", {"--trace", "--bench"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(CgReduceCli, ModelRunShowsEveryRungAndWhatNeedsAGpu) {
  const CliResult r = run_cli("cg-reduce --backend model --n 100000 --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== setup", "== rung 1: shared", "== rung 2: syncwarp", "== rung 3: shfl", "== rung 4: cg",
                        "== rung 5: two-pass", "== rung 6: static", "== rung 7: grid-sync", "== rung 8: cub",
                        "== the ladder", "needs a GPU", "8 cub::DeviceReduce::Sum", "checks: "})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "[FAIL]")) << shown(r);
}

TEST(CgReduceCli, VariantAndDtypeSelectTheRungs) {
  const auto doc = valid_document("cg-reduce --backend model --variant two-pass --dtype double --n 5000 --json", 0);
  std::vector<std::string> ids;
  for (const auto& s : doc["report"]["sections"]) ids.push_back(s["id"].get<std::string>());
  EXPECT_EQ(ids, (std::vector<std::string>{"setup", "two_pass", "ladder"}));
  EXPECT_EQ(doc["report"]["sections"][0]["facts"][1]["value"], "double");
}

TEST(CgReduceCli, TraceShowsTheTreeAndTheLanes) {
  const CliResult r = run_cli("cg-reduce --backend model --n 1000000 --block 128 --trace --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== trace: block 0, warp 0", "s_y[i] of block 0 after each step",
                        "rung 3, warp 0: y += __shfl_down_sync(FULL_MASK, y, offset)", "the grid-stride loop"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  const auto doc = valid_document("cg-reduce --backend model --n 3000 --block 64 --trace --trace-block 2 "
                                  "--trace-warp 1 --variant shfl --json",
                                  0);
  const auto& trace = doc["report"]["sections"].back();
  EXPECT_EQ(trace["id"], "trace");
  ASSERT_EQ(trace["tables"].size(), 3u);
  EXPECT_EQ(trace["tables"][0]["rows"].size(), 64u);
  EXPECT_EQ(trace["tables"][1]["rows"].size(), 32u);
}

TEST(CgReduceCli, EveryJsonDocumentValidates) {
  valid_document("cg-reduce --backend model --n 5000 --json", 0);
  valid_document("cg-reduce --backend model --n 777 --block 32 --variant grid-sync --grid 5 --json", 0);
  const auto bench = valid_document("cg-reduce --backend model --bench --sizes 10,12 --json", 0);
  // Without a GPU the sweep measures nothing and says so.
  bool any = false;
  for (const auto& s : bench["report"]["sections"])
    for (const auto& m : s["measurements"]) {
      any = true;
      EXPECT_TRUE(m["needs_gpu"].get<bool>()) << m.dump();
    }
  EXPECT_TRUE(any);
  const auto err = valid_document("cg-reduce --block 100 --json", 2);
  EXPECT_TRUE(err.contains("error")) << err.dump(2);
}

TEST(CgReduceCli, ModelRunsAreDeterministicPerSeed) {
  const std::string args = "cg-reduce --backend model --n 20000 --variant two-pass,grid-sync --json";
  const auto a = run_cli(args + " --seed 5");
  const auto b = run_cli(args + " --seed 5");
  const auto c = run_cli(args + " --seed 6");
  const auto ladder = [](const std::string& out) {
    return nlohmann::json::parse(out)["report"]["sections"].back().dump();
  };
  EXPECT_EQ(ladder(a.out), ladder(b.out));
  EXPECT_NE(ladder(a.out), ladder(c.out));
}

// ---- sections with made-up GPU results ------------------------------------------------------

Problem gpu_setup() {
  Problem s;
  s.dtype = Dtype::f32;
  s.n = 1000;
  s.plan = default_plan(128);
  s.gpu = true;
  s.device = "GPU 0: test";
  s.reference = 500.0;
  s.reps = 3;
  return s;
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

const report::Check* find_check(const report::Section& s, const std::string& starts) {
  for (const auto& c : s.checks)
    if (c.name.rfind(starts, 0) == 0) return &c;
  return nullptr;
}

TEST(CgReduceSections, AGpuSumOneBitOffTheModelFails) {
  const Problem s = gpu_setup();
  const float model = 500.0f;
  const float off = std::nextafter(model, 1000.0f);
  const auto good = rung_section("two-pass", {fixed_run(Kernel::two_pass_seed, model, model)}, s);
  const auto* c = find_check(good, "two-pass, grid 10240: GPU bits equal the model's");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->passed);
  const auto bad = rung_section("two-pass", {fixed_run(Kernel::two_pass_seed, model, off)}, s);
  c = find_check(bad, "two-pass, grid 10240: GPU bits equal the model's");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed) << c->detail;
  EXPECT_EQ(bad.tables[0].marks[0], report::RowMark::mismatch);
  const auto ladder = ladder_section({fixed_run(Kernel::two_pass_seed, model, off)}, s);
  EXPECT_EQ(ladder.tables[0].marks[0], report::RowMark::mismatch);
}

TEST(CgReduceSections, AtomicRungsAreJudgedByTheirOrderBound) {
  const Problem s = gpu_setup();
  KernelRun r = fixed_run(Kernel::shared_atomic, 500.0f, 500.0f + 0.25f);
  r.fixed_order = false;
  r.order_bound = 0.5;
  const auto in = rung_section("shared", {r}, s);
  const auto* c = find_check(in, "shared + __syncthreads: |GPU - model| within the atomic-order bound");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->passed);
  EXPECT_EQ(find_check(in, "shared + __syncthreads: GPU bits equal"), nullptr) << "no bit check without a fixed order";
  r.order_bound = 0.125;
  const auto out = rung_section("shared", {r}, s);
  EXPECT_FALSE(find_check(out, "shared + __syncthreads: |GPU - model|")->passed);
}

TEST(CgReduceSections, AModelRunHasNoGpuColumnsAndNeedsAGpuForTimes) {
  Problem s = gpu_setup();
  s.gpu = false;
  KernelRun r;
  r.kernel = Kernel::grid_sync;
  r.model = sum_of(500.0f);
  r.depth = 30;
  const auto sec = rung_section("grid-sync", {r}, s);
  ASSERT_EQ(sec.tables.size(), 1u);
  EXPECT_EQ(sec.tables[0].columns.size(), 3u);  // kernel, model, rel. error
  ASSERT_FALSE(sec.measurements.empty());
  for (const auto& m : sec.measurements) EXPECT_TRUE(m.needs_gpu);
  ASSERT_EQ(sec.checks.size(), 1u);
  EXPECT_TRUE(sec.checks[0].passed) << sec.checks[0].detail;  // the error bound: the model's sum is exact here
}

}  // namespace
}  // namespace cudasync::cg_reduce
