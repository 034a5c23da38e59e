// The verdicts of lockfree-barrier as functions: the model's outcome, values and words against the
// model, who arrived past co-residency, the summary's GPU column and the bench's deadline check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {
namespace {

TEST(LockfreeBarrierJudge, SimOutcome) {
  SimResult r;
  r.completed = true;
  r.total_steps = 7;
  EXPECT_EQ(sim_outcome(r), "completed in 7 steps");
  EXPECT_TRUE(sim_passes(r));
  r.early_barrier = 1;
  r.early_block = 0;
  EXPECT_EQ(sim_outcome(r), "completed in 7 steps; block 0 passed barrier 1 before every block had arrived");
  EXPECT_FALSE(sim_passes(r));
  SimResult d;
  d.deadlock = true;
  d.total_steps = 4;
  EXPECT_EQ(sim_outcome(d), "deadlock at step 4");
  EXPECT_FALSE(sim_passes(d));
  EXPECT_EQ(sim_outcome(SimResult{}), "stopped");
  // The same as ids: the early pass is a fact of its own, not part of the outcome.
  EXPECT_STREQ(sim_outcome_id(r), "completes");
  EXPECT_STREQ(sim_outcome_id(d), "deadlocks");
  EXPECT_STREQ(sim_outcome_id(SimResult{}), "stops");
}

TEST(LockfreeBarrierJudge, ValuesNameTheFirstWrongBlockAndThread) {
  const auto want = model_values(4, 32, 3, 1);
  const ValuesVerdict same = judge_values(want, want);
  EXPECT_TRUE(same.passed());
  EXPECT_EQ(same.detail(32), "every value equal");
  auto bad = want;
  bad[37] ^= 1u;
  bad[100] ^= 1u;
  const ValuesVerdict v = judge_values(bad, want);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.wrong, 2u);
  EXPECT_EQ(v.detail(32), "2 differ, the first at block 1, thread 5");
  // Nothing to compare (no model values, or a short GPU result) is not a pass.
  EXPECT_FALSE(judge_values(want, {}).passed());
  EXPECT_FALSE(judge_values({1, 2}, want).passed());
  EXPECT_EQ(judge_values({1, 2}, want).detail(32), "nothing compared");
}

TEST(LockfreeBarrierJudge, WordsText) {
  EXPECT_EQ(words_text(Barrier::xf_lock, {1980}, 132), "g_mutex 1980");
  EXPECT_EQ(words_text(Barrier::xf_lockfree, final_words(Barrier::xf_lockfree, 3, 16, 1), 3),
            "Arrayin all 15, Arrayout all 15");
  EXPECT_EQ(words_text(Barrier::xf_lockfree_unrepaired, {1, 2, 3, 0, 0, 4}, 3), "Arrayin 1..3, Arrayout 0..4");
  EXPECT_EQ(words_text(Barrier::own, {990, 990}, 1056), "counters 990 990");
  EXPECT_EQ(words_text(Barrier::own_cluster, {60}, 4), "counter 60");
  EXPECT_EQ(words_text(Barrier::own, std::vector<std::uint32_t>(9, 1), 9), "counters 1 1 1 1 1 1 1 1 ...");
  EXPECT_EQ(words_text(Barrier::grid_sync, {}, 4), "-");
}

GpuRun past_coresidency(int blocks, int resident) {
  GpuRun g;
  g.barrier = Barrier::own;
  g.deadline_hit = true;
  for (int i = 0; i < blocks; ++i) {
    g.arrive_ns.push_back(i < resident ? 1000 + i : 0);
    g.release_ns.push_back(0);
    g.gave_up.push_back(i < resident ? 1 : 0);
  }
  return g;
}

TEST(LockfreeBarrierJudge, ArrivalsPastCoresidency) {
  const GpuRun g = past_coresidency(6, 4);
  const Arrivals a = arrivals(g);
  EXPECT_EQ(a.arrived, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(a.never, (std::vector<int>{4, 5}));
  EXPECT_EQ(a.gave_up, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(a.deadline_ended(g, 6));
  // Without the deadline, or with every block arrived, nothing was ended and named.
  GpuRun no_deadline = g;
  no_deadline.deadline_hit = false;
  EXPECT_FALSE(arrivals(no_deadline).deadline_ended(no_deadline, 6));
  const GpuRun all = past_coresidency(4, 4);
  EXPECT_FALSE(arrivals(all).deadline_ended(all, 4));
}

TEST(LockfreeBarrierJudge, GpuStatus) {
  GpuRun g;
  EXPECT_EQ(gpu_status(g, false), "ran");
  EXPECT_EQ(gpu_status(g, true), "deadline");
  g.deadline_hit = true;
  EXPECT_EQ(gpu_status(g, false), "deadline");
  g.refused = "cudaErrorCooperativeLaunchTooLarge";
  EXPECT_EQ(gpu_status(g, true), "refused");
}

TEST(LockfreeBarrierJudge, BenchDeadlines) {
  BenchDeadlines d;
  EXPECT_TRUE(d.passed());
  EXPECT_EQ(d.detail(), "every timed barrier completed");
  d.hit = {"own @ 1056 blocks"};
  EXPECT_FALSE(d.passed());
  EXPECT_EQ(d.detail(), "a spin gave up (own @ 1056 blocks): the figure of that cell is not a barrier's");
}

}  // namespace
}  // namespace cudasync::lockfree_barrier
