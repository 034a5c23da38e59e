// The lock lesson's reference model (its programs on core/simt): the blog's warp deadlock under
// lockstep scheduling and not under independent scheduling, an update lost exactly where a stale
// L1 line is read, an exact count for every correct protocol, and the trace in the lesson's words;
// the blog's delay leaving both problems in place; and the ownership model of parts 5 and 6.
#include <gtest/gtest.h>

#include <tuple>

#include "techniques/lock/model.hpp"
#include "techniques/lock/ownership.hpp"

namespace cudasync::lock {
namespace {

SimResult run(Protocol p, Regime r, int blocks, int threads, int iters, int trace_rows = 0) {
  SimConfig c;
  c.protocol = p;
  c.regime = r;
  c.blocks = blocks;
  c.threads = threads;
  c.iters = iters;
  c.trace_rows = trace_rows;
  return simulate(c);
}

TEST(LockModel, OutcomesHaveTheLessonsWords) {
  EXPECT_STREQ(to_string(Outcome::completed), "completes");
  EXPECT_STREQ(to_string(Outcome::step_limit), "round limit");
  EXPECT_EQ(protocol_of(Variant::ttas_same_line), Protocol::ttas);
}

TEST(LockModel, LockstepWarpDeadlocksInTheBlogsLockFunction) {
  const SimResult r = run(Protocol::lock_functions, Regime::lockstep, 1, 4, 1, 40);
  ASSERT_EQ(r.outcome, Outcome::deadlock);
  // Lane 0 wins the CAS in step 1; in step 2 the warp diverges (lane 0 is parked at the loop's
  // exit); from step 3 on lanes 1-3 spin and the state after step 4 equals the state after step 2.
  EXPECT_EQ(r.repeat_from, 2);
  EXPECT_EQ(r.cycle_rounds, 2);
  EXPECT_EQ(r.count, 0);
  ASSERT_EQ(r.trace.size(), 4u);
  EXPECT_EQ(r.trace[0].cells[0], "CAS: 0, takes the lock");
  EXPECT_EQ(r.trace[0].cells[1], "CAS: 1 (taken)");
  EXPECT_EQ(r.trace[1].cells[0], "leaves the loop");
  EXPECT_EQ(r.trace[1].cells[3], "spins");
  EXPECT_EQ(r.trace[1].note, "lane 0 goes to 2, lanes 1-3 go to 0; they meet again at 2");
  EXPECT_EQ(r.trace[2].cells[0], "holds the lock, waits at 2");
  EXPECT_EQ(r.trace[3].mutex, 1);
  EXPECT_NE(r.trace[3].note.find("the same state as after step 2"), std::string::npos) << r.trace[3].note;
  EXPECT_NE(r.holder.find("lane 0 holds the lock and waits at pc 2"), std::string::npos) << r.holder;
  EXPECT_NE(r.spinners.find("lanes 1-3 of warp 0 spin at pc"), std::string::npos) << r.spinners;
}

TEST(LockModel, IndependentSchedulingCompletesTheSameProgram) {
  const SimResult r = run(Protocol::lock_functions, Regime::independent, 1, 4, 2, 100);
  ASSERT_EQ(r.outcome, Outcome::completed);
  EXPECT_EQ(r.count, 8);
  EXPECT_EQ(r.expected, 8);
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.stale_reads, 0);  // one block, one L1: nothing to be stale against
  EXPECT_EQ(r.trace.front().cells[0], "CAS: 0, takes the lock");
  EXPECT_EQ(r.trace.back().cells.back(), "exits");
}

TEST(LockModel, TheIssuesShapesDeadlockInLockstepAndCompleteIndependently) {
  for (int threads : {32, 128, 100}) {
    SCOPED_TRACE(threads);
    const SimResult lock = run(Protocol::lock_functions, Regime::lockstep, 1, threads, 1);
    EXPECT_EQ(lock.outcome, Outcome::deadlock);
    const SimResult ind = run(Protocol::lock_functions, Regime::independent, 1, threads, 1);
    EXPECT_TRUE(ind.exact()) << to_string(ind.outcome) << " " << ind.count;
  }
  // Several warps in lockstep: warp 0's lane 0 holds the lock, every other warp spins for it.
  const SimResult r = run(Protocol::lock_functions, Regime::lockstep, 1, 128, 1);
  EXPECT_NE(r.spinners.find("3 more warps"), std::string::npos) << r.spinners;
}

TEST(LockModel, OneThreadPerBlockNeverDeadlocksEvenInLockstep) {
  for (Regime g : {Regime::lockstep, Regime::independent}) {
    const SimResult r = run(Protocol::book_atomic_add, g, 4, 1, 3);
    EXPECT_TRUE(r.exact()) << to_string(g) << ": " << to_string(r.outcome) << " " << r.count;
    // The blog's plain critical section completes too, but each block reads its own L1 copy.
    const SimResult plain = run(Protocol::book, g, 4, 1, 3);
    EXPECT_EQ(plain.outcome, Outcome::completed) << to_string(g);
    EXPECT_LT(plain.count, plain.expected) << to_string(g);
    EXPECT_GT(plain.stale_reads, 0) << to_string(g);
  }
}

TEST(LockModel, TheBlogsInlineThreadLockSurvivesLockstep) {
  for (Regime g : {Regime::lockstep, Regime::independent})
    for (int threads : {4, 32, 64}) {
      const SimResult r = run(Protocol::thread_lock, g, 1, threads, 2);
      EXPECT_TRUE(r.exact()) << to_string(g) << " " << threads << ": " << to_string(r.outcome) << " " << r.count;
    }
  const SimResult t = run(Protocol::thread_lock, Regime::lockstep, 1, 4, 1, 60);
  // The lane that got the lock works and releases while the others wait at the end of the body.
  ASSERT_GE(t.trace.size(), 8u);
  EXPECT_EQ(t.trace[2].cells[0], "CAS: 0, takes the lock");
  EXPECT_EQ(t.trace[4].cells[0], "atomicAdd: cnt = 1");
  EXPECT_EQ(t.trace[4].cells[1], "waits at 8");
  EXPECT_EQ(t.trace[6].cells[0], "releases");
}

TEST(LockModel, TheBlogsCodeReadsTheLineItsL1KeptAndLosesAnUpdate) {
  const SimResult r = run(Protocol::book, Regime::independent, 2, 1, 2, 40);
  ASSERT_EQ(r.outcome, Outcome::completed);
  EXPECT_EQ(r.expected, 4);
  EXPECT_EQ(r.count, 3);
  EXPECT_EQ(r.stale_reads, 1);
  // Block 0 stored 1 in step 4 and kept the line; block 1 stored 2 in step 8; block 0 takes the lock
  // again and reads its own 1.
  EXPECT_EQ(r.first_stale, "step 13: block 0 read cnt = 1 from its SM's L1 while L2 held 2");
  EXPECT_EQ(r.trace[3].l1, "SM0 1, SM1 -");
  EXPECT_EQ(r.trace[12].cells[0], "v = 1 from L1, L2 has 2: stale");
  EXPECT_EQ(r.columns, (std::vector<std::string>{"block 0", "block 1"}));
}

TEST(LockModel, EachFixLosesNothing) {
  for (Protocol p : {Protocol::book_atomic_add, Protocol::fenced, Protocol::acq_rel})
    for (int blocks : {2, 3, 5}) {
      const SimResult r = run(p, Regime::independent, blocks, 1, 3);
      EXPECT_TRUE(r.exact()) << program_of(p).name << " x" << blocks << ": " << r.count << " of " << r.expected;
      EXPECT_EQ(r.stale_reads, 0) << program_of(p).name;
    }
}

TEST(LockModel, AWarpOfOneLaneCannotDeadlockInLockstep) {
  // --part warp-deadlock --threads 1: nothing to diverge from, so lockstep completes.
  const SimResult r = run(Protocol::lock_functions, Regime::lockstep, 1, 1, 1);
  EXPECT_TRUE(r.exact()) << to_string(r.outcome);
}

TEST(LockModel, OnlyTheWarpAggregatedLockSurvivesLockstep) {
  for (Protocol p : {Protocol::fenced, Protocol::acq_rel, Protocol::backoff, Protocol::ticket}) {
    EXPECT_EQ(run(p, Regime::lockstep, 1, 4, 1).outcome, Outcome::deadlock) << program_of(p).name;
    EXPECT_TRUE(run(p, Regime::independent, 1, 4, 2).exact()) << program_of(p).name;
    EXPECT_TRUE(run(p, Regime::independent, 3, 1, 2).exact()) << program_of(p).name;
  }
  for (Regime g : {Regime::lockstep, Regime::independent})
    for (int threads : {4, 32, 64, 100}) {
      const SimResult r = run(Protocol::warp_aggregated, g, 2, threads, 2);
      EXPECT_TRUE(r.exact()) << to_string(g) << " " << threads << ": " << to_string(r.outcome) << " " << r.count
                             << " of " << r.expected;
    }
}

TEST(LockModel, TestAndTestAndSetDeadlocksInLockstepLikeEveryLockFunction) {
  const SimResult r = run(Protocol::ttas, Regime::lockstep, 1, 4, 1, 20);
  EXPECT_EQ(r.outcome, Outcome::deadlock);
  EXPECT_EQ(r.trace[0].cells[0], "reads 0");
  EXPECT_EQ(r.trace[1].cells[0], "CAS: 0, takes the lock");
  EXPECT_EQ(r.trace[3].cells[1], "lock taken: polls");  // lanes 1-3 spin on plain loads, not on CAS
  for (Regime g : {Regime::lockstep, Regime::independent}) {
    const SimResult one = run(Protocol::ttas, g, 4, 1, 3);
    EXPECT_TRUE(one.exact()) << to_string(g) << ": " << one.count << " of " << one.expected;
    EXPECT_EQ(one.stale_reads, 0);
  }
  EXPECT_TRUE(run(Protocol::ttas, Regime::independent, 1, 4, 2).exact());
}

TEST(LockModel, TheCombiningHolderServesEveryPublishedRequest) {
  const SimResult r = run(Protocol::combining, Regime::independent, 4, 1, 2, 40);
  ASSERT_EQ(r.outcome, Outcome::completed);
  EXPECT_EQ(r.count, 8);
  EXPECT_TRUE(r.answers_exact());
  EXPECT_TRUE(r.exact());
  // All four publish, see the lock free and try; block 0 wins and serves blocks 0-3 in one pass,
  // and blocks 1-3 read their answers in the same step.
  EXPECT_EQ(r.trace[0].cells[2], "requests +1");
  EXPECT_EQ(r.trace[3].cells[0], "CAS: 0, takes the lock");
  EXPECT_EQ(r.trace[4].cells[0], "has the lock");
  EXPECT_EQ(r.trace[5].cells[0], "serves blocks 0-3: cnt 0 -> 4");
  EXPECT_EQ(r.trace[5].cells[1], "answer 1 from block 0");
  EXPECT_EQ(r.trace[5].cnt, 4);
  EXPECT_EQ(r.trace[8].cells[0], "answer 0 (its own pass)");
  EXPECT_EQ(r.handoffs, 2);        // 8 critical sections, 2 lock handoffs
  EXPECT_EQ(r.largest_pass, 4);
  EXPECT_EQ(r.served_by_others, 6);
}

TEST(LockModel, TheCombiningLockIsExactAtEveryShapeAndSurvivesLockstep) {
  for (Regime g : {Regime::lockstep, Regime::independent})
    for (const auto& [blocks, threads, iters] : {std::tuple{1, 1, 3}, std::tuple{5, 1, 3}, std::tuple{1, 4, 2},
                                                 std::tuple{1, 32, 2}, std::tuple{2, 40, 2}, std::tuple{3, 7, 3}}) {
      const SimResult r = run(Protocol::combining, g, blocks, threads, iters);
      EXPECT_TRUE(r.exact()) << to_string(g) << " " << blocks << "x" << threads << "x" << iters << ": "
                             << to_string(r.outcome) << ", count " << r.count << " of " << r.expected;
      EXPECT_EQ(static_cast<long long>(r.answers.size()), r.expected);
      EXPECT_GE(r.handoffs, 1);
      EXPECT_LE(r.handoffs, r.expected);
      if (blocks * threads > 1) {
        EXPECT_LT(r.handoffs, r.expected) << "a pass served more than one request";
      }
    }
  // One warp in lockstep: the lane that takes the lock serves all 32 before the warp reconverges.
  const SimResult w = run(Protocol::combining, Regime::lockstep, 1, 32, 1);
  EXPECT_EQ(w.handoffs, 1);
  EXPECT_EQ(w.largest_pass, 32);
}

TEST(LockModel, AnswersExactMeansEachOfZeroToNMinusOneOnce) {
  SimResult r;
  r.config.protocol = Protocol::combining;
  r.outcome = Outcome::completed;
  r.expected = r.count = 3;
  r.answers = {2, 0, 1};
  EXPECT_TRUE(r.answers_exact());
  EXPECT_TRUE(r.exact());
  r.answers = {2, 0, 2};  // two requests answered with one value: the count alone would not see it
  EXPECT_FALSE(r.answers_exact());
  EXPECT_FALSE(r.exact());
  r.answers = {0, 1};
  EXPECT_FALSE(r.answers_exact());
  r.answers = {0, 1, 3};
  EXPECT_FALSE(r.answers_exact());
}

TEST(LockModel, RunsAreDeterministic) {
  const SimResult a = run(Protocol::book, Regime::independent, 3, 1, 3, 50);
  const SimResult b = run(Protocol::book, Regime::independent, 3, 1, 3, 50);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.rounds, b.rounds);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < a.trace.size(); ++i) EXPECT_EQ(a.trace[i].cells, b.trace[i].cells);
}

TEST(LockModel, EveryVariantHasAProtocol) {
  for (int v = 0; v < kVariants; ++v) {
    const simt::Machine p = program_of(protocol_of(static_cast<Variant>(v)));
    EXPECT_FALSE(p.name.empty());
    ASSERT_FALSE(p.code.empty());
    EXPECT_EQ(p.code.back().op, simt::Op::exit);
    EXPECT_EQ(static_cast<Op>(p.code.back().tag), Op::exit);
    for (const auto& in : p.code)
      if (in.target >= 0) {
        EXPECT_LT(in.target, static_cast<int>(p.code.size())) << p.name;
      }
  }
}

TEST(LockModel, TheTicketLockWaitsForItsTurnWithAnAcquireLoad) {
  const SimResult r = run(Protocol::ticket, Regime::independent, 1, 2, 1, 20);
  ASSERT_TRUE(r.exact());
  EXPECT_EQ(r.trace[0].cells[0], "ticket 0");
  EXPECT_EQ(r.trace[0].cells[1], "ticket 1");
  EXPECT_EQ(r.trace[1].cells[0], "its turn: has the lock");
  EXPECT_EQ(r.trace[1].cells[1], "serving 0, waits");
}

TEST(LockModel, TheWarpAggregatedLeaderAddsItsWarpsLanes) {
  const SimResult r = run(Protocol::warp_aggregated, Regime::independent, 1, 4, 1, 20);
  ASSERT_TRUE(r.exact());
  EXPECT_EQ(r.trace[0].cells[0], "leader");
  EXPECT_EQ(r.trace[0].cells[1], "not the leader");
  EXPECT_EQ(r.trace[1].cells[1], "__syncwarp");
  EXPECT_EQ(r.trace[2].cells[1], "waits at __syncwarp");
  bool four = false;
  for (const auto& row : r.trace) four = four || row.cells[0] == "cnt = 4";
  EXPECT_TRUE(four);
}

TEST(LockModel, ARoundLimitIsReportedNotHidden) {
  SimConfig c;
  c.protocol = Protocol::lock_functions;
  c.regime = Regime::independent;
  c.threads = 32;
  c.iters = 3;
  c.max_rounds = 10;
  const SimResult r = simulate(c);
  EXPECT_EQ(r.outcome, Outcome::step_limit);
  EXPECT_FALSE(r.exact());
}

TEST(LockModel, TheBlogsDelayLeavesTheStaleLineAndTheDeadlock) {
  for (Protocol p : {Protocol::delay_after, Protocol::delay_before}) {
    const SimResult r = run(p, Regime::independent, 2, 1, 2, 40);
    EXPECT_EQ(r.outcome, Outcome::completed) << program_of(p).name;
    EXPECT_EQ(r.count, 3) << program_of(p).name << ": the delay does not refresh the L1 line";
    EXPECT_EQ(r.stale_reads, 1) << program_of(p).name;
    // Wider: still losing, never more than the book's lock without the delay.
    const SimResult wide = run(p, Regime::independent, 4, 1, 3);
    EXPECT_LT(wide.count, wide.expected) << program_of(p).name;
    EXPECT_EQ(wide.count, run(Protocol::book, Regime::independent, 4, 1, 3).count) << program_of(p).name;
    // In one lockstep warp, lock() with the delay deadlocks as lock() without it does.
    EXPECT_EQ(run(p, Regime::lockstep, 1, 4, 1).outcome, Outcome::deadlock) << program_of(p).name;
  }
  const SimResult t = run(Protocol::delay_after, Regime::independent, 2, 1, 2, 40);
  EXPECT_EQ(t.trace[4].cells[0], "waits (delay)");
  EXPECT_EQ(t.first_stale, "step 16: block 0 read cnt = 1 from its SM's L1 while L2 held 2");
  EXPECT_EQ(protocol_of(Variant::delay_before), Protocol::delay_before);
}

TEST(LockModel, ByValueEveryCopyFreesTheMutex) {
  const OwnershipRun r = replay({Holding::by_value, 2, 1, false});
  EXPECT_EQ(r.launches, 2);
  EXPECT_EQ(r.destructor_calls, 3) << "one copy per launch and lock_ itself";
  EXPECT_EQ(r.frees, 3);
  EXPECT_EQ(r.frees_of_freed, 2);
  EXPECT_EQ(r.launches_on_freed, 2) << "launch 1's copy frees the mutex as the launch returns";
  EXPECT_FALSE(r.frees_once());
  // Two copies per launch statement: one more free of a freed pointer per launch.
  const OwnershipRun two = replay({Holding::by_value, 2, 2, false});
  EXPECT_EQ(two.frees, 5);
  EXPECT_EQ(two.frees_of_freed, 4);
}

TEST(LockModel, TheSharedMutexGoesWithItsLastOwner) {
  for (int copies : {1, 2, 3}) {
    const OwnershipRun r = replay({Holding::shared_mutex, 2, copies, true});
    EXPECT_TRUE(r.frees_once()) << copies << " copies per launch";
    EXPECT_EQ(r.launches, 3) << "two by value, then the copy that outlived the original";
    EXPECT_EQ(r.destructor_calls, 1) << "~Mutex once";
    EXPECT_EQ(r.use_count_max, 1 + copies) << "the lock and the launch's copies at once";
  }
  const OwnershipRun r = replay({Holding::shared_mutex, 2, 1, true});
  ASSERT_EQ(r.steps.size(), 6u);
  EXPECT_EQ(r.steps[3], "CudaKernelLock keeper = lock_; lock_ destroyed: use_count 1, the mutex alive");
  EXPECT_EQ(r.steps[4], "launch 3: 1 copy made and destroyed as it returned, use_count 2 meanwhile; the mutex is alive");
  EXPECT_STREQ(holding_name(Holding::shared_mutex), "the blog's fix 2: a Mutex class held by std::shared_ptr");
}

}  // namespace
}  // namespace cudasync::lock
