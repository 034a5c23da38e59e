// core/simt: the SIMT stack starves a spin loop's other side (lockstep) where independent
// scheduling completes; a plain load through a non-coherent L1 reads a stale line; a state that
// comes back is a deadlock; the trace says what each lane did.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/simt/simt.hpp"

namespace cudasync::simt {
namespace {

enum Reg { r, v };

// The seed's CAS lock taken once by every lane of one warp (the header's worked example).
Machine lock_machine(Scheduling s, int lanes) {
  enum Mem { lock, counter };
  Machine m;
  m.name = "the CAS lock in one warp";
  m.scheduling = s;
  m.threads = lanes;
  m.words = {{"lock", Word::Kind::lock}, {"counter"}};
  m.code = {
      cas(lock, value(1), r, "while (atomicCAS(&lock, 0, 1) != 0)"),
      branch(reg_ne(r, 0), 0, 2, "  ;   // spin"),
      atomic_add(counter, value(1), -1, "atomicAdd(&counter, 1);"),
      exch(lock, value(0), "atomicExch(&lock, 0);"),
      exit("return;"),
  };
  return m;
}

// The book's lock around *cnt = *cnt + 1 (plain load and store of a cached word), `blocks` blocks
// of one thread, two acquisitions each; with `fenced` a fence after taking the lock.
Machine stale_machine(bool fenced) {
  enum Mem { mutex, cnt };
  Machine m;
  m.blocks = 2;
  m.iters = 2;
  m.words = {{"mutex", Word::Kind::lock}, {"cnt", Word::Kind::plain, true}};
  m.code.push_back(cas(mutex, value(1), r, "lock"));
  m.code.push_back(branch(reg_ne(r, 0), 0, 2, "spin"));
  if (fenced) m.code.push_back(fence("__threadfence();"));
  m.code.push_back(load(cnt, v, "v = *cnt"));
  m.code.push_back(store(cnt, reg_plus(v, 1), "*cnt = v + 1"));
  m.code.push_back(exch(mutex, value(0), "unlock"));
  m.code.push_back(loop(0, static_cast<int>(m.code.size()) + 1, "if (++i < iters) goto 0"));
  m.code.push_back(exit("return;"));
  return m;
}

TEST(Simt, LockDeadlocksInLockstepAndCompletesIndependently) {
  const Result a = run(lock_machine(Scheduling::lockstep, 32), {{0, 1, 2, 3}, 40});
  ASSERT_TRUE(a.deadlock());
  EXPECT_EQ(a.word("counter"), 0);
  // Lane 0 took the lock and is parked at the reconvergence point, holding it.
  EXPECT_EQ(a.holder[0], 0);
  EXPECT_FALSE(a.lanes[0].running);
  EXPECT_EQ(a.lanes[0].pc, 2);
  EXPECT_TRUE(a.lanes[1].running);
  EXPECT_EQ(a.warp_running[0], 0xfffffffeu);
  // Steps 1 CAS, 2 branch (the split), 3 CAS, 4 branch: the state after 4 is the state after 2.
  EXPECT_EQ(a.steps, 4);
  EXPECT_EQ(a.repeat_from, 2);
  ASSERT_EQ(a.trace.size(), 4u);
  ASSERT_EQ(a.trace[1].splits.size(), 1u);
  const Split& s = a.trace[1].splits.front();
  EXPECT_EQ(s.fall, 1u);
  EXPECT_EQ(s.taken, 0xfffffffeu);
  EXPECT_EQ(mask_text(s.taken), "1-31");
  EXPECT_EQ(a.trace[2].lanes[0].kind, Event::Kind::parked);
  EXPECT_TRUE(a.trace[2].lanes[0].holds);
  EXPECT_EQ(a.trace[2].lanes[0].pc, 2);
  EXPECT_EQ(a.trace[3].repeats, 2);
  EXPECT_EQ(a.trace[0].lanes[0].kind, Event::Kind::ran);
  EXPECT_TRUE(a.trace[0].lanes[0].taken);   // lane 0's CAS swapped
  EXPECT_FALSE(a.trace[0].lanes[1].taken);  // lane 1's read 1
  EXPECT_EQ(a.trace[0].lanes[1].read, 1);

  const Result b = run(lock_machine(Scheduling::independent, 32));
  EXPECT_TRUE(b.completed());
  EXPECT_EQ(b.word("counter"), 32);
  EXPECT_EQ(b.holder[0], -1);
}

TEST(Simt, OneLaneCannotDeadlockInLockstep) {
  const Result a = run(lock_machine(Scheduling::lockstep, 1));
  EXPECT_TRUE(a.completed());
  EXPECT_EQ(a.word("counter"), 1);
}

TEST(Simt, StaleReadThroughTheL1) {
  const Result a = run(stale_machine(false), {{0, 1}, 40});
  ASSERT_TRUE(a.completed());
  EXPECT_GT(a.stale_reads, 0);
  ASSERT_TRUE(a.first_stale.has_value());
  EXPECT_LT(a.first_stale->read, a.first_stale->l2);
  EXPECT_LT(a.word("cnt"), 4);  // an update was lost
  bool seen_stale = false;
  for (const Row& row : a.trace)
    for (const Event& e : row.lanes) seen_stale = seen_stale || e.from == Event::From::l1_stale;
  EXPECT_TRUE(seen_stale);
  // The trace keeps each SM's line: block 1's L1 holds the counter after its first load.
  const std::size_t words = a.machine.words.size();
  bool block1_line = false;
  for (const Row& row : a.trace) block1_line = block1_line || row.l1[1 * words + 1] != kAbsent;
  EXPECT_TRUE(block1_line);

  const Result b = run(stale_machine(true));
  ASSERT_TRUE(b.completed());
  EXPECT_EQ(b.stale_reads, 0);
  EXPECT_EQ(b.word("cnt"), 4);
}

TEST(Simt, WaitForCycleIsADeadlockUnderEitherScheduler) {
  // Lane i waits for lane i+1's flag, then sets its own.
  for (Scheduling s : {Scheduling::lockstep, Scheduling::independent}) {
    Machine m;
    m.scheduling = s;
    m.threads = 4;
    for (int l = 0; l < 4; ++l) m.words.push_back({"flag[" + std::to_string(l) + "]", Word::Kind::flag, false, false, l});
    m.code = {
        load(0, r, "while (flag[next] == 0)").addressed(At::next).waiting(),
        branch(reg_eq(r, 0), 0, 2, "  ;"),
        store(0, value(1), "flag[lane] = 1;").addressed(At::self),
        exit("return;"),
    };
    const Result res = run(m);
    ASSERT_TRUE(res.deadlock()) << to_string(s);
    EXPECT_EQ(res.repeat_from, 0) << to_string(s);  // the start comes back after one round of the loop
    for (const Lane& l : res.lanes) {
      EXPECT_FALSE(l.exited);
      EXPECT_EQ(l.seen, 0);
    }
    EXPECT_EQ(res.lanes[2].wait_word, 3);
    EXPECT_EQ(res.lanes[3].wait_word, 0);
  }
}

TEST(Simt, ANeverRepeatingRunStopsAtTheStepLimit) {
  Machine m;
  m.words = {{"n"}};
  m.code = {atomic_add(0, value(1), -1, "n += 1"), jump(0, "goto 0"), exit("return;")};
  const Result res = run(m, {}, 100);
  EXPECT_EQ(res.outcome, Outcome::step_limit);
  EXPECT_EQ(res.steps, 100);
  EXPECT_EQ(res.word("n"), 50);
}

TEST(Simt, LeaderSyncwarpAndCustomInstructions) {
  // The warp's lowest lane adds the warp's lanes at once; a custom instruction logs each lane's
  // iteration and counts the calls; everyone meets at __syncwarp.
  enum Mem { cnt };
  Val warp_lanes = value(0);
  warp_lanes.plus_live_lanes = true;
  for (Scheduling s : {Scheduling::lockstep, Scheduling::independent}) {
    Machine m;
    m.scheduling = s;
    m.threads = 40;  // a full warp and one of 8 lanes
    m.tallies = 1;
    m.words = {{"cnt"}};
    m.code = {
        branch(not_leader(), 3, 3, "if (lane == leader) {"),
        load(cnt, v, "  v = cnt;"),
        atomic_add(cnt, warp_lanes, -1, "  atomicAdd(&cnt, n); }"),
        syncwarp("__syncwarp();"),
        custom([](Exec& x) {
          x.log(x.lane());
          ++x.tally(0);
          x.text = "lane " + std::to_string(x.lane());
          return false;
        }, "note"),
        exit("return;"),
    };
    const Result res = run(m, {{0, 1}, 10});
    ASSERT_TRUE(res.completed()) << to_string(s);
    EXPECT_EQ(res.word("cnt"), 40) << to_string(s);
    EXPECT_EQ(res.tallies[0], 40) << to_string(s);
    EXPECT_EQ(res.log.size(), 40u) << to_string(s);
  }
}

TEST(Simt, ABranchOnAWordReadsItInL2) {
  // Test-and-test-and-set's poll: spin while the lock word reads non-zero.
  Machine m;
  m.threads = 2;
  m.words = {{"lock", Word::Kind::lock}};
  m.code = {
      branch(word_ne(0, value(0)), 0, 1, "while (lock != 0) ;"),
      cas(0, value(1), r, "r = atomicCAS(&lock, 0, 1)"),
      branch(reg_ne(r, 0), 0, 3, "if (r != 0) goto 0"),
      exch(0, value(0), "atomicExch(&lock, 0)"),
      exit("return;"),
  };
  const Result res = run(m, {{0, 1}, 20});
  ASSERT_TRUE(res.completed());
  EXPECT_EQ(res.trace[0].lanes[0].read, 0);
  EXPECT_EQ(res.trace[2].lanes[1].read, 1);  // lane 1 lost the CAS and goes back to poll
  EXPECT_TRUE(res.trace[2].lanes[1].taken);
}

TEST(Simt, RejectsAMachineWithoutItsWords) {
  Machine m;
  m.code = {load(3, r, "v = x"), exit("return;")};
  EXPECT_THROW(run(m), std::invalid_argument);
  Machine poll;
  poll.code = {branch(word_ne(2, value(0)), 0, 1, "while (x != 0)"), exit("return;")};
  EXPECT_THROW(run(poll), std::invalid_argument);
  Machine empty;
  EXPECT_THROW(run(empty), std::invalid_argument);
}

TEST(Simt, SchedulingNames) {
  EXPECT_EQ(parse_scheduling("lockstep"), Scheduling::lockstep);
  EXPECT_EQ(parse_scheduling("independent"), Scheduling::independent);
  EXPECT_FALSE(parse_scheduling("volta").has_value());
  EXPECT_STREQ(to_string(Scheduling::lockstep), "lockstep");
  EXPECT_EQ(mask_text(0x0000000bu), "0-1, 3");
}

}  // namespace
}  // namespace cudasync::simt
