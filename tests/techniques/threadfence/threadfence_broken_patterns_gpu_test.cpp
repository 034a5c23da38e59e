// The broken SO Docs patterns and the host observer on a real GPU: with the barrier every share of
// the WorkQueue is filed once; without it the GPU does what the model predicts from its own fetch
// order; lastBlock called by every block gives the sum, skipped by some it gives none; the guard in
// divergent code runs in a child process and the parent carries on; a host thread never sees stale
// data behind __threadfence_system(), and no wait on either side reaches its deadline.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"
#include "support/run_cli.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {
namespace {

TEST(ThreadfenceBrokenPatternsGpu, TheBarrierFilesEveryShareOnceAndTheRaceIsAsPredicted) {
  CUDASYNC_REQUIRE_GPU();
  for (std::uint64_t seed : {1u, 2u}) {
    const RaceSpec spec = make_race_spec(seed);
    const RaceTally ok = tally_race(spec, RaceVariant::barrier, gpu_queue_race(spec, RaceVariant::barrier));
    EXPECT_TRUE(ok.log_complete);
    EXPECT_EQ(ok.gpu.once, ok.gpu.portions) << "seed " << seed;
    EXPECT_EQ(ok.gpu_misfiled, 0u);
    EXPECT_EQ(ok.lanes_disagree, 0u);
    // Without the barrier: a timing claim. Warp shares differ from warp 0's by a whole unit (4000
    // cycles), far more than thread 0's atomicAdd and shared store take.
    const RaceTally race = tally_race(spec, RaceVariant::no_barrier, gpu_queue_race(spec, RaceVariant::no_barrier));
    EXPECT_TRUE(race.log_complete);
    EXPECT_EQ(race.lanes_disagree, 0u) << "a warp's lanes file together";
    EXPECT_EQ(race.predicted, race.gpu.portions) << "seed " << seed << ": the model, from the GPU's own fetch order";
    EXPECT_EQ(race.gpu_misfiled, race.model.misfiled);
    EXPECT_GT(race.gpu.lost, 0u);
  }
}

TEST(ThreadfenceBrokenPatternsGpu, LastBlockGivesTheSumOnlyWhenEveryBlockCallsIt) {
  CUDASYNC_REQUIRE_GPU();
  const PartialSpec spec = make_partial_spec(5);
  for (int i = 0; i < 20; ++i) {
    const PartialRun every = gpu_last_block_partial(spec, PartialVariant::every_block);
    EXPECT_EQ(every.result, partial_sum(spec));
    EXPECT_EQ(every.counter, 16u);
    EXPECT_GE(every.last_block, 0);
    const PartialRun skip = gpu_last_block_partial(spec, PartialVariant::skipping_blocks);
    EXPECT_EQ(skip.result, kNeverWritten);
    EXPECT_EQ(skip.counter, 12u);
    EXPECT_EQ(skip.last_block, -1);
  }
  EXPECT_THROW(gpu_last_block_partial(spec, PartialVariant::thread_zero_only), std::logic_error);
}

TEST(ThreadfenceBrokenPatternsGpu, TheDivergentGuardRunsInAChildAndTheParentCarriesOn) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = test::valid_document("threadfence --backend gpu --part last-block-partial --json");
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  const auto& s = doc["report"]["sections"]["last-block-partial"];
  ASSERT_TRUE(s["facts"].contains("gpu-thread-zero-only")) << s.dump().substr(0, 400);
  // The child answers with where its threads were, whether the kernel hung or ended; a child that
  // died (a CUDA error) says so in the fact instead. Either way this process went on.
  const std::string what = s["facts"]["gpu-thread-zero-only"]["value"].get<std::string>();
  if (what.find("no answer") == std::string::npos) {
    EXPECT_TRUE(s["facts"].contains("stages-thread-zero-only")) << what;
  }
  EXPECT_TRUE(s["checks"]["every-block-as-predicted"]["passed"].get<bool>()) << "the parent's own runs after the child";
}

TEST(ThreadfenceBrokenPatternsGpu, AHostThreadNeverSeesStaleDataBehindTheSystemFence) {
  CUDASYNC_REQUIRE_GPU();
  HostObserverSpec spec;
  spec.rounds = 3000;
  for (Fence f : {Fence::none, Fence::device, Fence::system}) {
    const HostObserverRun r = gpu_host_observer(spec, f);
    EXPECT_FALSE(r.device_gave_up) << to_string(f);
    EXPECT_FALSE(r.host_gave_up) << to_string(f);
    EXPECT_EQ(r.rounds, 3000u) << to_string(f);
    EXPECT_LE(r.stale, r.rounds);
    if (f == Fence::system) {
      EXPECT_EQ(r.stale, 0u) << "the PTX memory model forbids it";
    }
  }
}

TEST(ThreadfenceBrokenPatternsGpu, TheNewPartsPassEveryCheck) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = test::valid_document("threadfence --backend gpu --part work-queue-race,host-observer --json");
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  EXPECT_TRUE(doc["report"]["sections"]["work-queue-race"]["checks"]["barrier-each-share-once"]["passed"].get<bool>());
}

}  // namespace
}  // namespace cudasync::threadfence
