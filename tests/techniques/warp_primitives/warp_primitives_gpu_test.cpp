// The GPU against the reference model, lane by lane, over the whole option space the CLI offers.
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "support/gpu_available.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {
namespace {

struct MaskCase {
  int threads;
  std::uint32_t mask;
};
// Full warp; Fan's block of 16 with FULL_MASK; a partial mask; a sparse mask; one lane.
const MaskCase kMasks[] = {{32, 0xffffffffu}, {16, 0xffffffffu}, {32, 0x0000ffffu}, {32, 0x5a5aa5a5u}, {32, 0x00000100u}};

void expect_shuffle_matches_model(const ShuffleSpec& spec) {
  const auto model = model_shuffle(spec);
  const Lanes gpu = gpu_shuffle(spec);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    SCOPED_TRACE("op " + std::to_string(static_cast<int>(spec.op)) + " param " + std::to_string(spec.param) + " width " +
                 std::to_string(spec.width) + " threads " + std::to_string(spec.warp.threads) + " mask " +
                 std::to_string(spec.warp.mask) + " lane " + std::to_string(lane));
    if (model[l].outcome == LaneOutcome::inactive) {
      EXPECT_EQ(gpu[l], kPoison) << "a lane that did not call was written";
    } else if (model[l].defined()) {
      EXPECT_EQ(gpu[l], model[l].value);
    }
  }
}

TEST(WarpPrimitivesGpu, EveryShuffleEveryWidthSeveralParamsAndMasks) {
  CUDASYNC_REQUIRE_GPU();
  const Lanes values = make_values(ValueKind::random, 11);
  for (auto op : {ShuffleOp::idx, ShuffleOp::up, ShuffleOp::down, ShuffleOp::bfly})
    for (int width : {2, 4, 8, 16, 32})
      for (const auto& m : kMasks) {
        std::vector<int> params = {0, 1, width / 2, width - 1};
        if (op == ShuffleOp::idx || op == ShuffleOp::bfly) params.insert(params.end(), {width, 31});  // beyond the segment
        for (int p : params) {
          ShuffleSpec s;
          s.op = op;
          s.param = p;
          s.width = width;
          s.warp = {m.threads, m.mask};
          s.values = values;
          expect_shuffle_matches_model(s);
        }
      }
}

TEST(WarpPrimitivesGpu, VotesAndMatchUnderEveryPredicateAndMask) {
  CUDASYNC_REQUIRE_GPU();
  for (const char* pred_text : {"even", "odd", "true", "false", "random", "lane<5", "lane>0", "lane==31"})
    for (const char* key_text : {"lane%4", "lane/8", "7", "lane&5"})
      for (const auto& m : kMasks) {
        VoteSpec spec;
        spec.warp = {m.threads, m.mask};
        spec.predicate = evaluate(*parse_predicate(pred_text), 3);
        spec.key = evaluate(*parse_key(key_text));
        const VoteLanes want = model_votes(spec);
        const VoteLanes got = gpu_votes(spec);
        for (int lane = 0; lane < kWarpSize; ++lane) {
          if (!spec.warp.calls(lane)) continue;
          const auto l = static_cast<std::size_t>(lane);
          SCOPED_TRACE(std::string(pred_text) + " / " + key_text + " mask " + std::to_string(m.mask) + " lane " + std::to_string(lane));
          EXPECT_EQ(got.ballot[l], want.ballot[l]);
          EXPECT_EQ(got.all[l], want.all[l]);
          EXPECT_EQ(got.any[l], want.any[l]);
          EXPECT_EQ(got.match_any[l], want.match_any[l]);
          EXPECT_EQ(got.match_all[l], want.match_all[l]);
          EXPECT_EQ(got.match_all_pred[l], want.match_all_pred[l]);
          // __activemask: a subset of the lanes that took the branch, containing the lane itself.
          EXPECT_EQ(got.activemask[l] & ~spec.warp.calling(), 0u);
          EXPECT_TRUE((got.activemask[l] >> lane) & 1u);
        }
      }
}

TEST(WarpPrimitivesGpu, ReduceAddMinMaxMatchModel) {
  CUDASYNC_REQUIRE_GPU();
  const GpuProbe probe = probe_gpus();
  if (probe.devices.front().compute_capability() < 80) GTEST_SKIP() << "__reduce_*_sync needs compute capability 8.0+";
  for (std::uint64_t seed : {1u, 2u, 3u})
    for (const auto& m : kMasks) {
      VoteSpec spec;
      spec.warp = {m.threads, m.mask};
      spec.values = make_values(ValueKind::random, seed);
      const ReduceLanes want = model_reduce(spec);
      const ReduceLanes got = gpu_reduce(spec);
      for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!spec.warp.calls(lane)) continue;
        const auto l = static_cast<std::size_t>(lane);
        EXPECT_EQ(got.add[l], want.add[l]);
        EXPECT_EQ(got.min[l], want.min[l]);
        EXPECT_EQ(got.max[l], want.max[l]);
      }
    }
}

TEST(WarpPrimitivesGpu, SyncwarpCorrectVariantsMatchModelExactly) {
  CUDASYNC_REQUIRE_GPU();
  for (std::uint64_t seed : {1u, 5u, 9u}) {
    const Lanes values = make_values(ValueKind::random, seed);
    for (auto v : {SyncwarpVariant::guarded, SyncwarpVariant::registers}) {
      EXPECT_EQ(gpu_syncwarp(values, v), model_syncwarp(values, v)) << variant_name(v);
    }
  }
}

// The racy loop has no single right outcome, so the lesson must report what this GPU did: the
// right sum by luck (and why), or the sum the race produced.
TEST(WarpPrimitivesGpu, RacyVariantIsReportedAsRacyWhereItIsWrong) {
  CUDASYNC_REQUIRE_GPU();
  RunContext ctx;
  ctx.gpu = true;
  ctx.device = probe_gpus().devices.front();
  Options o;
  o.variants = {"racy"};
  warp_primitives::Run run(o, ctx, {});  // qualified: gtest's Test has a Run() of its own
  const report::Section s = syncwarp_part(run);
  std::int64_t got = -1;
  for (const auto& f : s.facts)
    if (f.id == "racy-s0-gpu") got = std::get<std::int64_t>(f.value);
  ASSERT_NE(got, -1) << "the part shows what this GPU returned";
  EXPECT_NE(got, static_cast<std::int64_t>(kPoison));
  ASSERT_EQ(s.notes.size(), 1u);
  const std::string& note = s.notes.front();
  if (got == 496) {
    EXPECT_NE(note.find("the right sum"), std::string::npos) << note;
    EXPECT_NE(note.find("racecheck"), std::string::npos) << note;
  } else {
    std::cout << "[ RACE     ] racy __syncwarp loop gave s[0] = " << got << " instead of 496\n";
    EXPECT_NE(note.find("instead of 496"), std::string::npos) << note;
  }
  EXPECT_TRUE(s.checks.empty()) << "the racy variant has no single right answer to check";
}

TEST(WarpPrimitivesGpu, ReductionTracesMatchModelEveryStep) {
  CUDASYNC_REQUIRE_GPU();
  for (auto kind : {ValueKind::tid, ValueKind::random}) {
    const Lanes values = make_values(kind, 4);
    for (auto op : {ShuffleOp::down, ShuffleOp::bfly})
      EXPECT_EQ(gpu_reduction_trace(values, op), model_reduction_trace(values, op));
  }
}

TEST(WarpPrimitivesGpu, CostProbesReturnPositiveCycles) {
  CUDASYNC_REQUIRE_GPU();
  const int cc = probe_gpus().devices.front().compute_capability();
  for (int p = 0; p < kCostProbes; ++p) {
    if (static_cast<CostProbe>(p) == CostProbe::sum_reduce_add && cc < 80) continue;
    const double cycles = gpu_cycles_per_op(static_cast<CostProbe>(p), 256);
    EXPECT_GT(cycles, 1.0) << "probe " << p;
    EXPECT_LT(cycles, 100000.0) << "probe " << p;
  }
}

}  // namespace
}  // namespace cudasync::warp_primitives
