// The reference model of warp-primitives against tables computed by hand.
//
// Sources of the expectations:
//   [seed]  /work/shared/seeds/002_5a149af8e10bcbb3.txt, section 10.3.1 (block of 16 threads,
//           width 8, every thread passes tid) and section 10.2 (the last-warp reduction).
//   [guide] CUDA C++ Programming Guide, "Warp Shuffle Functions" (srcLane outside 0..width-1 is
//           taken modulo width; shfl_up/down do not wrap; shfl_xor: "if the target lane is
//           outside the range the lane keeps its own var" only for a LATER segment, since
//           the PTX rule is j = lane ^ b, kept when j > maxLane), "Warp Vote Functions",
//           "Warp Match Functions", "Warp Reduce Functions" (unsigned arithmetic).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "techniques/warp_primitives/warp_primitives_model.hpp"

namespace wp = cudasync::warp_primitives;
using wp::LaneOutcome;

namespace {

wp::Lanes tid_values() {
  wp::Lanes v{};
  for (int i = 0; i < wp::kWarpSize; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

// The seed's setup: one block of 16 threads, FULL_MASK, width 8, var = tid.
wp::ShuffleSpec seed_spec(wp::ShuffleOp op, int param) {
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

// ---------------------------------------------------------------- shuffles, the seed's table

TEST(WarpModelSeedTable, SegmentLaneIsTidModWidth) {
  // [seed] 10.3.1: "线程指标 0..15 / 束内指标 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7".
  const auto got = wp::model_shuffle(seed_spec(wp::ShuffleOp::idx, 2));
  const int expected[16] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  for (int l = 0; l < 16; ++l) EXPECT_EQ(got[static_cast<std::size_t>(l)].segment_lane, expected[l]) << "lane " << l;
}

TEST(WarpModelSeedTable, ShflSrcLane2BroadcastsPerSegment) {
  // [seed] 10.3.1 item (11): lane 2's value to lanes 0-7, lane 10's value to lanes 8-15.
  const auto got = wp::model_shuffle(seed_spec(wp::ShuffleOp::idx, 2));
  expect_defined_values(got, {2, 2, 2, 2, 2, 2, 2, 2, 10, 10, 10, 10, 10, 10, 10, 10});
  EXPECT_EQ(got[0].source, 2);
  EXPECT_EQ(got[9].source, 10);
  EXPECT_EQ(lanes_with(got, LaneOutcome::received).size(), 16u);
}

TEST(WarpModelSeedTable, ShflUpDelta2FirstTwoLanesOfEachSegmentKeepTheirOwn) {
  // [seed] 10.3.1 item 5: w=8, d=2: lanes 0-5 go to 2-7, lanes 0-1 return their own v.
  const auto got = wp::model_shuffle(seed_spec(wp::ShuffleOp::up, 2));
  expect_defined_values(got, {0, 1, 0, 1, 2, 3, 4, 5, 8, 9, 8, 9, 10, 11, 12, 13});
  EXPECT_EQ(lanes_with(got, LaneOutcome::kept_own), (std::vector<int>{0, 1, 8, 9}));
  EXPECT_EQ(got[8].source, 8);   // kept_own: the lane itself
  EXPECT_EQ(got[10].source, 8);  // lane 10 = segment lane 2 reads lane 10-2 = 8 of its own segment
}

TEST(WarpModelSeedTable, ShflDownDelta2LastTwoLanesOfEachSegmentKeepTheirOwn) {
  // [seed] 10.3.1 item 6: w=8, d=2: lanes 2-7 go to 0-5, lanes 6-7 return their own v.
  const auto got = wp::model_shuffle(seed_spec(wp::ShuffleOp::down, 2));
  expect_defined_values(got, {2, 3, 4, 5, 6, 7, 6, 7, 10, 11, 12, 13, 14, 15, 14, 15});
  EXPECT_EQ(lanes_with(got, LaneOutcome::kept_own), (std::vector<int>{6, 7, 14, 15}));
  // Lane 6 of segment 0 must not read lane 8 of segment 1 (no crossing).
  EXPECT_EQ(got[6].source, 6);
}

TEST(WarpModelSeedTable, ShflXorLaneMask2SwapsPairsOfPairs) {
  // [seed] 10.3.1 item 7, the table 0^2=2, 1^2=3, 2^2=0, ... 7^2=5, applied to both segments.
  const auto got = wp::model_shuffle(seed_spec(wp::ShuffleOp::bfly, 2));
  expect_defined_values(got, {2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13});
  EXPECT_TRUE(lanes_with(got, LaneOutcome::kept_own).empty());
}

TEST(WarpModelSeedTable, LanesBeyondTheBlockAreInactive) {
  // [seed]: a block of 16 with FULL_MASK: lanes 16-31 do not exist, so they have no value.
  for (auto op : {wp::ShuffleOp::idx, wp::ShuffleOp::up, wp::ShuffleOp::down, wp::ShuffleOp::bfly}) {
    const auto got = wp::model_shuffle(seed_spec(op, 2));
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

// ---------------------------------------------------------------- votes

namespace {
wp::VoteSpec seed_votes() {
  wp::VoteSpec v;
  v.warp.threads = 16;
  v.warp.mask = 0xffffffffu;
  for (int l = 0; l < 32; ++l) v.values[static_cast<std::size_t>(l)] = l;
  return v;
}
}  // namespace

TEST(WarpModelVotes, SeedBallots) {
  // [seed] 10.3.1 item (5): mask1 = __ballot_sync(FULL_MASK, tid > 0) excludes thread 0:
  // 0xfffe for a block of 16; mask2 = __ballot_sync(FULL_MASK, tid == 0) = 0x1.
  wp::VoteSpec v = seed_votes();
  for (int l = 0; l < 32; ++l) v.predicate[static_cast<std::size_t>(l)] = l > 0 ? 1 : 0;
  const auto gt0 = wp::model_votes(v);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(gt0.ballot[static_cast<std::size_t>(l)], 0xfffeu) << l;
  // [seed] item (7): __all_sync(FULL_MASK, tid) is 0 (thread 0's predicate is zero).
  EXPECT_EQ(gt0.all[0], 0);
  // [seed] item (9): __any_sync(FULL_MASK, tid) is 1.
  EXPECT_EQ(gt0.any[0], 1);
  EXPECT_EQ(gt0.activemask[3], 0xffffu);

  for (int l = 0; l < 32; ++l) v.predicate[static_cast<std::size_t>(l)] = l == 0 ? 1 : 0;
  const auto eq0 = wp::model_votes(v);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(eq0.ballot[static_cast<std::size_t>(l)], 0x1u) << l;
}

TEST(WarpModelVotes, SeedAllWithMask1AndAnyWithMask2) {
  // [seed] item (8): __all_sync(mask1 = 0xfffe, tid) = 1, every calling thread has tid != 0.
  wp::VoteSpec v = seed_votes();
  for (int l = 0; l < 32; ++l) v.predicate[static_cast<std::size_t>(l)] = l != 0 ? 1 : 0;  // predicate = tid
  v.warp.mask = 0xfffeu;
  const auto m1 = wp::model_votes(v);
  EXPECT_EQ(m1.all[1], 1);
  EXPECT_EQ(m1.any[1], 1);
  // [seed] item (10): __any_sync(mask2 = 0x1, tid) = 0: only thread 0 calls, and tid is 0.
  v.warp.mask = 0x1u;
  const auto m2 = wp::model_votes(v);
  EXPECT_EQ(m2.any[0], 0);
  EXPECT_EQ(m2.all[0], 0);
  EXPECT_EQ(m2.ballot[0], 0u);
}

TEST(WarpModelVotes, PartialMaskEvenPredicate) {
  // 32 threads, mask 0x0000ff00 (lanes 8-15), predicate lane % 2 == 0:
  // ballot = bits 8, 10, 12, 14 = 0x5500; all = 0; any = 1; activemask = 0xff00.
  wp::VoteSpec v;
  v.warp.mask = 0x0000ff00u;
  for (int l = 0; l < 32; ++l) {
    v.predicate[static_cast<std::size_t>(l)] = l % 2 == 0 ? 1 : 0;
    v.key[static_cast<std::size_t>(l)] = l % 4;
  }
  const auto r = wp::model_votes(v);
  for (int l = 8; l < 16; ++l) {
    const auto i = static_cast<std::size_t>(l);
    EXPECT_EQ(r.ballot[i], 0x5500u) << l;
    EXPECT_EQ(r.all[i], 0) << l;
    EXPECT_EQ(r.any[i], 1) << l;
    EXPECT_EQ(r.activemask[i], 0xff00u) << l;
  }
  // [guide] match_any: the calling lanes with an equal key. lane%4 over lanes 8-15:
  // lanes 8,12 -> 0x1100; 9,13 -> 0x2200; 10,14 -> 0x4400; 11,15 -> 0x8800.
  EXPECT_EQ(r.match_any[8], 0x1100u);
  EXPECT_EQ(r.match_any[13], 0x2200u);
  EXPECT_EQ(r.match_any[10], 0x4400u);
  EXPECT_EQ(r.match_any[15], 0x8800u);
  // Lanes 0 and 4 share key 0 with lane 8 but are not in the mask: not included (checked above).
  // match_all: keys differ -> 0 and pred 0.
  EXPECT_EQ(r.match_all[8], 0u);
  EXPECT_EQ(r.match_all_pred[8], 0);
  // Lanes outside the mask get nothing.
  EXPECT_EQ(r.ballot[0], 0u);
  EXPECT_EQ(r.match_any[4], 0u);
}

TEST(WarpModelVotes, MatchAllWithTheSameKeyInEveryCallingLane) {
  // [guide] __match_all_sync: the mask of calling lanes if all values are equal, pred = 1.
  // Mask 0xff00, key lane/8: lanes 8-15 all hold 1 -> 0xff00, pred 1 (lanes 0-7 hold 0, but do
  // not call).
  wp::VoteSpec v;
  v.warp.mask = 0x0000ff00u;
  for (int l = 0; l < 32; ++l) v.key[static_cast<std::size_t>(l)] = l / 8;
  const auto r = wp::model_votes(v);
  EXPECT_EQ(r.match_all[9], 0xff00u);
  EXPECT_EQ(r.match_all_pred[9], 1);
  EXPECT_EQ(r.match_any[9], 0xff00u);
}

TEST(WarpModelVotes, ThreadsBelow32LanesBeyondTheBlockDoNotExist) {
  // 5 threads, FULL_MASK: the calling lanes are 0-4 (0x1f). Predicate "lane < 20" is true in all
  // of them, so all = 1 although the mask names lanes 5-31 whose predicate would be 0/1.
  wp::VoteSpec v;
  v.warp.threads = 5;
  for (int l = 0; l < 32; ++l) {
    v.predicate[static_cast<std::size_t>(l)] = l < 20 ? 1 : 0;
    v.key[static_cast<std::size_t>(l)] = 7;
  }
  const auto r = wp::model_votes(v);
  EXPECT_EQ(r.ballot[0], 0x1fu);
  EXPECT_EQ(r.all[4], 1);
  EXPECT_EQ(r.any[4], 1);
  EXPECT_EQ(r.activemask[2], 0x1fu);
  EXPECT_EQ(r.match_any[0], 0x1fu);
  EXPECT_EQ(r.match_all[0], 0x1fu);
  EXPECT_EQ(r.match_all_pred[0], 1);
  EXPECT_EQ(r.ballot[5], 0u);  // lane 5 does not exist: nothing written
  // Predicate "lane >= 16" in a block of 16: no calling lane has it.
  for (int l = 0; l < 32; ++l) v.predicate[static_cast<std::size_t>(l)] = l >= 16 ? 1 : 0;
  v.warp.threads = 16;
  const auto none = wp::model_votes(v);
  EXPECT_EQ(none.ballot[0], 0u);
  EXPECT_EQ(none.any[0], 0);
  EXPECT_EQ(none.all[0], 0);
}

TEST(WarpModelVotes, WarpSetupExistingAndCalling) {
  wp::WarpSetup w;
  EXPECT_EQ(w.existing(), 0xffffffffu);
  w.threads = 1;
  EXPECT_EQ(w.existing(), 0x1u);
  w.threads = 16;
  w.mask = 0x00ff00ffu;
  EXPECT_EQ(w.calling(), 0x000000ffu);
  EXPECT_TRUE(w.calls(7));
  EXPECT_FALSE(w.calls(8));
  EXPECT_FALSE(w.calls(16));
  w.threads = 31;
  w.mask = 0xffffffffu;
  EXPECT_EQ(w.calling(), 0x7fffffffu);
}

// ---------------------------------------------------------------- reduce

TEST(WarpModelReduce, PartialMaskAndShortBlock) {
  // [guide] __reduce_{add,min,max}_sync over the calling lanes' unsigned values.
  wp::VoteSpec v;
  for (int l = 0; l < 32; ++l) v.values[static_cast<std::size_t>(l)] = l;
  v.warp.mask = 0x0000ff00u;  // lanes 8..15: 8+9+...+15 = 92, min 8, max 15
  const auto a = wp::model_reduce(v);
  EXPECT_EQ(a.add[8], 92u);
  EXPECT_EQ(a.min[15], 8u);
  EXPECT_EQ(a.max[12], 15u);
  EXPECT_EQ(a.add[0], 0u);  // not calling: nothing written
  v.warp.mask = 0xffffffffu;
  v.warp.threads = 5;  // lanes 0..4: 10, 0, 4
  const auto b = wp::model_reduce(v);
  EXPECT_EQ(b.add[0], 10u);
  EXPECT_EQ(b.min[4], 0u);
  EXPECT_EQ(b.max[1], 4u);
  v.warp.threads = 32;
  const auto c = wp::model_reduce(v);
  EXPECT_EQ(c.add[31], 496u);  // 0+1+...+31
}

TEST(WarpModelReduce, ValuesAreUnsigned) {
  // -1 is 0xffffffff as unsigned: the largest value; two of them wrap to 0xfffffffe.
  wp::VoteSpec v;
  v.warp.mask = 0x7u;  // lanes 0,1,2
  v.values[0] = -1;
  v.values[1] = -1;
  v.values[2] = 0;
  const auto r = wp::model_reduce(v);
  EXPECT_EQ(r.add[0], 0xfffffffeu);
  EXPECT_EQ(r.max[0], 0xffffffffu);
  EXPECT_EQ(r.min[0], 0u);
}

// ---------------------------------------------------------------- syncwarp (seed 10.2)

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
  // [seed] 10.2: the guarded loop and the register loop both leave the sum in s[0]:
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
