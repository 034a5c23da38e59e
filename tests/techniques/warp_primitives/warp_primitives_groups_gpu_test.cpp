// The parts divergence, cg-tiles and shfl-64 on a real GPU: each against the reference model, lane
// by lane, and each section's own checks.
#include <gtest/gtest.h>

#include <iostream>

#include "support/gpu_available.hpp"
#include "support/report_lookup.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {
namespace {

RunContext gpu_context() {
  RunContext ctx;
  ctx.gpu = true;
  ctx.device = probe_gpus().devices.front();
  return ctx;
}

TEST(WarpGroupsGpu, DivergencePathsAndResultsMatchTheModel) {
  CUDASYNC_REQUIRE_GPU();
  for (SwitchOn on : {SwitchOn::warp, SwitchOn::lane})
    for (int iterations : {1, 64}) {
      SCOPED_TRACE("switch on " + std::string(on == SwitchOn::warp ? "warp" : "lane") + ", " +
                   std::to_string(iterations) + " steps");
      const DivergenceRun r = gpu_divergence(on, iterations);
      const report::Agreement paths = judge_paths(on, r.activemask);
      EXPECT_TRUE(paths.passed()) << lanes_detail(paths);
      const report::Agreement results = judge_case_results(on, iterations, r.result);
      EXPECT_TRUE(results.passed()) << lanes_detail(results);
      for (auto c : r.cycles) EXPECT_GT(c, 0);
    }
}

TEST(WarpGroupsGpu, TheSwitchOnTheLaneCostsAboutThirtyTwoPaths) {
  CUDASYNC_REQUIRE_GPU();
  std::vector<double> by_warp, by_lane;
  for (int i = 0; i < 7; ++i) {
    for (auto c : gpu_divergence(SwitchOn::warp, 64).cycles) by_warp.push_back(static_cast<double>(c));
    for (auto c : gpu_divergence(SwitchOn::lane, 64).cycles) by_lane.push_back(static_cast<double>(c));
  }
  const double ratio = divergence_ratio(by_warp, by_lane);
  std::cout << "[ CYCLES   ] switch on the warp " << report::median(by_warp) << ", on the lane "
            << report::median(by_lane) << ": " << ratio << "x\n";
  EXPECT_GE(ratio, kSerialisedAtLeast);
  EXPECT_LE(ratio, 64.0) << "more than twice 32 paths: something else than the paths dominates";
}

TEST(WarpGroupsGpu, DivergenceSectionChecksPass) {
  CUDASYNC_REQUIRE_GPU();
  const RunContext ctx = gpu_context();
  Options o;
  warp_primitives::Run run(o, ctx, {});  // qualified: gtest's Test has a Run() of its own
  const report::Section s = divergence_part(run);
  ASSERT_EQ(s.checks.size(), 4u);
  for (const auto& c : s.checks) EXPECT_TRUE(c.passed) << c.id << ": " << c.detail;
  const report::Table* t = test::find_table(s, "lane-switch");
  ASSERT_NE(t, nullptr);
  EXPECT_NO_THROW(t->column_index("gpu"));
}

TEST(WarpGroupsGpu, TilesMatchTheModelForSeveralPredicatesAndValues) {
  CUDASYNC_REQUIRE_GPU();
  for (const char* pred : {"even", "lane<6", "true", "false", "random"})
    for (ValueKind kind : {ValueKind::tid, ValueKind::random}) {
      SCOPED_TRACE(pred);
      const Lanes values = make_values(kind, 5);
      const Lanes predicate = evaluate(*parse_predicate(pred), 9);
      const report::Agreement v = judge_tiles(model_tiles(values, predicate), gpu_tiles(values, predicate));
      EXPECT_TRUE(v.passed()) << lanes_detail(v);
    }
}

TEST(WarpGroupsGpu, SixtyFourBitShufflesMatchTheModelBitForBit) {
  CUDASYNC_REQUIRE_GPU();
  const std::pair<int, std::uint32_t> setups[] = {{32, 0xffffffffu}, {16, 0xffffffffu}, {32, 0x0000ffffu},
                                                  {32, 0x5a5aa5a5u}};
  for (int width : {2, 8, 32})
    for (int delta : {0, 1, width / 2, width - 1})
      for (const auto& [threads, mask] : setups) {
        SCOPED_TRACE("width " + std::to_string(width) + " delta " + std::to_string(delta) + " threads " +
                     std::to_string(threads) + " mask " + std::to_string(mask));
        ShuffleSpec spec;
        spec.op = ShuffleOp::down;
        spec.param = delta;
        spec.width = width;
        spec.warp = {threads, mask};
        spec.values = make_values(ValueKind::random, 21);
        const auto lanes = model_shuffle(spec);
        const Shuffle64Lanes model = model_shuffle64(spec), gpu = gpu_shuffle64(spec);
        for (int lane = 0; lane < threads; ++lane) {
          const auto l = static_cast<std::size_t>(lane);
          EXPECT_TRUE(shuffle64_lane_agrees(lanes[l], model, gpu, l)) << "lane " << lane;
        }
      }
}

TEST(WarpGroupsGpu, TilesAndShfl64SectionsPassOnTheGpu) {
  CUDASYNC_REQUIRE_GPU();
  const RunContext ctx = gpu_context();
  Options o;
  o.threads = 16;
  o.width = 8;
  warp_primitives::Run run(o, ctx, {});
  for (const report::Section& s : {cg_tiles_part(run), shfl64_part(run)}) {
    ASSERT_NE(test::find_check(s, "gpu-agrees"), nullptr) << s.id;
    for (const auto& c : s.checks) EXPECT_TRUE(c.passed) << s.id << "/" << c.id << ": " << c.detail;
  }
}

}  // namespace
}  // namespace cudasync::warp_primitives
