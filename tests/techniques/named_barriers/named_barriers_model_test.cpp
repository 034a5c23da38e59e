// The reference model of named-barriers: the barrier-phase simulation and the predicate
// reductions, against outcomes worked out by hand from the PTX ISA ("bar, barrier"):
//   - a barrier completes when its thread count has arrived; warps arrive whole (32 threads);
//   - bar.sync and bar.red wait, bar.arrive does not;
//   - a warp must not arrive at a barrier again before it completed (undefined);
//   - without a count, all threads of the CTA take part.
#include <gtest/gtest.h>

#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {
namespace {

std::vector<int> phase_sizes(const Simulation& sim, int id) {
  std::vector<int> out;
  for (const Phase* p : sim.phases_of(id)) out.push_back(static_cast<int>(p->warps.size()));
  return out;
}

TEST(NamedBarriersModel, NeededThreadsFollowTheCountRule) {
  EXPECT_EQ(needed_threads(64, 256, CountRule::exact), 64);
  EXPECT_EQ(needed_threads(0, 256, CountRule::exact), 256);     // no count: the whole CTA
  EXPECT_EQ(needed_threads(0, 100, CountRule::exact), 128);     // a partial last warp arrives whole
  EXPECT_EQ(needed_threads(48, 256, CountRule::round_up), 64);
  EXPECT_EQ(needed_threads(48, 256, CountRule::round_down), 32);
  EXPECT_EQ(needed_threads(16, 256, CountRule::round_down), 32);  // never less than one warp
}

TEST(NamedBarriersModel, TwoGroupsEachCompleteTheirOwnPhases) {
  GroupsSpec spec;
  spec.threads[0] = 64;
  spec.threads[1] = 128;
  spec.ids[0] = 1;
  spec.ids[1] = 2;
  spec.phases = 4;
  const Simulation sim = simulate(groups_program(spec), spec.block_threads());
  EXPECT_TRUE(sim.finishes());
  EXPECT_EQ(sim.completed[1], 4);
  EXPECT_EQ(sim.completed[2], 4);
  EXPECT_EQ(sim.completed[0], 0);
  EXPECT_EQ(phase_sizes(sim, 1), (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(phase_sizes(sim, 2), (std::vector<int>{4, 4, 4, 4}));
  for (const Phase* p : sim.phases_of(2)) {
    EXPECT_EQ(p->needed_threads, 128);
    EXPECT_EQ(p->waited.size(), 4u);  // everyone used bar.sync
    EXPECT_EQ(p->warps, (std::vector<int>{2, 3, 4, 5}));  // group 1 is warps 2-5
  }
}

TEST(NamedBarriersModel, ProducerConsumerArriveDoesNotWaitSyncDoes) {
  PcSpec spec;
  spec.producers = 64;
  spec.consumers = 32;
  spec.ids[0] = 0;  // the PTX ISA example's ids: 0 for "full", 1 for "empty"
  spec.ids[1] = 1;
  spec.rounds = 3;
  const Simulation sim = simulate(pc_program(spec), spec.block_threads());
  ASSERT_TRUE(sim.finishes()) << (sim.hazards.empty() ? "" : sim.hazards.front());
  EXPECT_EQ(sim.completed[0], 3);
  EXPECT_EQ(sim.completed[1], 3);
  for (const Phase* p : sim.phases_of(0)) {  // full: 2 producer warps arrive, 1 consumer warp waits
    EXPECT_EQ(p->needed_threads, 96);
    EXPECT_EQ(p->warps.size(), 3u);
    EXPECT_EQ(p->waited, (std::vector<int>{2}));
  }
  for (const Phase* p : sim.phases_of(1)) {  // empty: the producers wait, the consumer arrives
    EXPECT_EQ(p->waited, (std::vector<int>{0, 1}));
  }
}

TEST(NamedBarriersModel, ACountLargerThanTheArrivalsWaitsForever) {
  const MisuseCase c{128, 64};
  const Simulation sim = simulate(misuse_program(c, 3), 64);
  EXPECT_FALSE(sim.finishes());
  ASSERT_EQ(sim.stuck.size(), 2u);
  EXPECT_EQ(sim.stuck[0].id, 3);
  EXPECT_EQ(sim.stuck[0].arrived_threads, 64);
  EXPECT_EQ(sim.stuck[0].needed_threads, 128);
  EXPECT_TRUE(sim.phases.empty());
}

TEST(NamedBarriersModel, ACountThatIsNotAMultipleOf32IsAHazardUnlessARuleIsChosen) {
  const MisuseCase c{48, 64};
  const Simulation exact = simulate(misuse_program(c, 1), 64);
  EXPECT_FALSE(exact.finishes());
  ASSERT_FALSE(exact.hazards.empty());
  EXPECT_NE(exact.hazards.front().find("not a multiple of 32"), std::string::npos);
  const Simulation up = simulate(misuse_program(c, 1), 64, CountRule::round_up);
  EXPECT_TRUE(up.finishes());
  EXPECT_EQ(phase_sizes(up, 1), (std::vector<int>{2}));
  const Simulation down = simulate(misuse_program(c, 1), 64, CountRule::round_down);
  EXPECT_TRUE(down.finishes());
  EXPECT_EQ(phase_sizes(down, 1), (std::vector<int>{1, 1}));
}

TEST(NamedBarriersModel, ArrivingTwiceBeforeTheBarrierCompletesIsAHazard) {
  // Warp 0 runs ahead: two bar.arrive on barrier 1 while warp 1 is still busy at barrier 3
  // (which warp 2 completes with it).
  const std::vector<WarpProgram> warps = {{{StepKind::arrive, 1, 64}, {StepKind::arrive, 1, 64}},
                                          {{StepKind::sync, 3, 64}, {StepKind::sync, 1, 64}},
                                          {{StepKind::sync, 3, 64}}};
  const Simulation sim = simulate(warps, 96);
  ASSERT_FALSE(sim.hazards.empty());
  EXPECT_NE(sim.hazards.front().find("arrived twice"), std::string::npos) << sim.hazards.front();
}

TEST(NamedBarriersModel, DifferentCountsOnOneActiveBarrierAreAHazard) {
  const std::vector<WarpProgram> warps = {{{StepKind::sync, 1, 64}}, {{StepKind::sync, 1, 32}}};
  const Simulation sim = simulate(warps, 64);
  ASSERT_FALSE(sim.hazards.empty());
  EXPECT_NE(sim.hazards.front().find("counts 64 and 32"), std::string::npos) << sim.hazards.front();
}

TEST(NamedBarriersModel, ExtraWarpsStartANewPhaseThatNeverCompletes) {
  // Three warps at bar.sync 1, 64: the first two complete a phase, the third waits alone.
  const std::vector<WarpProgram> warps(3, WarpProgram{{StepKind::sync, 1, 64}});
  const Simulation sim = simulate(warps, 96);
  EXPECT_EQ(sim.completed[1], 1);
  ASSERT_EQ(sim.stuck.size(), 1u);
  EXPECT_EQ(sim.stuck[0].warp, 2);
  EXPECT_EQ(sim.stuck[0].arrived_threads, 32);
}

TEST(NamedBarriersModel, BarRedWithoutACountTakesTheWholeBlock) {
  const std::vector<WarpProgram> warps(4, WarpProgram{{StepKind::red, 0, 0}});
  const Simulation sim = simulate(warps, 128);
  EXPECT_TRUE(sim.finishes());
  EXPECT_EQ(phase_sizes(sim, 0), (std::vector<int>{4}));
}

TEST(NamedBarriersModel, MisusePredictions) {
  const MisusePrediction up = predict_misuse({48, 64}, CountRule::round_up);
  EXPECT_EQ(up.phase_sizes, (std::vector<int>{2}));
  EXPECT_EQ(up.rescues, 0);
  const MisusePrediction down = predict_misuse({48, 64}, CountRule::round_down);
  EXPECT_EQ(down.phase_sizes, (std::vector<int>{1, 1}));
  EXPECT_EQ(down.rescues, 0);
  const MisusePrediction one_warp_up = predict_misuse({48, 32}, CountRule::round_up);
  EXPECT_EQ(one_warp_up.rescues, 1);  // one warp arrives, two are needed: hangs without a rescue
  EXPECT_TRUE(one_warp_up.hangs_without_rescue());
  const MisusePrediction big = predict_misuse({128, 64}, CountRule::exact);
  EXPECT_EQ(big.phase_sizes, (std::vector<int>{2}));
  EXPECT_EQ(big.rescues, 2);
  const MisusePrediction leftover = predict_misuse({64, 96}, CountRule::exact);
  EXPECT_EQ(leftover.phase_sizes, (std::vector<int>{2, 1}));  // the third warp needs one more
  EXPECT_EQ(leftover.rescues, 1);
}

TEST(NamedBarriersModel, NoReadingNeedsMoreRescuesThanTheCountHasWarps) {
  // The kernel sizes its rescue warps by this bound (MisuseCase::rescue_warps).
  for (int count = 1; count <= 1024; count += 17)
    for (int arrive = 32; arrive <= 992; arrive += 32)
      for (CountRule r : {CountRule::round_up, CountRule::round_down}) {
        const MisusePrediction p = predict_misuse({count, arrive}, r);
        EXPECT_LE(p.rescues, (count + 31) / 32) << "count " << count << " arrive " << arrive;
        int released = 0;
        for (int z : p.phase_sizes) released += z;
        EXPECT_EQ(released, arrive / 32) << "every waiting warp is released exactly once";
      }
}

TEST(NamedBarriersModel, PredicateReductions) {
  EXPECT_EQ(model_red({1, 0, 1, 1}).count, 3);
  EXPECT_EQ(model_red({1, 0, 1, 1}).all, 0);
  EXPECT_EQ(model_red({1, 0, 1, 1}).any, 1);
  EXPECT_EQ(model_red({1, 1}).all, 1);
  EXPECT_EQ(model_red({0, 0, 0}).any, 0);
  EXPECT_EQ(model_red({0, 0, 0}).count, 0);
  EXPECT_EQ(model_red({5, 0}).count, 1);  // any non-zero value is true
}

TEST(NamedBarriersModel, ConsumedIsProducedAndEveryConsumerReadsItsSlots) {
  PcSpec spec;
  spec.producers = 64;
  spec.consumers = 32;
  spec.rounds = 2;
  for (int i = 0; i < 128; ++i) spec.input.push_back(1000 + i);
  EXPECT_EQ(model_consumed(spec), spec.input);
  EXPECT_EQ(reader_of(0, 32), 0);
  EXPECT_EQ(reader_of(33, 32), 1);
  EXPECT_EQ(reader_of(5, 96), 5);
}

}  // namespace
}  // namespace cudasync::named_barriers
