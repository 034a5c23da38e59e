// The reference model of the warp sums (Fan, ch. 10, 10.2 and 10.3.2) against values computed by
// hand: the last-warp shared-memory loops with __syncwarp, and the shuffle ladders.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "techniques/warp_primitives/lesson.hpp"
#include "techniques/warp_primitives/warp_primitives_test_lanes.hpp"

namespace wp = cudasync::warp_primitives;

using cudasync::warp_primitives::test_lanes::tid_values;

// ---------------------------------------------------------------- syncwarp (Fan 10.2)

namespace {
// The racy loop with lanes one at a time, 31 down to 0, computed a different way from the model:
// by propagating, backwards through the five steps, the weight of each s[k] in the final s[0].
// Step `o` run 31..0 gives new s[t] = old s[t] + new s[t+o] = sum_j old s[t + j*o] (t + j*o <= 31;
// s[32..63] are 0 and never written). So the weight of old s[u] in the result is the sum of the
// weights of new s[t] for t <= u, t = u (mod o).
std::int64_t racy_descending_s0_by_weights(const wp::Lanes& v) {
  std::vector<std::int64_t> weight(32, 0);
  weight[0] = 1;  // the final s[0]
  for (int o = 1; o <= 16; o <<= 1) {  // undo the steps in reverse order: 1, 2, 4, 8, 16
    std::vector<std::int64_t> before(32, 0);
    for (int u = 0; u < 32; ++u)
      for (int t = u; t >= 0; t -= o) before[static_cast<std::size_t>(u)] += weight[static_cast<std::size_t>(t)];
    weight = before;
  }
  std::int64_t s0 = 0;
  for (int k = 0; k < 32; ++k) s0 += weight[static_cast<std::size_t>(k)] * v[static_cast<std::size_t>(k)];
  return s0;
}
}  // namespace

TEST(WarpModelSyncwarp, GuardedAndRegistersGiveTheSum) {
  // [Fan] 10.2: the guarded loop and the register loop both leave the sum in s[0]:
  // 0 + 1 + ... + 31 = 31 * 32 / 2 = 496.
  const auto v = tid_values();
  EXPECT_EQ(wp::model_syncwarp(v, wp::SyncwarpVariant::guarded)[0], 496);
  EXPECT_EQ(wp::model_syncwarp(v, wp::SyncwarpVariant::registers)[0], 496);
  // The guarded loop only ever writes s[t] with t < offset: s[16..31] keep the input.
  const auto g = wp::model_syncwarp(v, wp::SyncwarpVariant::guarded);
  EXPECT_EQ(g[16], 16);
  EXPECT_EQ(g[31], 31);
  // s[1] gathers 1+17 (o=16), 9+25 (o=8), 5+21+13+29 (o=4), 3+...+31 (o=2): the sum of the odd
  // values, 16 * 16 = 256; offset 1 only writes s[0].
  EXPECT_EQ(g[1], 256);
  for (int i = 32; i < 64; ++i) EXPECT_EQ(g[static_cast<std::size_t>(i)], 0) << i;
}

TEST(WarpModelSyncwarp, RacyInLockstepAlsoGivesTheSum) {
  // A converged warp: every lane reads before any lane writes, so s[0] is still 496.
  EXPECT_EQ(wp::model_syncwarp(tid_values(), wp::SyncwarpVariant::racy)[0], 496);
}

TEST(WarpModelSyncwarp, RacyDescendingSingleValueByHand) {
  // Only s[16] = 1. Lockstep: s[0] = 1. Lanes 31..0 one at a time (each step o adds the already
  // updated s[t+o]):
  //   o=16: s0=1, s16=1
  //   o=8:  s0 = s0+s8+s16+s24 = 2, s8 = 1, s16 = 1
  //   o=4:  s0 = 2+0+1+0+1 = 4, s4 = 2, s8 = 2, s12 = 1, s16 = 1
  //   o=2:  s0 = 4+2+2+1+1 = 10, s2 = s4 = 6, s6 = s8 = 4, s10 = s12 = 2, s14 = s16 = 1
  //   o=1:  s0 = sum of all = 10+6+6+4+4+2+2+1+1 = 36
  wp::Lanes v{};
  v[16] = 1;
  EXPECT_EQ(wp::model_syncwarp(v, wp::SyncwarpVariant::racy)[0], 1);
  EXPECT_EQ(wp::model_syncwarp_racy_descending(v)[0], 36);
  EXPECT_EQ(racy_descending_s0_by_weights(v), 36);  // the independent computation agrees by hand
  // Lane 0's own value is never counted twice: only s[0] = 1 gives 1.
  wp::Lanes only0{};
  only0[0] = 1;
  EXPECT_EQ(wp::model_syncwarp_racy_descending(only0)[0], 1);
}

TEST(WarpModelSyncwarp, RacyDescendingTidValuesDifferFromTheSum) {
  const auto v = tid_values();
  const std::int32_t got = wp::model_syncwarp_racy_descending(v)[0];
  EXPECT_NE(got, 496);
  EXPECT_EQ(static_cast<std::int64_t>(got), racy_descending_s0_by_weights(v));
  EXPECT_GT(got, 496);  // every weight is >= 1 and lane 16 alone weighs 36
}

// ---------------------------------------------------------------- shuffle reductions (10.3.2)

TEST(WarpModelReductionTrace, XorLeavesTheSumInEveryLane) {
  const auto t = wp::model_reduction_trace(tid_values(), wp::ShuffleOp::bfly);
  EXPECT_EQ(t[0], tid_values());
  // After offset 16: lane l holds l + (l ^ 16): lane 0 -> 0 + 16 = 16, lane 20 -> 20 + 4 = 24.
  EXPECT_EQ(t[1][0], 16);
  EXPECT_EQ(t[1][20], 24);
  EXPECT_EQ(t[1][16], 16);
  // After offset 8: lane 0 = t1[0] + t1[8] = 16 + (8 + 24) = 48.
  EXPECT_EQ(t[2][0], 48);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(t[5][static_cast<std::size_t>(l)], 496) << l;
}

TEST(WarpModelReductionTrace, DownLeavesTheSumInLaneZeroOnly) {
  const auto t = wp::model_reduction_trace(tid_values(), wp::ShuffleOp::down);
  // Offset 16: lane l < 16 adds lane l+16: lane 0 = 0 + 16 = 16, lane 15 = 15 + 31 = 46.
  // Lane 20: 20 + 16 = 36 >= 32 is past the segment, so shfl_down returns lane 20's own value:
  // 20 + 20 = 40.
  EXPECT_EQ(t[1][0], 16);
  EXPECT_EQ(t[1][15], 46);
  EXPECT_EQ(t[1][20], 40);
  EXPECT_EQ(t[1][31], 62);
  // Offset 8: lane 0 = 16 + t1[8] = 16 + (8 + 24) = 48; lane 16 = t1[16] + t1[24] = 32 + 48 = 80;
  // lane 24 keeps its own: 48 + 48 = 96.
  EXPECT_EQ(t[2][0], 48);
  EXPECT_EQ(t[2][16], 80);
  EXPECT_EQ(t[2][24], 96);
  EXPECT_EQ(t[5][0], 496);
  // Lane 31 keeps its own value in all five steps: 31 * 2^5 = 992.
  EXPECT_EQ(t[5][31], 992);
  int holding_sum = 0;
  for (int l = 1; l < 32; ++l) holding_sum += t[5][static_cast<std::size_t>(l)] == 496 ? 1 : 0;
  EXPECT_LT(holding_sum, 31);  // not a broadcast
}
