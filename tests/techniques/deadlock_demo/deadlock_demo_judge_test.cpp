// deadlock-demo's verdicts as functions, fed with records a GPU could return: the stuck set against
// the model's, a deadlock that ended at its deadline (or did not), the fixes' results, the
// cooperative launch's refusal, the barrier children.
#include <gtest/gtest.h>

#include "techniques/deadlock_demo/lesson.hpp"

namespace cudasync::deadlock_demo {
namespace {

Record timed_record(State s, long long end_ns = -1, int on = 0, long long seen = 0) {
  Record r;
  r.start_ns = 0;
  r.end_ns = end_ns;
  r.state = static_cast<int>(s);
  r.on = on;
  r.seen = seen;
  return r;
}

TEST(DeadlockDemoJudge, TheStuckSetAgreesRangeByRangeOrSaysBoth) {
  const Describe d = barrier_describe(4);
  const std::vector<Record> model = {timed_record(State::gave_up, -1, 0, 2), timed_record(State::gave_up, -1, 0, 2), timed_record(State::late),
                                     timed_record(State::late)};
  std::vector<Record> gpu = model;
  gpu[0].end_ns = 50'000'100;  // times differ run to run and do not count
  const Verdict same = stuck_agreement(gpu, model, d, "block");
  EXPECT_TRUE(same.passed);
  EXPECT_EQ(same.detail, "blocks 0-1 spun on the counter at 2/4; blocks 2-3 started after the deadline");
  gpu[2] = timed_record(State::gave_up, -1, 0, 3);
  const Verdict differ = stuck_agreement(gpu, model, d, "block");
  EXPECT_FALSE(differ.passed);
  EXPECT_EQ(differ.detail.rfind("GPU: blocks 0-1 spun", 0), 0u) << differ.detail;
  EXPECT_NE(differ.detail.find(" | model: blocks 0-1 spun"), std::string::npos) << differ.detail;
}

TEST(DeadlockDemoJudge, ADeadlockEndedAtItsDeadlineOnlyIfEveryoneSaidWhereItWas) {
  const std::vector<Record> rs = {timed_record(State::gave_up, 50'012'000), timed_record(State::gave_up, 50'001'000),
                                  timed_record(State::late, 50'020'000)};
  const Verdict ok = ended_at_deadline(rs, true, 50, "block");
  EXPECT_TRUE(ok.passed);
  EXPECT_EQ(ok.detail, "2 blocks gave up; the last at 50.012 ms (deadline 50 ms)");
  EXPECT_FALSE(ended_at_deadline(rs, false, 50, "block").passed) << "the kernel's timed-out flag was not set";
  std::vector<Record> missing = rs;
  missing.push_back(timed_record(State::never_started));
  const Verdict m = ended_at_deadline(missing, true, 50, "block");
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.detail, "2 blocks gave up; the last at 50.012 ms (deadline 50 ms); 1 recorded nothing");
  const Verdict none = ended_at_deadline({timed_record(State::finished)}, true, 50, "lane");
  EXPECT_FALSE(none.passed) << "nobody gave up: no deadlock ended";
  EXPECT_EQ(none.detail, "0 lanes gave up; the last at - (deadline 50 ms)");
}

TEST(DeadlockDemoJudge, TheFixesMustCompleteWithTheirResultRight) {
  GridRun g;
  g.completed = true;
  g.result_ok = true;
  g.result = "sum 558096 = N(N+1)/2";
  EXPECT_TRUE(completed(g).passed);
  EXPECT_EQ(completed(g).detail, "sum 558096 = N(N+1)/2");
  g.result_ok = false;
  EXPECT_FALSE(completed(g).passed);
  g.completed = false;
  EXPECT_EQ(completed(g).detail, say(kGaveUpAtDeadline));

  LaneRun lock;
  lock.count = 3200;
  lock.expected = 3200;
  EXPECT_TRUE(lock_count_exact(lock).passed);
  EXPECT_EQ(lock_count_exact(lock).detail, "counter 3200 of 3200");
  lock.timed_out = true;
  EXPECT_FALSE(lock_count_exact(lock).passed);
  EXPECT_EQ(lock_count_exact(lock).detail, "counter 3200 of 3200; " + say(kLaneGaveUpAtDeadline));

  LockOrderRun lo;
  lo.expected = 1000;
  lo.count_a = 1000;
  lo.count_b = 999;
  EXPECT_FALSE(fix_counts_exact(lo).passed);
  EXPECT_EQ(fix_counts_exact(lo).detail, "1000, 999 of 1000");
  lo.count_b = 1000;
  EXPECT_TRUE(fix_counts_exact(lo).passed);

  EXPECT_EQ(tickets_in_order({0, 1, 3, 2, 4}), 3);
  EXPECT_EQ(tickets_in_order({}), 0);
}

TEST(DeadlockDemoJudge, ACooperativeLaunchOfATooLargeGridIsRefusedAndRunsNothing) {
  CoopRun c;
  c.error_code = 720;
  c.error_name = "cudaErrorCooperativeLaunchTooLarge";
  c.error_text = "too many blocks in cooperative launch";
  c.host_ms = 0.02;
  c.run.records.assign(3, timed_record(State::never_started));
  const Verdict v = cooperative_refused(c);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.detail, "cudaErrorCooperativeLaunchTooLarge (720) after 0.020 ms; no block ran");
  EXPECT_EQ(cooperative_outcome(c), "cudaErrorCooperativeLaunchTooLarge (720): too many blocks in cooperative launch");
  EXPECT_FALSE(cooperative_completed(c).passed);
  c.run.records[1] = timed_record(State::finished);
  EXPECT_FALSE(cooperative_refused(c).passed) << "a block ran";
  CoopRun fits;
  fits.launched = true;
  fits.run.completed = true;
  fits.run.result_ok = true;
  fits.run.result = "sum right";
  EXPECT_TRUE(cooperative_completed(fits).passed);
  EXPECT_EQ(cooperative_outcome(fits), "ran: sum right");
  EXPECT_FALSE(cooperative_refused(fits).passed);
}

TEST(DeadlockDemoJudge, TheModelsDeadlockNeedsACycle) {
  const ScenarioModel m = grid_barrier_model(2112, model_coresidency());
  EXPECT_TRUE(model_cycle(m).passed);
  EXPECT_EQ(model_cycle(m).detail,
            "blocks 0-1055 (resident, spinning) -> blocks 1056-2111 (no slot) -> blocks 0-1055 (resident, spinning)");
  const ScenarioModel fits = grid_barrier_model(100, model_coresidency());
  EXPECT_FALSE(model_cycle(fits).passed);
  EXPECT_EQ(model_cycle(fits).detail, "no cycle found");
}

TEST(DeadlockDemoJudge, ABarrierCaseIsAsSpecifiedOnlyWhenItWaitedForTheRescue) {
  BarrierObservation o;
  o.threads = kSyncBlockThreads;
  o.present = kSyncPresentWholeWarps;
  for (int t = 0; t < o.threads; ++t) {
    const bool in = t < o.present;
    o.arrive_ns.push_back(in ? 10 : 50'000'000);
    o.leave_ns.push_back(50'000'100);
    o.progress_ns.push_back(in ? -1 : 49'000'000);
    o.state.push_back(static_cast<int>(in ? BarrierState::passed : BarrierState::rescued));
  }
  const ScenarioModel m = barrier_model(false, kSyncPresentWholeWarps);
  const Describe d = barrier_child_describe(false);
  EXPECT_TRUE(as_specified(o, m, d));
  // The barrier let the present threads go at once, and the others saw their flag.
  for (int t = 0; t < o.threads; ++t) {
    const auto i = static_cast<std::size_t>(t);
    o.leave_ns[i] = t < o.present ? 20 : -1;
    if (t >= o.present) o.state[i] = static_cast<int>(BarrierState::saw_flag);
  }
  EXPECT_FALSE(as_specified(o, m, d));
}

TEST(DeadlockDemoJudge, AChildEndedByItselfUnlessThisProcessKilledIt) {
  ChildOutcome c;
  c.status = ChildOutcome::Status::ok;
  EXPECT_TRUE(child_ended(c).passed);
  EXPECT_EQ(child_ended(c).detail, "it answered");
  c.status = ChildOutcome::Status::cuda_error;
  c.message = "an illegal instruction was encountered";
  EXPECT_TRUE(child_ended(c).passed);
  EXPECT_EQ(child_ended(c).detail, "its kernel stopped with an illegal instruction was encountered");
  c.status = ChildOutcome::Status::timeout;
  c.message = "no answer after 20200 ms: the child was killed";
  EXPECT_FALSE(child_ended(c).passed);
  EXPECT_EQ(child_ended(c).detail, c.message);
  c.status = ChildOutcome::Status::no_answer;
  EXPECT_FALSE(child_ended(c).passed);
}

}  // namespace
}  // namespace cudasync::deadlock_demo
