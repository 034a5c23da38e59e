// The lock lesson's verdicts as functions: exact counts over launches, lost updates, the model's
// lockstep expectation (a warp of one lane cannot deadlock), the combining ratio, the limits.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"

#include "techniques/lock/lesson.hpp"
#include "techniques/lock/lock_runs.hpp"

namespace cudasync::lock {
namespace {

using test_runs::exact_run;

using cudasync::test::contains;

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

TEST(LockJudge, ADelayThatStillLosesIsNamedWithItsLongestDelay) {
  EXPECT_EQ(delay_text(100), "100 ns");
  EXPECT_EQ(delay_text(10000), "10 us");
  EXPECT_EQ(delay_text(1500), "1500 ns");
  EXPECT_EQ(delay_text(1000000), "1 ms");
  LockRun lossy = exact_run(2640, 30.0);
  lossy.count = 40;
  const std::vector<DelayRuns> delayed{{1000, {lossy, exact_run(2640, 30.0)}}, {10000, {lossy}}, {50000, {exact_run(2640, 200.0)}}};
  const DelayFinding f = delay_finding(delayed, {{exact_run(2640, 3.0)}, {exact_run(2640, 2.0)}});
  EXPECT_EQ(f.lost.lost, 2 * 2600);
  EXPECT_EQ(f.lost.total, 4 * 2640);
  EXPECT_EQ(f.lost.losing, 2);
  EXPECT_EQ(f.longest_losing, 10000u) << "50 us lost nothing: the longest delay that lost is 10 us";
  EXPECT_TRUE(f.fixes_exact);
  EXPECT_EQ(delay_verdict(f), "with a delay of up to 10 us the book's lock still lost 5,200 of 10,560 updates; the "
                              "fences and acquire / release lost none");
  // A fix that lost one, and a run where no delay lost anything: said as they are.
  LockRun one_short = exact_run(2640, 3.0);
  one_short.count = 2639;
  const DelayFinding g = delay_finding({{1000, {exact_run(2640, 3.0)}}}, {{one_short}});
  EXPECT_FALSE(g.fixes_exact);
  EXPECT_EQ(g.longest_losing, 0u);
  EXPECT_TRUE(contains(delay_verdict(g), "lost no update on this GPU this time")) << delay_verdict(g);
  EXPECT_TRUE(contains(delay_verdict(g), "a real fix was not exact either")) << delay_verdict(g);
  LockRun stuck = exact_run(2640, 3.0);
  stuck.gave_up = 1;
  EXPECT_TRUE(contains(delay_verdict(delay_finding({{1000, {stuck}}}, {{exact_run(8, 1.0)}})), "timed out"));
  EXPECT_FALSE(delay_finding({}, {}).fixes_exact) << "no fix run is no evidence";
}

TEST(LockJudge, TheDelaysWaitingIsBounded) {
  EXPECT_FALSE(delay_budget_error({1000, 10000}, 2, 132, 20).has_value());
  // 2 runs x 132 x 100 x 1 ms x 2 placements = 52.8 s of waiting inside the lock.
  const auto e = delay_budget_error({1000000}, 2, 132, 100);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(contains(*e, "--part delay-fix") && contains(*e, "52800 ms") && contains(*e, "4000 ms")) << *e;
}

SharedMutexRun good_shared_run() {
  SharedMutexRun r;
  r.expected = 1280;
  r.counts = {1280, 1280, 1280};
  r.copies = {1, 1, 1};
  r.alive = {true, true, true};
  r.use_count_max = 2;
  r.mutex_destructor_calls = 1;
  r.frees_ok = 1;
  r.owners_at_free = 0;
  return r;
}

TEST(LockJudge, TheSharedMutexIsFreedOnceByItsLastOwner) {
  const OwnershipRun model = replay({Holding::shared_mutex, 2, 1, true});
  const SharedMutexRun good = good_shared_run();
  EXPECT_TRUE(shared_mutex_counts(good).passed);
  EXPECT_EQ(shared_mutex_counts(good).detail, "counts 1280, 1280, 1280 of 1280 each");
  EXPECT_TRUE(shared_mutex_alive(good).passed);
  EXPECT_TRUE(shared_mutex_frees_once(good, model).passed) << shared_mutex_frees_once(good, model).detail;
  SharedMutexRun early = good;  // freed while a lock object still held it
  early.owners_at_free = 1;
  early.alive[2] = false;
  EXPECT_FALSE(shared_mutex_frees_once(early, model).passed);
  EXPECT_TRUE(contains(shared_mutex_frees_once(early, model).detail, "while 1 CudaKernelLock objects still held it"));
  EXPECT_EQ(shared_mutex_alive(early).detail, "after launch 3 the mutex was no longer a device allocation");
  SharedMutexRun twice = good;
  twice.mutex_destructor_calls = 2;
  twice.frees_failed = 1;
  EXPECT_FALSE(shared_mutex_frees_once(twice, model).passed);
  SharedMutexRun lost = good;
  lost.counts[1] = 1279;
  lost.gave_up = 1;
  EXPECT_FALSE(shared_mutex_counts(lost).passed);
  EXPECT_TRUE(contains(shared_mutex_counts(lost).detail, "1 blocks gave up")) << shared_mutex_counts(lost).detail;
  EXPECT_FALSE(shared_mutex_counts(SharedMutexRun{}).passed) << "no launch is no evidence";
  // Judged against a model that frees more than once, even a good run does not pass.
  EXPECT_FALSE(shared_mutex_frees_once(good, replay({Holding::by_value, 2, 1, false})).passed);
}

}  // namespace
}  // namespace cudasync::lock
