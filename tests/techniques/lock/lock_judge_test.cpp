// The lock lesson's verdicts as functions: exact counts over launches, lost updates, the model's
// lockstep expectation (a warp of one lane cannot deadlock), the combining ratio, the limits.
#include <gtest/gtest.h>

#include "techniques/lock/lock_judge.hpp"
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {
namespace {

LockRun exact_run(long long n, double ms) {
  LockRun r;
  r.expected = r.count = r.completed = n;
  r.ms = ms;
  return r;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(LockJudge, RunsExactNamesTheFirstLaunchThatIsNot) {
  LockRun stuck = exact_run(13200, 5.0);
  stuck.count = stuck.completed = 13000;
  stuck.gave_up = 2;
  stuck.stuck_blocks = {17, 40};
  const Verdict v = runs_exact({exact_run(13200, 13.2), stuck});
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(contains(v.detail, "launch 2: 2 threads gave up")) << v.detail;
  EXPECT_TRUE(contains(v.detail, "blocks still spinning: 17, 40")) << v.detail;
  EXPECT_TRUE(runs_exact({exact_run(8, 1.0), exact_run(8, 1.0)}).passed);
  EXPECT_FALSE(runs_exact({}).passed) << "no launch is no evidence";
  LockRun wrong = exact_run(10, 1.0);
  wrong.answers_checked = 10;
  wrong.answers_bad = 1;
  wrong.first_bad_answer = "answer 3 returned twice";
  EXPECT_EQ(runs_exact({wrong}).detail, "launch 1: 1 of 10 answers wrong; answer 3 returned twice");
  EXPECT_EQ(first_problem({exact_run(4, 1.0), wrong}, "<<<2, 2>>>"), "<<<2, 2>>>: 1 of 10 answers wrong; answer 3 returned twice");
  EXPECT_EQ(first_problem({exact_run(4, 1.0)}, "x"), "");
}

TEST(LockJudge, AStuckLaunchIsNotATime) {
  LockRun stuck = exact_run(100, 50.0);
  stuck.gave_up = 1;
  EXPECT_EQ(ns_samples({exact_run(13200, 13.2), stuck}), (std::vector<double>{1000.0}));
  EXPECT_TRUE(any_timed_out({stuck}));
  EXPECT_FALSE(any_timed_out({exact_run(1, 1.0)}));
}

TEST(LockJudge, LostUpdatesOverLaunches) {
  LockRun a = exact_run(40, 0.04), b = exact_run(40, 0.04);
  b.count = 31;
  const Lost l = lost_updates({a, b});
  EXPECT_EQ(l.lost, 9);
  EXPECT_EQ(l.total, 80);
  EXPECT_EQ(l.losing, 1);
  EXPECT_FALSE(l.stuck);
}

TEST(LockJudge, AWarpOfOneLaneIsExpectedToCompleteInLockstep) {
  // Before this fix, --part warp-deadlock --threads 1 expected a deadlock and exited 1.
  EXPECT_FALSE(lockstep_deadlocks(1));
  EXPECT_TRUE(lockstep_deadlocks(2));
  EXPECT_TRUE(lockstep_deadlocks(1024));
  const SimResult one = sim(Protocol::lock_functions, Regime::lockstep, 1, 1, 1);
  EXPECT_TRUE(lockstep_verdict(one).passed) << lockstep_verdict(one).detail;
  const SimResult warp = sim(Protocol::lock_functions, Regime::lockstep, 1, 32, 1);
  const Verdict v = lockstep_verdict(warp);
  EXPECT_TRUE(v.passed);
  EXPECT_TRUE(contains(v.detail, "lane 0 holds the lock")) << v.detail;
  // A lockstep run that completed where it must deadlock fails.
  SimResult wrong = warp;
  wrong.outcome = Outcome::completed;
  EXPECT_FALSE(lockstep_verdict(wrong).passed);
}

TEST(LockJudge, ModelOutcomesInWords) {
  SimResult r;
  r.outcome = Outcome::deadlock;
  r.repeat_from = 2;
  r.cycle_rounds = 2;
  EXPECT_EQ(model_outcome_text(r), "deadlock: the state after step 4 is the state after step 2");
  r.outcome = Outcome::completed;
  r.rounds = 12;
  r.count = r.expected = 8;
  EXPECT_EQ(model_outcome_text(r), "completes in 12 steps, count 8 of 8 (exact)");
  r.outcome = Outcome::step_limit;
  EXPECT_EQ(model_outcome_text(r), "undecided after 12 steps");
}

TEST(LockJudge, CombiningAgainstTheCasLock) {
  std::vector<LockRun> comb, cas;
  for (int i = 0; i < 3; ++i) {
    LockRun c = exact_run(13200, 0.66);  // 50 ns per critical section
    c.handoffs = 132;                    // 100 per handoff
    comb.push_back(c);
    cas.push_back(exact_run(13200, 13.2));  // 1000 ns per handoff
  }
  ASSERT_TRUE(combining_ratio(comb, cas).has_value());
  EXPECT_NEAR(*combining_ratio(comb, cas), 0.05, 1e-12);
  EXPECT_EQ(per_handoff(comb), std::vector<double>(3, 100.0));
  EXPECT_FALSE(combining_ratio(comb, {}).has_value());
}

TEST(LockJudge, LimitsOfOneLaunchAndOfStaleReads) {
  EXPECT_FALSE(acquisitions_error("--part lock-class", 132, 1, 100).has_value());
  const auto e = acquisitions_error("--part lock-class", 4096, 1, 2000);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(contains(*e, "<<<4096, 1>>>") && contains(*e, "8192000") && contains(*e, "4194304")) << *e;
  EXPECT_EQ(stale_runs(std::nullopt, 132, 50), 4);
  EXPECT_EQ(stale_runs(std::nullopt, 132, 10000), 1);
  EXPECT_EQ(stale_runs(7, 132, 10000), 7);
  EXPECT_EQ(grid_id(132, 128), "132x128");
}

}  // namespace
}  // namespace cudasync::lock
