// What breaks when a rule of the SO Docs patterns is ignored, and the host observer: the models
// (which shares the WorkQueue race loses or doubles, what lastBlock called by some threads gives,
// which fence lets a host thread read stale data), the judges, and the sections fed made-up GPU
// results: right ones pass, wrong ones fail, and nothing demands a weak behaviour the model only allows.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/report_lookup.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {
namespace {

using test::find_check;
using test::find_fact;
using test::find_table;

using test::failed_count;

// A GPU run that did exactly what the model says for the fetch order `seq`.
RaceRun run_as_modelled(const RaceSpec& spec, RaceVariant v, const std::vector<std::vector<std::int32_t>>& seq) {
  RaceRun r;
  r.filed.assign(static_cast<std::size_t>(spec.items() * spec.threads), 0);
  r.fetched.assign(static_cast<std::size_t>(spec.blocks * spec.max_turns), kNoTurn);
  r.filed_by.assign(r.fetched.size() * static_cast<std::size_t>(spec.warps()), kNoTurn);
  for (int b = 0; b < spec.blocks; ++b) {
    const auto& mine = seq[static_cast<std::size_t>(b)];
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const std::size_t turn = static_cast<std::size_t>(b * spec.max_turns) + k;
      r.fetched[turn] = mine[k];
      if (mine[k] < 0) break;
      for (int w = 0; w < spec.warps(); ++w) {
        const std::int32_t f = filed_under(spec, v, mine[k], k + 1 < mine.size() ? mine[k + 1] : kNoItem, w);
        r.filed_by[turn * static_cast<std::size_t>(spec.warps()) + static_cast<std::size_t>(w)] = f;
        if (f >= 0)
          for (int l = 0; l < kWarpSize; ++l) ++r.filed[static_cast<std::size_t>(f * spec.threads + w * kWarpSize + l)];
      }
    }
  }
  return r;
}

TEST(ThreadfenceWorkQueueRace, TheBarrierFilesEveryShareOnceAndItsAbsenceLosesAndDoubles) {
  const RaceSpec spec = make_race_spec(1);
  ASSERT_EQ(spec.items(), 64);
  for (int i = 0; i < spec.items(); ++i) {
    EXPECT_EQ(spec.share[static_cast<std::size_t>(i * spec.warps())], kWarpZeroShare);
    for (int w = 1; w < spec.warps(); ++w) EXPECT_NE(spec.share[static_cast<std::size_t>(i * spec.warps() + w)], kWarpZeroShare);
  }
  for (RaceVariant v : {RaceVariant::barrier, RaceVariant::no_barrier}) {
    const auto seq = race_schedule(spec, v);
    std::vector<int> seen(static_cast<std::size_t>(spec.items()), 0);
    for (const auto& mine : seq) {
      ASSERT_FALSE(mine.empty());
      EXPECT_EQ(mine.back(), kNoItem) << "every block ends on an empty queue";
      for (std::size_t k = 0; k + 1 < mine.size(); ++k) ++seen[static_cast<std::size_t>(mine[k])];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; })) << "the atomicAdd hands each index out once";
    const RaceCounts c = race_counts(spec, v, seq);
    const RaceSummary s = summarize_counts(c.counts);
    EXPECT_EQ(s.portions, 256u);
    EXPECT_EQ(c.unknown, 0u);
    if (v == RaceVariant::barrier) {
      EXPECT_EQ(s.once, s.portions);
      EXPECT_EQ(c.misfiled, 0u);
    } else {
      EXPECT_GT(s.lost, 0u);
      EXPECT_GT(s.twice, 0u);
      EXPECT_GT(c.misfiled, 0u);
      EXPECT_EQ(s.once + s.lost + s.twice, s.portions);
    }
  }
}

TEST(ThreadfenceWorkQueueRace, ASlowWarpFilesUnderTheNextItemAndAFastOneUnderItsOwn) {
  RaceSpec spec;
  spec.blocks = 1;
  spec.threads = 64;  // 2 warps
  spec.cost_units = {1, 1, 1};
  spec.share = {2, 3, 2, 1, 2, 3};  // item 0: warp 1 slow, item 1: fast, item 2: slow
  const std::vector<std::vector<std::int32_t>> seq = {{0, 1, 2, kNoItem}};
  EXPECT_EQ(filed_under(spec, RaceVariant::no_barrier, 0, 1, 1), 1);
  EXPECT_EQ(filed_under(spec, RaceVariant::no_barrier, 1, 2, 1), 1);
  EXPECT_EQ(filed_under(spec, RaceVariant::no_barrier, 2, kNoItem, 1), kNoItem);
  EXPECT_EQ(filed_under(spec, RaceVariant::barrier, 0, 1, 1), 0);
  EXPECT_EQ(filed_under(spec, RaceVariant::no_barrier, 0, 1, 0), 0) << "warp 0 files before thread 0 fetches again";
  const RaceCounts c = race_counts(spec, RaceVariant::no_barrier, seq);
  // warp 1: item 0 never, item 1 twice (from turns 0 and 1), item 2 never (its turn filed nothing).
  EXPECT_EQ(c.counts, (std::vector<std::uint32_t>{1, 0, 1, 2, 1, 0}));
  EXPECT_EQ(c.misfiled, 2u);
  EXPECT_EQ(race_counts(spec, RaceVariant::no_barrier, {{0}}).unknown, 1u) << "the log ended: warp 1's next is unknown";
  EXPECT_EQ(race_counts(spec, RaceVariant::no_barrier, {{1}}).unknown, 0u) << "a fast warp files under its own";
}

TEST(ThreadfenceWorkQueueRace, TheJudgeCountsTheGpuAndPredictsFromItsOwnFetchOrder) {
  const RaceSpec spec = make_race_spec(3);
  // The GPU's fetch order differs from the model's: block 0 and 1 swap their sequences.
  auto seq = race_schedule(spec, RaceVariant::no_barrier);
  std::swap(seq[0], seq[1]);
  RaceRun r = run_as_modelled(spec, RaceVariant::no_barrier, seq);
  RaceTally t = tally_race(spec, RaceVariant::no_barrier, r);
  EXPECT_TRUE(t.log_complete);
  EXPECT_EQ(t.lanes_disagree, 0u);
  EXPECT_EQ(t.predicted, t.counts.size());
  EXPECT_EQ(t.gpu.lost, t.model_summary.lost);
  EXPECT_EQ(t.gpu_misfiled, t.model.misfiled);
  r.filed[5] += 1;  // one lane of warp 0 of item 0 filed once more
  t = tally_race(spec, RaceVariant::no_barrier, r);
  EXPECT_EQ(t.lanes_disagree, 1u);
  EXPECT_EQ(t.predicted, t.counts.size()) << "a warp's count is its lane 0's";
  r.fetched[static_cast<std::size_t>(spec.max_turns - 1)] = kNoTurn;
  r.fetched[0] = kNoTurn;
  EXPECT_FALSE(tally_race(spec, RaceVariant::no_barrier, r).log_complete);
}

TEST(ThreadfenceWorkQueueRace, TheSectionFailsOnlyTheBarrierLoopThatMisfiles) {
  const RaceSpec spec = make_race_spec(1);
  std::vector<RaceOutcome> runs(2);
  runs[0].variant = RaceVariant::no_barrier;
  runs[1].variant = RaceVariant::barrier;
  runs[0].gpu = run_as_modelled(spec, RaceVariant::no_barrier, race_schedule(spec, RaceVariant::no_barrier));
  runs[1].gpu = run_as_modelled(spec, RaceVariant::barrier, race_schedule(spec, RaceVariant::barrier));
  report::Section s = work_queue_race_section(spec, runs, true);
  EXPECT_EQ(failed_count(s), 0u) << "the race's losses are allowed: no check demands or forbids them";
  ASSERT_NE(find_check(s, "barrier-each-share-once"), nullptr);
  EXPECT_EQ(find_check(s, "no-barrier-each-share-once"), nullptr);
  EXPECT_GT(std::get<std::int64_t>(find_table(s, "variants")->cell(0, "lost")), 0);
  ASSERT_NE(find_table(s, "trace-no-barrier"), nullptr);
  // The barrier loop filing one share under the next item fails.
  runs[1].gpu = run_as_modelled(spec, RaceVariant::no_barrier, race_schedule(spec, RaceVariant::barrier));
  s = work_queue_race_section(spec, runs, true);
  EXPECT_FALSE(find_check(s, "barrier-each-share-once")->passed);
  const report::Section model = work_queue_race_section(spec, {runs[0], RaceOutcome{RaceVariant::barrier, {}}}, false);
  EXPECT_TRUE(model.checks.size() <= 2u);
}

TEST(ThreadfenceLastBlockPartial, TheModelSaysWhatEachCallGivesOrThatItIsUndefined) {
  const PartialSpec spec = make_partial_spec(1);
  ASSERT_EQ(spec.input.size(), static_cast<std::size_t>(spec.data_blocks * spec.threads));
  const PartialPrediction every = partial_model(spec, PartialVariant::every_block);
  EXPECT_TRUE(every.defined && every.merged);
  EXPECT_EQ(every.tickets, 16u);
  const PartialPrediction skip = partial_model(spec, PartialVariant::skipping_blocks);
  EXPECT_FALSE(skip.merged);
  EXPECT_EQ(skip.tickets, 12u);
  EXPECT_FALSE(partial_model(spec, PartialVariant::thread_zero_only).defined);
  EXPECT_NE(partial_sum(make_partial_spec(1)), partial_sum(make_partial_spec(2)));
}

TEST(ThreadfenceLastBlockPartial, RunsAreJudgedAgainstThePredictionAndAHangIsReported) {
  const PartialSpec spec = make_partial_spec(1);
  PartialRun right;
  right.counter = 16;
  right.last_block = 7;
  right.result = partial_sum(spec);
  PartialRun none;
  none.counter = 12;
  EXPECT_TRUE(judge_partial(spec, PartialVariant::every_block, right).as_predicted);
  EXPECT_FALSE(judge_partial(spec, PartialVariant::every_block, none).as_predicted);
  EXPECT_TRUE(judge_partial(spec, PartialVariant::skipping_blocks, none).as_predicted);
  EXPECT_FALSE(judge_partial(spec, PartialVariant::skipping_blocks, right).as_predicted);
  PartialRun hung;
  hung.completed = false;
  hung.watched_ms = 300;
  hung.counter = 16;
  hung.stage.assign(static_cast<std::size_t>(spec.blocks * spec.threads), static_cast<int>(PartialStage::at_barrier));
  for (int b = 0; b < spec.blocks; ++b) hung.stage[static_cast<std::size_t>(b * spec.threads)] = static_cast<int>(PartialStage::at_guard);
  EXPECT_EQ(stage_text(spec, hung), "thread 0 of each block in the guard's __syncthreads_or: 16; the other threads at the "
                                    "__syncthreads() after the if: 2032");
  const auto back = parse_partial_answer(format_partial_answer(hung), hung.stage.size());
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->completed);
  EXPECT_EQ(back->result, kNeverWritten);
  EXPECT_EQ(back->stage, hung.stage);
  EXPECT_FALSE(parse_partial_answer(format_partial_answer(hung), 5).has_value()) << "the wrong number of threads";
  EXPECT_FALSE(parse_partial_answer("completed 1\n", hung.stage.size()).has_value());
  std::vector<PartialOutcome> runs(3);
  for (int v = 0; v < 3; ++v) runs[static_cast<std::size_t>(v)].variant = static_cast<PartialVariant>(v);
  runs[0].gpu = right;
  runs[1].gpu = none;
  runs[2].gpu = hung;
  report::Section s = last_block_partial_section(spec, runs, true);
  EXPECT_EQ(failed_count(s), 0u);
  EXPECT_NE(find_fact(s, "gpu-thread-zero-only"), nullptr);
  EXPECT_EQ(find_check(s, "thread-zero-only-as-predicted"), nullptr) << "undefined: nothing to agree with";
  runs[1].gpu = right;  // a sum written although no block can draw the last ticket
  s = last_block_partial_section(spec, runs, true);
  EXPECT_FALSE(find_check(s, "skipping-blocks-as-predicted")->passed);
  runs[2].gpu.reset();
  runs[2].problem = "killed by signal 9";
  s = last_block_partial_section(spec, runs, true);
  EXPECT_NE(std::get<std::string>(find_fact(s, "gpu-thread-zero-only")->value).find("killed by signal 9"),
            std::string::npos);
}

TEST(ThreadfenceHostObserver, OnlyTheSystemFenceForbidsTheStaleRead) {
  for (Fence f : {Fence::none, Fence::device, Fence::system}) {
    const ModelVerdict m = ptx_model(host_observer_program(f));
    EXPECT_EQ(m.allowed[static_cast<std::size_t>(outcome_index(1, 0))], f != Fence::system) << to_string(f);
    EXPECT_TRUE(m.allowed[static_cast<std::size_t>(outcome_index(1, 1))]) << to_string(f);
  }
  EXPECT_EQ(ptx_model(host_observer_program(Fence::system)).reasons[static_cast<std::size_t>(outcome_index(1, 0))],
            "causality");
  // On one GPU, __threadfence() forbids mp's stale read: the host is what makes the difference.
  LitmusSpec mp;
  mp.fence[0] = mp.fence[1] = Fence::device;
  EXPECT_FALSE(ptx_model(mp).weak_allowed(threadfence::Test::mp));
}

TEST(ThreadfenceHostObserver, TheCheckFailsOnlyOnAForbiddenStaleReadOrAWaitThatGaveUp) {
  HostObserverSpec spec;
  std::vector<HostOutcome> runs(3);
  const Fence fences[] = {Fence::none, Fence::device, Fence::system};
  for (std::size_t i = 0; i < 3; ++i) {
    runs[i].fence = fences[i];
    runs[i].gpu = HostObserverRun{};
    runs[i].gpu->rounds = 2000;
  }
  report::Section s = host_observer_section(spec, runs, true);
  EXPECT_EQ(failed_count(s), 0u) << "zero stale reads in every row is a possible result";
  runs[1].gpu->stale = 3;  // allowed with __threadfence()
  EXPECT_EQ(failed_count(host_observer_section(spec, runs, true)), 0u);
  runs[2].gpu->stale = 1;  // forbidden with __threadfence_system()
  s = host_observer_section(spec, runs, true);
  EXPECT_FALSE(find_check(s, "no-forbidden-outcome")->passed);
  runs[2].gpu->stale = 0;
  runs[0].gpu->host_gave_up = true;
  EXPECT_FALSE(find_check(host_observer_section(spec, runs, true), "no-wait-timed-out")->passed);
  EXPECT_TRUE(host_observer_section(spec, runs, false).checks.empty());
}

}  // namespace
}  // namespace cudasync::threadfence
