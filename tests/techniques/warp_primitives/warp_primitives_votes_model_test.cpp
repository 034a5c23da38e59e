// The reference model of the votes, match and reduce functions against values computed by hand.
//
// Sources of the expectations:
//   [Fan]   Fan, ch. 10, section 10.3: warp.cu's ballots and votes in a block of 16 threads, and
//           the explanation items (5)-(10).
//   [guide] CUDA C++ Programming Guide, "Warp Vote Functions", "Warp Match Functions", "Warp
//           Reduce Functions" (unsigned arithmetic); PTX ISA, match.sync (.all: the mask of the
//           non-exited threads in membermask).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "techniques/warp_primitives/lesson.hpp"

namespace wp = cudasync::warp_primitives;

namespace {
wp::VoteSpec fan_votes() {
  wp::VoteSpec v;
  v.warp.threads = 16;
  v.warp.mask = 0xffffffffu;
  for (int l = 0; l < 32; ++l) v.values[static_cast<std::size_t>(l)] = l;
  return v;
}
}  // namespace

TEST(WarpModelVotes, FanBallots) {
  // [Fan] 10.3, warp.cu and item (5): mask1 = __ballot_sync(FULL_MASK, tid > 0) excludes thread 0:
  // 0xfffe for a block of 16; mask2 = __ballot_sync(FULL_MASK, tid == 0) = 0x1.
  wp::VoteSpec v = fan_votes();
  for (int l = 0; l < 32; ++l) v.predicate[static_cast<std::size_t>(l)] = l > 0 ? 1 : 0;
  const auto gt0 = wp::model_votes(v);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(gt0.ballot[static_cast<std::size_t>(l)], 0xfffeu) << l;
  // [Fan] item (7): __all_sync(FULL_MASK, tid) is 0 (thread 0's predicate is zero).
  EXPECT_EQ(gt0.all[0], 0);
  // [Fan] item (9): __any_sync(FULL_MASK, tid) is 1.
  EXPECT_EQ(gt0.any[0], 1);
  EXPECT_EQ(gt0.activemask[3], 0xffffu);

  for (int l = 0; l < 32; ++l) v.predicate[static_cast<std::size_t>(l)] = l == 0 ? 1 : 0;
  const auto eq0 = wp::model_votes(v);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(eq0.ballot[static_cast<std::size_t>(l)], 0x1u) << l;
}

TEST(WarpModelVotes, FanAllWithMask1AndAnyWithMask2) {
  // [Fan] item (8): __all_sync(mask1 = 0xfffe, tid) = 1, every calling thread has tid != 0.
  wp::VoteSpec v = fan_votes();
  for (int l = 0; l < 32; ++l) v.predicate[static_cast<std::size_t>(l)] = l != 0 ? 1 : 0;  // predicate = tid
  v.warp.mask = 0xfffeu;
  const auto m1 = wp::model_votes(v);
  EXPECT_EQ(m1.all[1], 1);
  EXPECT_EQ(m1.any[1], 1);
  // [Fan] item (10): __any_sync(mask2 = 0x1, tid) = 0: only thread 0 calls, and tid is 0.
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
