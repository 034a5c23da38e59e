// deadlock-demo's reference model: its programs on core's SIMT machine, as the lesson reads the runs,
// must show the lockstep warp's deadlock and its reconvergence wait, complete the same lock under
// independent scheduling, find the cycle between lanes under both schedulers and the AB/BA cycle
// between blocks; the grid models must predict the
// stuck and not-started blocks from a given co-residency; the wait-for graph must find cycles and
// only cycles; records must fold into the ranges the report prints.
#include <gtest/gtest.h>

#include "techniques/deadlock_demo/lesson.hpp"

namespace cudasync::deadlock_demo {
namespace {

using simt::Scheduling;

Coresidency small_gpu(int per_sm, int sms) {
  Coresidency c;
  c.blocks_per_sm = per_sm;
  c.sm_count = sms;
  c.threads = kGridThreads;
  c.source = "test";
  return c;
}

Record stuck_record(State s, int on = -1, long long seen = 0) {
  Record r;
  r.state = static_cast<int>(s);
  r.on = on;
  r.seen = seen;
  return r;
}

TEST(DeadlockDemoGraph, FindsACycleAndOnlyACycle) {
  WaitGraph chain;
  for (const char* n : {"a", "b", "c"}) chain.add_node(n);
  chain.add_edge(0, 1, "x");
  chain.add_edge(1, 2, "y");
  EXPECT_TRUE(chain.find_cycle().empty());
  EXPECT_EQ(chain.cycle_text(), "");
  chain.add_edge(2, 1, "z");  // b <-> c, a only leads into it
  EXPECT_EQ(chain.find_cycle(), (std::vector<int>{1, 2}));
  EXPECT_EQ(chain.cycle_text(), "b -> c -> b");
  EXPECT_EQ(chain.add_node("b"), 1) << "a name already there is the same node";

  WaitGraph ring;
  for (int i = 0; i < 32; ++i) ring.add_node("lane " + std::to_string(i));
  for (int i = 0; i < 32; ++i) ring.add_edge(i, (i + 1) % 32, "flag");
  EXPECT_EQ(ring.find_cycle().size(), 32u);
  EXPECT_EQ(ring.cycle_text(), "lane 0 -> lane 1 -> lane 2 -> ... -> lane 31 -> lane 0 (32 nodes)");
}

TEST(DeadlockDemoGraph, RecordsFoldIntoRanges) {
  std::vector<Record> rs = {stuck_record(State::gave_up, 0, 5), stuck_record(State::gave_up, 0, 5), stuck_record(State::gave_up, 0, 4),
                            stuck_record(State::late), stuck_record(State::late), stuck_record(State::never_started)};
  const auto ranges = fold(rs, barrier_describe(6));
  ASSERT_EQ(ranges.size(), 4u);
  EXPECT_EQ(range_text(ranges[0], "block"), "blocks 0-1 spun on the counter at 5/6");
  EXPECT_EQ(range_text(ranges[1], "block"), "block 2 spun on the counter at 4/6");
  EXPECT_EQ(range_text(ranges[2], "block"), "blocks 3-4 started after the deadline");
  EXPECT_EQ(range_text(ranges[3], "block"), "block 5 never started");
  EXPECT_EQ(count_in(ranges, State::gave_up), 3);
  EXPECT_EQ(count_in(ranges, State::late), 2);
}

TEST(DeadlockDemoSimt, LockstepWarpDeadlocksOnTheLockItsOwnLaneHolds) {
  const ModelRun r = run_model(spinlock_machine(Scheduling::lockstep, 4), 4, 40);
  ASSERT_TRUE(r.deadlock());
  // Step 1: lane 0's CAS wins, lanes 1-3 read 1 (lane 0's index + 1). Step 2: the warp diverges.
  // Step 3 on: lanes 1-3 spin while lane 0 waits at the reconvergence point; after step 4 the warp
  // is back at the CAS with the same registers and memory as after step 2.
  EXPECT_EQ(r.result.repeat_from, 2);
  EXPECT_EQ(r.result.steps, 4);
  const auto& trace = r.result.trace;
  ASSERT_EQ(trace.size(), 4u);
  EXPECT_EQ(event_text(r, trace[0].lanes[0]), "CAS lock: 0, takes it");
  EXPECT_EQ(event_text(r, trace[0].lanes[1]), "CAS lock: 1 (held by lane 0)");
  EXPECT_EQ(event_text(r, trace[1].lanes[0]), "leaves the loop");
  EXPECT_EQ(event_text(r, trace[1].lanes[3]), "spins");
  EXPECT_EQ(row_note(r, trace[1]), "lanes 1-3 go to 0, lane 0 to 2; they meet again at 2");
  EXPECT_EQ(event_text(r, trace[2].lanes[0]), "waits at 2");
  EXPECT_EQ(memory_text(r, trace[3].memory), "lock 1, counter 0");
  EXPECT_EQ(row_note(r, trace[3]), "the same state as after step 2: it repeats forever");
  EXPECT_EQ(verdict(r), "deadlock: the state after step 4 is the state after step 2");
  // The wait-for graph: lane 0 waits for the warp to reconverge (it runs lanes 1-3 only), they wait
  // for the lock lane 0 holds.
  ASSERT_EQ(r.waits.size(), 2u);
  EXPECT_EQ(r.waits[0], "lane 0 waits for lanes 1-3: the warp to reconverge at pc 2 (it runs only them)");
  EXPECT_EQ(r.waits[1], "lanes 1-3 wait for lane 0: lock, which it holds (read 1)");
  EXPECT_EQ(r.graph.cycle_text(), "lane 0 -> lane 1 -> lane 0");
  EXPECT_EQ(r.records[0].on, -1);
  EXPECT_EQ(r.records[0].seen, 2) << "parked at pc 2";
  EXPECT_EQ(r.records[3].on, 0);
  EXPECT_EQ(r.records[3].seen, 1);
}

TEST(DeadlockDemoSimt, IndependentSchedulingCompletesTheSameLockForAWholeWarp) {
  const ModelRun r = run_model(spinlock_machine(Scheduling::independent, 32), 4, 8);
  ASSERT_TRUE(r.completed());
  EXPECT_FALSE(r.deadlock());
  EXPECT_EQ(r.word("counter"), 32);
  EXPECT_EQ(r.word("lock"), 0);
  EXPECT_TRUE(r.graph.nodes.empty());
  for (const auto& rec : r.records) EXPECT_EQ(rec.state, static_cast<int>(State::finished));
  EXPECT_EQ(r.result.trace.size(), 8u);
  EXPECT_GT(r.result.rows_not_shown, 0);
  EXPECT_EQ(verdict(r), "completes in 129 steps, counter 32 of 32");
  EXPECT_EQ(event_text(r, r.result.trace[3].lanes[0]), "releases lock");
  EXPECT_EQ(event_text(r, r.result.trace[4].lanes[0]), "exits");
  EXPECT_EQ(event_text(r, r.result.trace[5].lanes[0]), "exited");
  // The 32-lane lockstep warp deadlocks the same way as the 4-lane one.
  const ModelRun l = run_model(spinlock_machine(Scheduling::lockstep, 32));
  EXPECT_TRUE(l.deadlock());
  EXPECT_EQ(l.word("counter"), 0);
}

TEST(DeadlockDemoSimt, TheCycleBetweenLanesDeadlocksUnderBothSchedulers) {
  for (Scheduling g : {Scheduling::lockstep, Scheduling::independent}) {
    SCOPED_TRACE(simt::to_string(g));
    const ModelRun r = run_model(ring_machine(g, 32));
    ASSERT_TRUE(r.deadlock());
    EXPECT_EQ(verdict(r), "deadlock: the state after step 2 is the state it started in");
    EXPECT_EQ(r.graph.find_cycle().size(), 32u);
    ASSERT_EQ(r.waits.size(), 1u);
    EXPECT_EQ(r.waits[0], "lanes 0-31 wait for the next lane: its flag (read 0) (lane 31 for lane 0)");
    for (int l = 0; l < 32; ++l) {
      EXPECT_EQ(r.records[static_cast<std::size_t>(l)].state, static_cast<int>(State::gave_up));
      EXPECT_EQ(r.records[static_cast<std::size_t>(l)].on, (l + 1) % 32);
      EXPECT_EQ(r.records[static_cast<std::size_t>(l)].seen, 0);
    }
    EXPECT_EQ(ranges_text(fold(r.records, ring_describe()), "lane"), "lanes 0-31 spun on the next lane's flag (saw 0)");
  }
}

TEST(DeadlockDemoSimt, LockOrderFindsTheCycleBetweenTheTwoBlocksAndTheFixCompletes) {
  const LockOrderModel m = lock_order_model();
  ASSERT_TRUE(m.broken.deadlock());
  EXPECT_EQ(m.m.graph.cycle_text(), "block 0 -> block 1 -> block 0");
  ASSERT_EQ(m.m.waits.size(), 2u);
  EXPECT_EQ(m.m.waits[0], "block 0 waits for block 1: lock B, which it holds (read 2)");
  EXPECT_EQ(m.m.waits[1], "block 1 waits for block 0: lock A, which it holds (read 1)");
  EXPECT_EQ(ranges_text(fold(m.m.records, lock_order_describe()), "block"),
            "block 0 gave up waiting on lock B (held by block 1); block 1 gave up waiting on lock A (held by block 0)");
  EXPECT_EQ(m.broken.word("count"), 0);
  ASSERT_TRUE(m.fixed.completed());
  EXPECT_EQ(verdict(m.fixed), "completes in 29 steps");
  const auto& t = m.broken.result.trace;
  ASSERT_GE(t.size(), 8u);
  EXPECT_EQ(event_text(m.broken, t[5].lanes[0]), "CAS lock B: 2 (held by block 1)");
  EXPECT_EQ(memory_text(m.broken, t[5].memory), "lock A 1, lock B 2, holding 1,1, count 0");
  EXPECT_EQ(row_note(m.broken, t[7]), "the same state as after step 6: it repeats forever");
  EXPECT_EQ(m.fixed.word("count"), 4);
  EXPECT_EQ(m.fixed.word("lock A"), 0);
  EXPECT_TRUE(m.m.fix_completes);
}

TEST(DeadlockDemoModel, GridPredictsStuckAndNotStartedBlocksFromTheCoresidency) {
  const Coresidency c = small_gpu(4, 10);  // 40 at once
  const ScenarioModel m = grid_barrier_model(100, c);
  ASSERT_TRUE(m.deadlock);
  const auto ranges = fold(m.records, barrier_describe(100));
  EXPECT_EQ(ranges_text(ranges, "block"), "blocks 0-39 spun on the counter at 40/100; blocks 40-99 started after the deadline");
  EXPECT_EQ(count_in(ranges, State::gave_up), 40);
  EXPECT_EQ(count_in(ranges, State::late), 60);
  EXPECT_EQ(m.graph.cycle_text(), "blocks 0-39 (resident, spinning) -> blocks 40-99 (no slot) -> blocks 0-39 (resident, spinning)");
  EXPECT_NE(m.fix_steps[1].what.find("cudaErrorCooperativeLaunchTooLarge (720)"), std::string::npos);
  // The example on an H100: 4000 blocks, 1056 at once.
  const ScenarioModel h = grid_barrier_model(4000, model_coresidency());
  EXPECT_EQ(model_coresidency().limit(), 1056);
  EXPECT_EQ(ranges_text(fold(h.records, barrier_describe(4000)), "block"),
            "blocks 0-1055 spun on the counter at 1056/4000; blocks 1056-3999 started after the deadline");
  // A grid that fits passes.
  const ScenarioModel ok = grid_barrier_model(40, c);
  EXPECT_FALSE(ok.deadlock);
  EXPECT_TRUE(ok.graph.find_cycle().empty());
  EXPECT_EQ(ranges_text(fold(ok.records, barrier_describe(40)), "block"), "blocks 0-39 passed the barrier");
}

TEST(DeadlockDemoModel, ChainPredictsTheResidentBlocksSpinningOnBlocksWithoutASlot) {
  const ScenarioModel m = chain_model(25, small_gpu(2, 5));  // 10 at once
  ASSERT_TRUE(m.deadlock);
  EXPECT_EQ(ranges_text(fold(m.records, chain_describe()), "block"),
            "blocks 0-9 spun on the next block's flag (saw 0); blocks 10-24 started after the deadline");
  EXPECT_FALSE(m.graph.cycle_text().empty());
  EXPECT_TRUE(m.fix_completes);
  const ScenarioModel fits = chain_model(10, small_gpu(2, 5));
  EXPECT_FALSE(fits.deadlock);
  EXPECT_EQ(ranges_text(fold(fits.records, chain_describe()), "block"), "blocks 0-9 finished");
}

TEST(DeadlockDemoModel, BarrierRecordsSayWhetherTheBarrierWaitedForTheRescue) {
  BarrierObservation o;
  o.threads = 4;
  o.present = 2;
  o.arrive_ns = {10, 12, 50000, 50001};
  o.leave_ns = {50100, 50100, 50100, 50101};
  o.progress_ns = {-1, -1, 49000, 49000};
  o.state = {1, 1, 3, 3};
  const Describe d = barrier_child_describe(false);
  EXPECT_EQ(ranges_text(fold(barrier_records(o), d), "thread"),
            "threads 0-1 waited in __syncthreads() until the rescue; threads 2-3 gave up on the flag at the deadline, "
            "then called barrier.sync 0 (the rescue)");
  // The model reads the guide the same way.
  const ScenarioModel m = barrier_model(false, kSyncPresent);
  EXPECT_EQ(ranges_text(fold(m.records, d), "thread"),
            "threads 0-47 waited in __syncthreads() until the rescue; threads 48-63 gave up on the flag at the "
            "deadline, then called barrier.sync 0 (the rescue)");
  EXPECT_FALSE(m.graph.cycle_text().empty());
  // A barrier that let them go early: they left before anyone rescued, and the others saw the flag.
  o.leave_ns = {20, 21, -1, -1};
  o.state = {1, 1, 2, 2};
  EXPECT_EQ(ranges_text(fold(barrier_records(o), barrier_child_describe(true)), "thread"),
            "threads 0-1 left __syncwarp(0xffffffff) before the rest arrived; threads 2-3 saw the flag: the others had "
            "passed __syncwarp(0xffffffff) without them");
}

TEST(DeadlockDemoModel, IfElseBarriersSayWhetherTheIfBranchWaitedForTheElseBranch) {
  BarrierObservation o;
  o.threads = 4;
  o.present = 2;
  o.variant = static_cast<int>(BarrierVariant::if_else);
  o.arrive_ns = {10, 11, 12, 13};
  o.leave_ns = {20, 20, 20, 21};
  o.progress_ns = {-1, -1, -1, -1};
  o.state = {1, 1, 3, 3};
  const Describe d = barrier_child_describe(false, BarrierVariant::if_else);
  EXPECT_EQ(ranges_text(fold(barrier_records(o), d), "thread"),
            "threads 0-1 waited in the if branch's __syncthreads() until the else branch's threads arrived; threads "
            "2-3 called the else branch's __syncthreads() and left it");
  const ScenarioModel m = barrier_model(false, 32, BarrierVariant::if_else);
  EXPECT_FALSE(m.deadlock);
  EXPECT_TRUE(m.graph.find_cycle().empty());
  EXPECT_EQ(ranges_text(fold(m.records, d), "thread"),
            "threads 0-31 waited in the if branch's __syncthreads() until the else branch's threads arrived; threads "
            "32-63 called the else branch's __syncthreads() and left it");
  // The if branch let go before the else branch got there.
  o.leave_ns = {5, 5, 20, 21};
  EXPECT_EQ(fold(barrier_records(o), d).front().what,
            "left the if branch's __syncthreads() before the else branch's threads arrived");
}

TEST(DeadlockDemoModel, AHungBarrierSaysWhoNeverLeftAndWhoStoppedRunning) {
  // Threads 0-2 arrived and never left; thread 3 was last seen spinning, then never ran again;
  // thread 4 gave up and called the rescue, which never returned; thread 5 recorded nothing.
  BarrierObservation o;
  o.threads = 6;
  o.present = 3;
  o.hung = true;
  o.arrive_ns = {5, 6, 7, -1, 50000, -1};
  o.leave_ns = {-1, -1, -1, -1, -1, -1};
  o.progress_ns = {-1, -1, -1, 900, 49000, -1};
  o.state = {0, 0, 0, 0, 0, 0};
  const auto rs = barrier_records(o);
  EXPECT_EQ(ranges_text(fold(rs, barrier_child_describe(false)), "thread"),
            "threads 0-2 arrived at __syncthreads() and never left; thread 3 stopped running before their deadline, "
            "still spinning on the flag; thread 4 gave up on the flag, called barrier.sync 0 (the rescue) and never "
            "left it; thread 5 recorded nothing");
  EXPECT_EQ(rs[3].end_ns, 900) << "the last time thread 3 was seen";
}

}  // namespace
}  // namespace cudasync::deadlock_demo
