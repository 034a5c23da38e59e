// The verdicts on a GPU's lanes (shuffles.cpp, votes.cpp, reduction.cpp), fed made-up GPU results:
// what counts as agreeing with the reference model, and how a disagreement is named.
#include <gtest/gtest.h>

#include "techniques/warp_primitives/lesson.hpp"
#include "techniques/warp_primitives/warp_primitives_test_lanes.hpp"

namespace wp = cudasync::warp_primitives;

namespace {

using cudasync::warp_primitives::test_lanes::tid_values;

wp::ShuffleSpec spec_of(wp::ShuffleOp op, int param, int width, int threads, std::uint32_t mask) {
  wp::ShuffleSpec s;
  s.op = op;
  s.param = param;
  s.width = width;
  s.warp.threads = threads;
  s.warp.mask = mask;
  s.values = tid_values();
  return s;
}

// What a correct GPU returns for a shuffle: the model's value where it is defined, kPoison where
// the lane did not call, and some arbitrary value where CUDA leaves it undefined.
wp::Lanes faithful_gpu(const wp::ShuffleSpec& spec) {
  const auto m = wp::model_shuffle(spec);
  wp::Lanes g{};
  for (std::size_t l = 0; l < g.size(); ++l)
    g[l] = m[l].outcome == wp::LaneOutcome::inactive ? wp::kPoison : m[l].defined() ? m[l].value : 12345;
  return g;
}

// The lanes of a shuffle noted as shuffle_part notes them.
cudasync::report::Agreement judge_shuffle(const std::array<wp::ShuffleLane, wp::kWarpSize>& model, const wp::Lanes& gpu,
                                          int threads) {
  cudasync::report::Agreement a(true);
  for (int lane = 0; lane < threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    wp::note_lane(a, lane, model[l], wp::shuffle_lane_agrees(model[l], gpu[l]));
  }
  return a;
}

wp::VoteSpec vote_spec(std::uint32_t mask, int threads) {
  wp::VoteSpec v;
  v.warp.mask = mask;
  v.warp.threads = threads;
  for (int l = 0; l < 32; ++l) {
    v.predicate[static_cast<std::size_t>(l)] = l % 2 == 0 ? 1 : 0;
    v.key[static_cast<std::size_t>(l)] = l % 4;
    v.values[static_cast<std::size_t>(l)] = l;
  }
  return v;
}

}  // namespace

TEST(WarpJudgeShuffle, AgreeingGpuPassesAndUndefinedSourcesAreNotCompared) {
  // 32 threads, mask 0x0000ffff, shfl_down 2: lanes 14, 15 read non-callers (any value is fine
  // there), lanes 16-31 did not call and must keep kPoison.
  const auto spec = spec_of(wp::ShuffleOp::down, 2, 32, 32, 0x0000ffffu);
  const auto v = judge_shuffle(wp::model_shuffle(spec), faithful_gpu(spec), 32);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(wp::lanes_detail(v), "30 of 30 compared lanes agree");
}

TEST(WarpJudgeShuffle, OneDisagreeingLaneIsNamed) {
  const auto spec = spec_of(wp::ShuffleOp::idx, 2, 8, 16, 0xffffffffu);
  auto gpu = faithful_gpu(spec);
  gpu[5] = 3;  // the model says 2
  const auto v = judge_shuffle(wp::model_shuffle(spec), gpu, 16);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(wp::lanes_detail(v), "lanes 5 differ");
}

TEST(WarpJudgeShuffle, KeptOwnLaneThatDiffersIsAMismatch) {
  const auto spec = spec_of(wp::ShuffleOp::up, 2, 8, 16, 0xffffffffu);
  const auto model = wp::model_shuffle(spec);
  EXPECT_FALSE(wp::shuffle_lane_agrees(model[9], 7));  // lane 9 keeps its own 9 (segment lane 1 < delta 2)
  EXPECT_TRUE(wp::shuffle_lane_agrees(model[9], 9));
}

TEST(WarpJudgeShuffle, GpuWritingIntoAnInactiveLaneFails) {
  const auto spec = spec_of(wp::ShuffleOp::bfly, 1, 32, 32, 0x0000ffffu);
  auto gpu = faithful_gpu(spec);
  gpu[17] = 16;  // lane 17 is not in the mask: it must still hold kPoison
  EXPECT_EQ(wp::lanes_detail(judge_shuffle(wp::model_shuffle(spec), gpu, 32)), "lanes 17 differ");
}

TEST(WarpJudgeShuffle, ManyMismatchesAreListedShortly) {
  const auto spec = spec_of(wp::ShuffleOp::down, 1, 32, 32, 0xffffffffu);
  auto gpu = faithful_gpu(spec);
  for (auto& x : gpu) x += 1000;
  const auto v = judge_shuffle(wp::model_shuffle(spec), gpu, 32);
  EXPECT_EQ(wp::lanes_detail(v), "lanes 0, 1, 2, 3, 4, 5, 6, 7, ... (32 in all) differ");
}

TEST(WarpJudgeVotes, EveryOpMustEqualTheModelExactly) {
  const auto spec = vote_spec(0x0000ffffu, 32);
  const wp::VoteLanes model = wp::model_votes(spec);
  for (const char* op : {"ballot", "all", "any", "match-any", "match-all"}) {
    wp::VoteLanes gpu = model;
    EXPECT_TRUE(wp::vote_lane_agrees(op, model, gpu, spec.warp, 7)) << op;
  }
  wp::VoteLanes gpu = model;
  gpu.match_any[7] ^= 1u;
  EXPECT_FALSE(wp::vote_lane_agrees("match-any", model, gpu, spec.warp, 7));
  gpu = model;
  gpu.match_all_pred[3] = 1 - model.match_all_pred[3];  // same mask, other pred: wrong
  EXPECT_FALSE(wp::vote_lane_agrees("match-all", model, gpu, spec.warp, 3));
}

TEST(WarpJudgeVotes, ActivemaskMayBeASubsetContainingTheLane) {
  const auto spec = vote_spec(0x000000ffu, 32);
  const wp::VoteLanes model = wp::model_votes(spec);
  wp::VoteLanes gpu = model;
  for (int l = 0; l < 8; ++l) gpu.activemask[static_cast<std::size_t>(l)] = 1u << l;  // each lane alone: allowed
  for (int l = 0; l < 8; ++l) EXPECT_TRUE(wp::vote_lane_agrees("activemask", model, gpu, spec.warp, l)) << l;
  gpu.activemask[2] = 0x1u;    // lane 2 missing from its own mask: wrong
  gpu.activemask[3] = 0x108u;  // lane 8 never took the branch: wrong
  EXPECT_FALSE(wp::vote_lane_agrees("activemask", model, gpu, spec.warp, 2));
  EXPECT_FALSE(wp::vote_lane_agrees("activemask", model, gpu, spec.warp, 3));
}

TEST(WarpJudgeSyncwarp, DifferingWordsAreListed) {
  const auto right = wp::model_syncwarp(tid_values(), wp::SyncwarpVariant::guarded);
  auto wrong = right;
  wrong[0] = 480;
  wrong[40] = 1;
  EXPECT_TRUE(wp::differing_words(right, right).empty());
  EXPECT_EQ(wp::differing_words(wrong, right), (std::vector<int>{0, 40}));
}
