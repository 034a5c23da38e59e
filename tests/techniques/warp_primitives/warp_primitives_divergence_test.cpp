// Part divergence (Fan 10.1): the model's paths step by step, the judges of the GPU's
// __activemask() and results, the cycle ratio, and the section on the reference model.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"
#include "support/report_lookup.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {
namespace {

using test::find_fact;
using test::find_table;

BlockMasks model_masks(SwitchOn on) {
  BlockMasks m{};
  for (int t = 0; t < kDivergenceThreads; ++t) m[static_cast<std::size_t>(t)] = path_lanes(on, t);
  return m;
}

TEST(WarpDivergenceModel, TheCaseIsTheWarpOrTheLane) {
  EXPECT_EQ(divergence_case(SwitchOn::warp, 37), 1);  // Fan's warp_id = threadIdx.x / 32
  EXPECT_EQ(divergence_case(SwitchOn::lane, 37), 5);  // threadIdx.x % 32: a lane index
  EXPECT_EQ(divergence_case(SwitchOn::warp, 127), 3);
  EXPECT_EQ(divergence_case(SwitchOn::lane, 127), 31);
}

TEST(WarpDivergenceModel, SwitchOnTheWarpIsOnePathPerWarpWithEveryLane) {
  const auto steps = model_paths(SwitchOn::warp);
  ASSERT_EQ(steps.size(), 4u);
  for (int w = 0; w < 4; ++w) {
    EXPECT_EQ(steps[static_cast<std::size_t>(w)].warp, w);
    EXPECT_EQ(steps[static_cast<std::size_t>(w)].case_id, w);
    EXPECT_EQ(steps[static_cast<std::size_t>(w)].lanes, 0xffffffffu);
  }
}

TEST(WarpDivergenceModel, SwitchOnTheLaneIsThirtyTwoPathsOfOneLaneEach) {
  const auto steps = model_paths(SwitchOn::lane);
  ASSERT_EQ(steps.size(), 128u);  // 4 warps x 32 cases
  std::uint32_t seen = 0;
  for (const auto& p : steps) {
    EXPECT_EQ(p.lanes, 1u << p.case_id) << "warp " << p.warp << " case " << p.case_id;
    if (p.warp == 2) seen |= p.lanes;
  }
  EXPECT_EQ(seen, 0xffffffffu) << "every lane of warp 2 runs in exactly one step";
  EXPECT_EQ(steps[32 * 2 + 7].warp, 2);
  EXPECT_EQ(steps[32 * 2 + 7].lanes, 0x80u);
  EXPECT_EQ(path_lanes(SwitchOn::lane, 64 + 7), 0x80u);
  EXPECT_EQ(path_lanes(SwitchOn::warp, 64 + 7), 0xffffffffu);
}

TEST(WarpDivergenceModel, CaseWorkByHand) {
  // thread 1, case 2, two steps: 1 -> 3*1+2 = 5 -> 3*5+2 = 17.
  EXPECT_EQ(case_work(2, 1, 2), 17u);
  EXPECT_EQ(case_work(0, 7, 0), 7u);
  // unsigned: wraps modulo 2^32 (3^21 > 2^32): the same as the kernel's unsigned arithmetic.
  std::uint32_t x = 1;
  for (int i = 0; i < 21; ++i) x = x * 3u;
  EXPECT_EQ(case_work(0, 1, 21), x);
}

TEST(WarpDivergenceJudge, PathsAcceptTheModelOrFewerLanesButNeverOthers) {
  for (SwitchOn on : {SwitchOn::warp, SwitchOn::lane}) {
    EXPECT_TRUE(judge_paths(on, model_masks(on)).passed());
    EXPECT_EQ(judge_paths(on, model_masks(on)).compared(), 128u);
  }
  BlockMasks alone{};  // every thread ran by itself: allowed, the hardware may split a path further
  for (int t = 0; t < kDivergenceThreads; ++t) alone[static_cast<std::size_t>(t)] = 1u << (t % 32);
  EXPECT_TRUE(judge_paths(SwitchOn::warp, alone).passed());
  BlockMasks wrong = model_masks(SwitchOn::lane);
  wrong[35] |= 1u << 4;  // thread 35 (lane 3) ran case 3 together with lane 4 of another case
  wrong[70] = 0;         // thread 70 did not see itself
  const report::Agreement v = judge_paths(SwitchOn::lane, wrong);
  EXPECT_EQ(v.differing(), (std::vector<std::int64_t>{35, 70}));
}

TEST(WarpDivergenceJudge, ResultsMustBeEachThreadsOwnCase) {
  BlockValues r{};
  for (int t = 0; t < kDivergenceThreads; ++t)
    r[static_cast<std::size_t>(t)] = case_work(divergence_case(SwitchOn::lane, t), t, 64);
  EXPECT_TRUE(judge_case_results(SwitchOn::lane, 64, r).passed());
  EXPECT_FALSE(judge_case_results(SwitchOn::warp, 64, r).passed()) << "the other switch's cases";
  r[9] += 1;
  EXPECT_EQ(judge_case_results(SwitchOn::lane, 64, r).differing(), (std::vector<std::int64_t>{9}));
}

TEST(WarpDivergenceJudge, RatioOfMedians) {
  EXPECT_DOUBLE_EQ(divergence_ratio({100, 100, 110}, {3000, 3200, 3100}), 31.0);
  EXPECT_DOUBLE_EQ(divergence_ratio({}, {3000}), 0.0);
  EXPECT_DOUBLE_EQ(divergence_ratio({0, 0}, {3000}), 0.0);
}

TEST(WarpDivergenceSection, ModelRunShowsThePathsAndNeedsAGpuForTheCycles) {
  RunContext ctx;  // the reference model
  Options o;
  warp_primitives::Run run(o, ctx, {});
  const report::Section s = divergence_part(run);
  EXPECT_EQ(s.id, "divergence");
  EXPECT_TRUE(s.checks.empty());
  const report::Table* w = find_table(s, "warp-switch");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->rows.size(), 4u);
  EXPECT_EQ(std::get<std::int64_t>(w->cell(2, "lanes")), 0xffffffff);
  const report::Table* l = find_table(s, "lane-switch");
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->rows.size(), 32u);
  EXPECT_EQ(std::get<std::int64_t>(l->cell(5, "lanes")), 0x20);
  EXPECT_EQ(std::get<std::int64_t>(l->cell(5, "step")), 6);
  EXPECT_EQ(std::get<std::int64_t>(find_fact(s, "paths-per-warp-lane-switch")->value), 32);
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(find_fact(s, "ratio")->value));
  ASSERT_EQ(s.measurements.size(), 2u);
  for (const auto& m : s.measurements) EXPECT_TRUE(m.needs_gpu) << m.id;
}

TEST(WarpDivergenceCli, ThePartRunsAloneAndNeedsNoOption) {
  const auto doc = test::valid_document("warp-primitives --part divergence --backend model --json");
  const auto& s = doc["report"]["sections"]["divergence"];
  EXPECT_EQ(s["tables"]["lane-switch"]["rows"].size(), 32u);
  EXPECT_EQ(s["tables"]["lane-switch"]["rows"][31]["lanes"].get<std::int64_t>(), 0x80000000LL);
  test::expect_usage_error({"warp-primitives --part divergence --delta 2", {"--delta", "shfl-up"}});
}

}  // namespace
}  // namespace cudasync::warp_primitives
