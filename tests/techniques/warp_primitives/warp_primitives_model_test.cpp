// The reference model of the shuffles against tables computed by hand.
//
// Sources of the expectations:
//   [Fan]   Fan, ch. 10, section 10.3: the example program warp.cu (block of 16 threads, width 8,
//           every thread passes tid; shuffles by 1, srcLane 2) and the prose items that explain
//           the functions with w = 8, d = 2.
//   [guide] CUDA C++ Programming Guide, "Warp Shuffle Functions" (srcLane outside 0..width-1 is
//           taken modulo width; shfl_up/down do not wrap; shfl_xor: "if the target lane is
//           outside the range the lane keeps its own var" only for a LATER segment, since
//           the PTX rule is j = lane ^ b, kept when j > maxLane), "Warp Vote Functions",
//           "Warp Match Functions", "Warp Reduce Functions" (unsigned arithmetic).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "techniques/warp_primitives/lesson.hpp"
#include "techniques/warp_primitives/warp_primitives_test_lanes.hpp"

namespace wp = cudasync::warp_primitives;
using wp::LaneOutcome;

namespace {

using cudasync::warp_primitives::test_lanes::tid_values;

// Fan's setup: one block of 16 threads, FULL_MASK, width 8, var = tid.
wp::ShuffleSpec fan_spec(wp::ShuffleOp op, int param) {
  wp::ShuffleSpec s;
  s.op = op;
  s.param = param;
  s.width = 8;
  s.warp.threads = 16;
  s.warp.mask = 0xffffffffu;
  s.values = tid_values();
  return s;
}

// Compares lanes 0..n-1 with `expected` (all received or kept_own, i.e. defined) and checks that
// lanes n..31 are inactive.
void expect_defined_values(const std::array<wp::ShuffleLane, wp::kWarpSize>& got, const std::vector<int>& expected) {
  for (std::size_t l = 0; l < expected.size(); ++l) {
    EXPECT_TRUE(got[l].defined()) << "lane " << l;
    EXPECT_EQ(got[l].value, expected[l]) << "lane " << l;
  }
  for (std::size_t l = expected.size(); l < static_cast<std::size_t>(wp::kWarpSize); ++l)
    EXPECT_EQ(got[l].outcome, LaneOutcome::inactive) << "lane " << l;
}

std::vector<int> lanes_with(const std::array<wp::ShuffleLane, wp::kWarpSize>& got, LaneOutcome o) {
  std::vector<int> out;
  for (int l = 0; l < wp::kWarpSize; ++l)
    if (got[static_cast<std::size_t>(l)].outcome == o) out.push_back(l);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- shuffles, Fan's tables

TEST(WarpModelFanTable, SegmentLaneIsTidModWidth) {
  // [Fan] 10.3: thread index 0..15 and lane_id 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7.
  const auto got = wp::model_shuffle(fan_spec(wp::ShuffleOp::idx, 2));
  const int expected[16] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  for (int l = 0; l < 16; ++l) EXPECT_EQ(got[static_cast<std::size_t>(l)].segment_lane, expected[l]) << "lane " << l;
}

TEST(WarpModelFanTable, ShflSrcLane2BroadcastsPerSegment) {
  // [Fan] warp.cu, __shfl_sync(FULL_MASK, tid, 2, WIDTH): lane 2's value to lanes 0-7, lane 10's to 8-15.
  const auto got = wp::model_shuffle(fan_spec(wp::ShuffleOp::idx, 2));
  expect_defined_values(got, {2, 2, 2, 2, 2, 2, 2, 2, 10, 10, 10, 10, 10, 10, 10, 10});
  EXPECT_EQ(got[0].source, 2);
  EXPECT_EQ(got[9].source, 10);
  EXPECT_EQ(lanes_with(got, LaneOutcome::received).size(), 16u);
}

TEST(WarpModelFanTable, ShflUpDelta2FirstTwoLanesOfEachSegmentKeepTheirOwn) {
  // [Fan] 10.3 item (5): w=8, d=2: lanes 0-5 go to 2-7, lanes 0-1 return their own v.
  const auto got = wp::model_shuffle(fan_spec(wp::ShuffleOp::up, 2));
  expect_defined_values(got, {0, 1, 0, 1, 2, 3, 4, 5, 8, 9, 8, 9, 10, 11, 12, 13});
  EXPECT_EQ(lanes_with(got, LaneOutcome::kept_own), (std::vector<int>{0, 1, 8, 9}));
  EXPECT_EQ(got[8].source, 8);   // kept_own: the lane itself
  EXPECT_EQ(got[10].source, 8);  // lane 10 = segment lane 2 reads lane 10-2 = 8 of its own segment
}

TEST(WarpModelFanTable, ShflDownDelta2LastTwoLanesOfEachSegmentKeepTheirOwn) {
  // [Fan] 10.3 item (6): w=8, d=2: lanes 2-7 go to 0-5, lanes 6-7 return their own v.
  const auto got = wp::model_shuffle(fan_spec(wp::ShuffleOp::down, 2));
  expect_defined_values(got, {2, 3, 4, 5, 6, 7, 6, 7, 10, 11, 12, 13, 14, 15, 14, 15});
  EXPECT_EQ(lanes_with(got, LaneOutcome::kept_own), (std::vector<int>{6, 7, 14, 15}));
  // Lane 6 of segment 0 must not read lane 8 of segment 1 (no crossing).
  EXPECT_EQ(got[6].source, 6);
}

TEST(WarpModelFanTable, ShflXorLaneMask2SwapsPairsOfPairs) {
  // [Fan] 10.3 item (7), the table 0^2=2, 1^2=3, 2^2=0, ... 7^2=5, applied to both segments.
  const auto got = wp::model_shuffle(fan_spec(wp::ShuffleOp::bfly, 2));
  expect_defined_values(got, {2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13});
  EXPECT_TRUE(lanes_with(got, LaneOutcome::kept_own).empty());
}

TEST(WarpModelFanTable, TheBookProgramShiftsByOne) {
  // [Fan] warp.cu: __shfl_up_sync / __shfl_down_sync / __shfl_xor_sync(FULL_MASK, tid, 1, WIDTH),
  // as the book's explanation items (12)-(14) describe them.
  expect_defined_values(wp::model_shuffle(fan_spec(wp::ShuffleOp::up, 1)),
                        {0, 0, 1, 2, 3, 4, 5, 6, 8, 8, 9, 10, 11, 12, 13, 14});
  expect_defined_values(wp::model_shuffle(fan_spec(wp::ShuffleOp::down, 1)),
                        {1, 2, 3, 4, 5, 6, 7, 7, 9, 10, 11, 12, 13, 14, 15, 15});
  expect_defined_values(wp::model_shuffle(fan_spec(wp::ShuffleOp::bfly, 1)),
                        {1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14});
  EXPECT_EQ(lanes_with(wp::model_shuffle(fan_spec(wp::ShuffleOp::up, 1)), LaneOutcome::kept_own),
            (std::vector<int>{0, 8}));
  EXPECT_EQ(lanes_with(wp::model_shuffle(fan_spec(wp::ShuffleOp::down, 1)), LaneOutcome::kept_own),
            (std::vector<int>{7, 15}));
}

TEST(WarpModelFanTable, LanesBeyondTheBlockAreInactive) {
  // [Fan]: a block of 16 with FULL_MASK: lanes 16-31 do not exist, so they have no value.
  for (auto op : {wp::ShuffleOp::idx, wp::ShuffleOp::up, wp::ShuffleOp::down, wp::ShuffleOp::bfly}) {
    const auto got = wp::model_shuffle(fan_spec(op, 2));
    std::vector<int> want;
    for (int l = 16; l < 32; ++l) want.push_back(l);
    EXPECT_EQ(lanes_with(got, LaneOutcome::inactive), want) << "op " << static_cast<int>(op);
    EXPECT_FALSE(got[20].defined());
  }
}

// ---------------------------------------------------------------- shuffles, guide rules

TEST(WarpModelGuideRules, XorLaneMaskAtLeastWidthReadsEarlierSegmentOnly) {
  // [guide]/PTX: width 8, laneMask 8: lane t's partner is t^8. Lanes 0-7 (partner in the LATER
  // segment 8-15) keep their own value; lanes 8-15 (partner in the EARLIER segment) read it.
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::bfly;
  s.param = 8;
  s.width = 8;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  for (int l = 0; l < 8; ++l) {
    const auto& r = got[static_cast<std::size_t>(l)];
    EXPECT_EQ(r.outcome, LaneOutcome::kept_own) << "lane " << l;
    EXPECT_EQ(r.value, l) << "lane " << l;
  }
  for (int l = 8; l < 16; ++l) {
    const auto& r = got[static_cast<std::size_t>(l)];
    EXPECT_EQ(r.outcome, LaneOutcome::received) << "lane " << l;
    EXPECT_EQ(r.source, l - 8) << "lane " << l;
    EXPECT_EQ(r.value, l - 8) << "lane " << l;
  }
  // Lanes 16-23 again have their partner in the later segment 24-31; lanes 24-31 read 16-23.
  EXPECT_EQ(got[16].outcome, LaneOutcome::kept_own);
  EXPECT_EQ(got[16].value, 16);
  EXPECT_EQ(got[31].outcome, LaneOutcome::received);
  EXPECT_EQ(got[31].value, 23);
}

TEST(WarpModelGuideRules, XorLaneMask16Width4) {
  // Width 4, laneMask 16: partner t^16 is 4 segments away. Lanes 0-15 keep, 16-31 read t-16.
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::bfly;
  s.param = 16;
  s.width = 4;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(got[static_cast<std::size_t>(l)].outcome, LaneOutcome::kept_own) << l;
  for (int l = 16; l < 32; ++l) {
    EXPECT_EQ(got[static_cast<std::size_t>(l)].outcome, LaneOutcome::received) << l;
    EXPECT_EQ(got[static_cast<std::size_t>(l)].value, l - 16) << l;
  }
}

TEST(WarpModelGuideRules, XorMixesInSegmentAndOutOfSegmentBits) {
  // Width 8, laneMask 9 (= 8 | 1): lane 0 -> 9 (later segment: keeps 0); lane 9 -> 0 (earlier:
  // reads 0); lane 10 -> 3 (earlier: reads 3); lane 5 -> 12 (later: keeps 5).
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::bfly;
  s.param = 9;
  s.width = 8;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  EXPECT_EQ(got[0].outcome, LaneOutcome::kept_own);
  EXPECT_EQ(got[0].value, 0);
  EXPECT_EQ(got[9].value, 0);
  EXPECT_EQ(got[10].value, 3);
  EXPECT_EQ(got[5].outcome, LaneOutcome::kept_own);
  EXPECT_EQ(got[5].value, 5);
}

TEST(WarpModelGuideRules, ShflSrcLaneIsTakenModuloWidth) {
  // [guide]: "If srcLane is outside the range [0:width-1], the value returned corresponds to the
  // value of var held by the srcLane modulo width (i.e. within the same subsection)".
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::idx;
  s.param = 13;  // 13 mod 8 = 5
  s.width = 8;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  for (int l = 0; l < 32; ++l) {
    const int want = (l / 8) * 8 + 5;
    EXPECT_EQ(got[static_cast<std::size_t>(l)].outcome, LaneOutcome::received) << l;
    EXPECT_EQ(got[static_cast<std::size_t>(l)].value, want) << l;
  }
  s.param = 31;
  s.width = 32;
  EXPECT_EQ(wp::model_shuffle(s)[0].value, 31);
  s.width = 2;  // 31 mod 2 = 1: lane 1 of each pair
  const auto pairs = wp::model_shuffle(s);
  EXPECT_EQ(pairs[0].value, 1);
  EXPECT_EQ(pairs[30].value, 31);
}

TEST(WarpModelGuideRules, SourceOutsideTheMaskIsUndefined) {
  // [guide]: the lanes named by a mask call; reading from a lane that did not take part gives an
  // undefined value. Mask 0x0000ffff, width 32, srcLane 20: lanes 0-15 read lane 20 -> undefined;
  // lanes 16-31 are not in the mask -> inactive.
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::idx;
  s.param = 20;
  s.warp.mask = 0x0000ffffu;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(got[static_cast<std::size_t>(l)].outcome, LaneOutcome::undefined_source) << l;
    EXPECT_EQ(got[static_cast<std::size_t>(l)].source, 20) << l;
    EXPECT_FALSE(got[static_cast<std::size_t>(l)].defined()) << l;
  }
  for (int l = 16; l < 32; ++l) EXPECT_EQ(got[static_cast<std::size_t>(l)].outcome, LaneOutcome::inactive) << l;
}

TEST(WarpModelGuideRules, ShflDownAcrossTheEndOfAShortBlockIsUndefined) {
  // 16 threads, width 32 (one segment), delta 2: lanes 14 and 15 would read 16 and 17, which do
  // not exist (like exited threads): undefined, not kept_own (14+2 < 32 is inside the segment).
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::down;
  s.param = 2;
  s.warp.threads = 16;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  for (int l = 0; l < 14; ++l) EXPECT_EQ(got[static_cast<std::size_t>(l)].value, l + 2) << l;
  EXPECT_EQ(lanes_with(got, LaneOutcome::undefined_source), (std::vector<int>{14, 15}));
  EXPECT_TRUE(lanes_with(got, LaneOutcome::kept_own).empty());
}

TEST(WarpModelGuideRules, PartialMaskShflUpMixesKeptUndefinedAndInactive) {
  // Mask 0xf0 (lanes 4-7), width 8, shfl_up delta 2:
  //   lanes 4,5 read 2,3 (not in the mask) -> undefined; lanes 6,7 read 4,5 -> 4,5;
  //   segment 1 has no calling lanes; all other lanes inactive.
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::up;
  s.param = 2;
  s.width = 8;
  s.warp.mask = 0xf0u;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  EXPECT_EQ(lanes_with(got, LaneOutcome::undefined_source), (std::vector<int>{4, 5}));
  EXPECT_EQ(lanes_with(got, LaneOutcome::received), (std::vector<int>{6, 7}));
  EXPECT_EQ(got[6].value, 4);
  EXPECT_EQ(got[7].value, 5);
  EXPECT_EQ(lanes_with(got, LaneOutcome::inactive).size(), 28u);
  // Mask 0x3 (lanes 0,1), same call: both keep their own (t-2 < 0 comes first).
  s.warp.mask = 0x3u;
  const auto kept = wp::model_shuffle(s);
  EXPECT_EQ(lanes_with(kept, LaneOutcome::kept_own), (std::vector<int>{0, 1}));
}

TEST(WarpModelGuideRules, DeltaZeroReturnsOwnValue) {
  wp::ShuffleSpec s;
  s.op = wp::ShuffleOp::down;
  s.param = 0;
  s.values = tid_values();
  const auto got = wp::model_shuffle(s);
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(got[static_cast<std::size_t>(l)].outcome, LaneOutcome::received) << l;
    EXPECT_EQ(got[static_cast<std::size_t>(l)].value, l) << l;
  }
}
