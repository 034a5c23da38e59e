// The reference model of threadfence: the outcomes the PTX memory model allows for each litmus test
// and fencing, hand-checked against the literature (the classic results for MP, SB, LB and CoRR:
// Alglave et al., ASPLOS 2015; Lustig et al., ASPLOS 2019; the C++ results release/acquire gives),
// the PTX each test executes, and the lastBlock and WorkQueue models.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/report/report.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {
namespace {

LitmusSpec spec(threadfence::Test t, Fence f0, Fence f1, Access a = Access::plain, Placement p = Placement::different_blocks) {
  LitmusSpec s;
  s.test = t;
  s.fence[0] = f0;
  s.fence[1] = f1;
  s.access = a;
  s.placement = p;
  return s;
}
LitmusSpec both(threadfence::Test t, Fence f, Access a = Access::plain, Placement p = Placement::different_blocks) {
  return spec(t, f, f, a, p);
}

std::string allowed(const LitmusSpec& s) { return allowed_text(ptx_model(s)); }

TEST(ThreadfenceModel, MessagePassingNeedsAFenceOnBothSides) {
  // The consumer waits for the flag, so r0 is always 1: the outcomes are 10 (stale) and 11.
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::none)), "10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::device)), "11");
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::system)), "11");
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::rel_acq)), "11");
  // One side alone orders nothing the other side observes.
  EXPECT_EQ(allowed(spec(threadfence::Test::mp, Fence::device, Fence::none)), "10 11");
  EXPECT_EQ(allowed(spec(threadfence::Test::mp, Fence::none, Fence::device)), "10 11");
  EXPECT_EQ(allowed(spec(threadfence::Test::mp, Fence::rel_acq, Fence::none)), "10 11");
  // A release store pairs with a consumer-side fence (release pattern + acquire pattern), and a
  // fence with an acquire load.
  EXPECT_EQ(allowed(spec(threadfence::Test::mp, Fence::rel_acq, Fence::device)), "11");
  EXPECT_EQ(allowed(spec(threadfence::Test::mp, Fence::device, Fence::rel_acq)), "11");
  // The same with volatile data.
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::none, Access::vol)), "10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::device, Access::vol)), "11");
}

TEST(ThreadfenceModel, BlockScopedFencesWorkOnlyInsideTheBlock) {
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::block, Access::plain, Placement::same_block)), "11");
  EXPECT_EQ(allowed(both(threadfence::Test::mp, Fence::block, Access::plain, Placement::different_blocks)), "10 11");
  // Both fences must contain the other thread: a gpu fence against a block fence across blocks is
  // not enough, in one block it is.
  EXPECT_EQ(allowed(spec(threadfence::Test::mp, Fence::device, Fence::block)), "10 11");
  EXPECT_EQ(allowed(spec(threadfence::Test::mp, Fence::device, Fence::block, Access::plain, Placement::same_block)), "11");
  EXPECT_EQ(allowed(both(threadfence::Test::sb, Fence::block, Access::plain, Placement::same_block)), "01 10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::sb, Fence::block)), "00 01 10 11");
}

TEST(ThreadfenceModel, StoreBufferingNeedsScFencesAndReleaseAcquireIsNotEnough) {
  EXPECT_EQ(allowed(both(threadfence::Test::sb, Fence::none)), "00 01 10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::sb, Fence::none, Access::vol)), "00 01 10 11");  // volatile orders nothing
  EXPECT_EQ(allowed(both(threadfence::Test::sb, Fence::device)), "01 10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::sb, Fence::system, Access::vol)), "01 10 11");
  // As in C++: release/acquire does not order a store before a later load.
  EXPECT_EQ(allowed(both(threadfence::Test::sb, Fence::rel_acq)), "00 01 10 11");
  EXPECT_EQ(allowed(spec(threadfence::Test::sb, Fence::device, Fence::none)), "00 01 10 11");
}

TEST(ThreadfenceModel, LoadBufferingIsAllowedUnfencedAndForbiddenByFencesOrAcquire) {
  // No dependencies: the no-thin-air axiom does not apply, and PTX (like C++ relaxed) allows 11.
  EXPECT_EQ(allowed(both(threadfence::Test::lb, Fence::none)), "00 01 10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::lb, Fence::none, Access::vol)), "00 01 10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::lb, Fence::device)), "00 01 10");
  EXPECT_EQ(allowed(both(threadfence::Test::lb, Fence::rel_acq)), "00 01 10");
  EXPECT_EQ(allowed(both(threadfence::Test::lb, Fence::block)), "00 01 10 11");
  EXPECT_EQ(allowed(both(threadfence::Test::lb, Fence::block, Access::vol, Placement::same_block)), "00 01 10");
}

TEST(ThreadfenceModel, ReadReadCoherenceHoldsForStrongAccessesOnly) {
  // Volatile (relaxed, .sys) reads of one location never go back in time, with or without a fence.
  EXPECT_EQ(allowed(spec(threadfence::Test::corr, Fence::none, Fence::none, Access::vol)), "00 01 11");
  EXPECT_EQ(allowed(spec(threadfence::Test::corr, Fence::none, Fence::device, Access::vol)), "00 01 11");
  EXPECT_EQ(allowed(both(threadfence::Test::corr, Fence::rel_acq)), "00 01 11");
  // Weak reads are not promised coherence ("SC per location" is for morally strong accesses), and
  // a fence between them does not change that: nothing on the writer's side pairs with it.
  EXPECT_EQ(allowed(spec(threadfence::Test::corr, Fence::none, Fence::none)), "00 01 10 11");
  EXPECT_EQ(allowed(spec(threadfence::Test::corr, Fence::none, Fence::device)), "00 01 10 11");
  // A weak writer with acquire reads: the pair is not morally strong, so still allowed.
  EXPECT_EQ(allowed(spec(threadfence::Test::corr, Fence::none, Fence::rel_acq)), "00 01 10 11");
}

TEST(ThreadfenceModel, SaysWhichAxiomForbids) {
  EXPECT_EQ(ptx_model(both(threadfence::Test::mp, Fence::device)).forbidden_by, "causality");
  EXPECT_EQ(ptx_model(both(threadfence::Test::sb, Fence::device)).forbidden_by, "causality");
  EXPECT_NE(ptx_model(spec(threadfence::Test::corr, Fence::none, Fence::none, Access::vol)).forbidden_by.find("SC per location"),
            std::string::npos);
  EXPECT_EQ(ptx_model(both(threadfence::Test::mp, Fence::none)).forbidden_by, "");
  EXPECT_TRUE(ptx_model(both(threadfence::Test::mp, Fence::none)).weak_allowed(threadfence::Test::mp));
  EXPECT_FALSE(ptx_model(both(threadfence::Test::mp, Fence::device)).weak_allowed(threadfence::Test::mp));
}

TEST(ThreadfenceModel, EnumeratesEveryCandidateExecution) {
  // mp: the earlier look at x (2 sources) x the data read (2 sources); the flag read must see 1.
  const ModelVerdict none = ptx_model(both(threadfence::Test::mp, Fence::none));
  EXPECT_EQ(none.executions, 4);
  // Two morally strong fence.sc: both orders of the fences.
  const ModelVerdict dev = ptx_model(both(threadfence::Test::mp, Fence::device));
  EXPECT_EQ(dev.executions, 8);
  EXPECT_GT(dev.consistent, 0);
  // Block fences in different blocks are not morally strong: no order between them to choose.
  EXPECT_EQ(ptx_model(both(threadfence::Test::sb, Fence::block)).executions, 4);
  EXPECT_EQ(ptx_model(both(threadfence::Test::sb, Fence::block, Access::plain, Placement::same_block)).executions, 8);
}

TEST(ThreadfenceModel, ThePtxEachTestExecutes) {
  const MmProgram p = ptx_program(both(threadfence::Test::mp, Fence::device));
  std::vector<std::string> text;
  for (const auto& e : p.events) text.push_back(e.text);
  EXPECT_EQ(text, (std::vector<std::string>{"st.global [x], 1", "membar.gl", "st.volatile.global [y], 1",
                                            "ld.global _, [x]", "ld.volatile.global r0, [y]", "membar.gl",
                                            "ld.global r1, [x]"}));
  const MmProgram q = ptx_program(both(threadfence::Test::sb, Fence::rel_acq));
  EXPECT_EQ(q.events.front().text, "st.release.gpu [x], 1");
  EXPECT_TRUE(q.events.front().release);
  EXPECT_EQ(q.events[1].text, "ld.acquire.gpu r0, [y]");
  const MmProgram c = ptx_program(spec(threadfence::Test::corr, Fence::none, Fence::block, Access::vol, Placement::same_block));
  EXPECT_TRUE(c.same_cta);
  EXPECT_EQ(c.events.size(), 4u);
  EXPECT_EQ(c.events[2].text, "membar.cta");
  EXPECT_EQ(c.events[2].scope, Scope::cta);
}

TEST(ThreadfenceModel, CodeAndNames) {
  EXPECT_EQ(fences_text(spec(threadfence::Test::mp, Fence::device, Fence::none)), "device,none");
  EXPECT_EQ(fences_text(both(threadfence::Test::lb, Fence::rel_acq)), "rel-acq");
  for (int i = 0; i < kTests; ++i) EXPECT_EQ(parse_test(kTestNames[static_cast<std::size_t>(i)]), static_cast<threadfence::Test>(i));
  for (int i = 0; i < kFences; ++i) EXPECT_EQ(parse_fence(kFenceNames[static_cast<std::size_t>(i)]), static_cast<Fence>(i));
  EXPECT_FALSE(parse_test("iriw").has_value());
  EXPECT_FALSE(parse_fence("membar").has_value());
  EXPECT_EQ(weak_outcome(threadfence::Test::mp), outcome_index(1, 0));
  EXPECT_EQ(weak_outcome(threadfence::Test::sb), outcome_index(0, 0));
  EXPECT_EQ(weak_outcome(threadfence::Test::lb), outcome_index(1, 1));
  EXPECT_EQ(outcome_text(outcome_index(1, 0)), "r0=1 r1=0");
}

TEST(ThreadfenceModel, AFenceBeforeCorrsOnlyStoreMakesNoSense) {
  EXPECT_FALSE(meaningful(spec(threadfence::Test::corr, Fence::device, Fence::none)));
  EXPECT_FALSE(meaningful(spec(threadfence::Test::corr, Fence::block, Fence::block)));
  EXPECT_TRUE(meaningful(spec(threadfence::Test::corr, Fence::rel_acq, Fence::rel_acq)));
  EXPECT_TRUE(meaningful(spec(threadfence::Test::corr, Fence::none, Fence::system)));
  LitmusSpec w = both(threadfence::Test::sb, Fence::none);
  w.weak_wait = true;
  EXPECT_FALSE(meaningful(w));
}

TEST(ThreadfenceModel, LastBlockSumIsExactAndSeeded) {
  const auto a = make_last_block_input(1000, 3), b = make_last_block_input(1000, 3), c = make_last_block_input(1000, 4);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](std::uint32_t v) { return v < 65536u; }));
  EXPECT_EQ(exact_sum({1, 2, 3, 0xFFFFFFFFu}), 6ull + 0xFFFFFFFFull);
  EXPECT_TRUE(guard_is_correct(LastBlockVariant::syncthreads_or));
  EXPECT_TRUE(guard_is_correct(LastBlockVariant::shared_flag));
  EXPECT_FALSE(guard_is_correct(LastBlockVariant::no_fence));
  EXPECT_FALSE(guard_is_correct(LastBlockVariant::other_writer));
  for (int v = 0; v < kLastBlockVariants; ++v)
    EXPECT_TRUE(report::is_id(guard_id(static_cast<LastBlockVariant>(v)))) << "check ids are built from it";
}

TEST(ThreadfenceModel, SchedulesOfAFixedAssignmentAndOfTheQueue) {
  // Costs 5, 1, 1, 1 on two blocks. A-priori: block 0 gets items 0 and 2 (6 units), block 1 items 1
  // and 3 (2). Queue: block 0 takes item 0 (busy until 5), block 1 the three others (until 3).
  const std::vector<std::uint32_t> costs = {5, 1, 1, 1};
  const Schedule st = static_schedule(costs, 2), qu = queue_schedule(costs, 2);
  EXPECT_EQ(st.block_units, (std::vector<std::uint64_t>{6, 2}));
  EXPECT_EQ(st.item_block, (std::vector<std::int32_t>{0, 1, 0, 1}));
  EXPECT_EQ(st.makespan(), 6u);
  EXPECT_EQ(qu.block_units, (std::vector<std::uint64_t>{5, 3}));
  EXPECT_EQ(qu.block_items, (std::vector<std::int32_t>{1, 3}));
  EXPECT_EQ(qu.makespan(), 5u);
}

TEST(ThreadfenceModel, QueueStaysWithinGrahamsBound) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto costs = make_costs(128, seed);
    for (auto c : costs) EXPECT_TRUE(c == 1 || c == 2 || c == 4 || c == 8 || c == 16 || c == 32) << c;
    std::uint64_t total = 0, biggest = 0;
    for (auto c : costs) {
      total += c;
      biggest = std::max<std::uint64_t>(biggest, c);
    }
    const Schedule qu = queue_schedule(costs, 16), st = static_schedule(costs, 16);
    EXPECT_LE(qu.makespan() * 16, total + 16 * biggest) << "greedy list scheduling: at most average + largest item";
    EXPECT_GE(qu.makespan() * 16, total);
    std::set<std::int32_t> blocks(qu.item_block.begin(), qu.item_block.end());
    EXPECT_FALSE(blocks.count(-1)) << "every item assigned";
    std::uint64_t sum = 0;
    for (auto u : qu.block_units) sum += u;
    EXPECT_EQ(sum, total);
    EXPECT_GE(st.makespan(), total / 16);
  }
  EXPECT_EQ(make_costs(10, 7), make_costs(10, 7));
  EXPECT_EQ(checksum_of_all(3), item_checksum(0) + item_checksum(1) + item_checksum(2));
}

}  // namespace
}  // namespace cudasync::threadfence
