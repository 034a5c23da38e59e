#pragma once
// The threadfence lesson as core runs it: its options, what one run shares between parts, its part
// table and its course. The parts live in their topic's file (litmus.cpp, cost.cpp, patterns.cpp); a
// part's section builder takes the model's and the GPU's results, so tests feed it made-up GPU results.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/course/exercise.hpp"
#include "core/kernel_listing.hpp"
#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/threadfence/fences.hpp"
#include "techniques/threadfence/patterns.hpp"

namespace cudasync::threadfence {

// A sentence of this lesson's catalog (lessons/threadfence/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("threadfence", key, args);
}

inline constexpr long long kDefaultIterations = 200000;  // per litmus row: the default run stays < 1 s
inline constexpr long long kBenchIterations = 1000000;   // per row under --bench
inline constexpr long long kMaxIterations = 100000000;   // per row

struct Options {
  std::vector<std::string> tests;     // empty: mp, sb, lb, corr
  std::vector<std::string> fence;     // empty: the matrix; one name (both sides) or two (side 0, side 1)
  std::string access = "plain";       // or volatile
  std::string placement = "different-blocks";  // or same-block
  std::optional<long long> iterations;
};

struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Options options;
  long long iterations;   // per litmus row
  std::string child_out;  // a child mode's answer file (--child-out)
};

const parts::Lesson<Options, Run>& lesson();
// Its place in the course: lessons/threadfence/lesson.json declares every exercise, and each reads
// its answer by id from a run of the lesson; none needs code.
const course::LessonCourse& course();

// ---- the parts -------------------------------------------------------------------------------------
report::Section litmus_part(Run& run);
report::Section scope_part(Run& run);
report::Section volatile_part(Run& run);
report::Section ptx_part(Run& run);
report::Section cost_part(Run& run);
report::Section last_block_part(Run& run);
report::Section work_queue_part(Run& run);
report::Section work_queue_race_part(Run& run);
report::Section last_block_partial_part(Run& run);
report::Section host_observer_part(Run& run);
// The child mode last-block-divergent: lastBlock inside if (threadIdx.x == 0), watched.
std::string last_block_divergent_child(Run& run);

// The litmus rows --test and --fence choose (the whole matrix without them), not yet run.
std::vector<LitmusRow> litmus_rows(const Options& o, long long iterations);
// The test x fence matrix (or what --test / --fence chose).
report::Section litmus_section(const std::vector<LitmusRow>& rows, bool gpu_run);
// mp with and without fences, producer and consumer in one block or in two.
report::Section scope_section(const std::vector<LitmusRow>& rows, bool gpu_run);
// volatile orders nothing; a plain load may never see the flag.
report::Section volatile_section(const std::vector<LitmusRow>& rows, bool gpu_run);

// The fence-cost loops as a sweep: each variant in each shape, measured by `measure` (gpu_cost_ns
// on a GPU; tests give made-up samples), beside the store alone and one L2 round trip.
using CostMeasure = std::function<std::vector<double>(CostVariant, CostShape)>;
report::Section cost_section(const CostMeasure& measure, bool gpu_run, int iterations, bool bench);

// What each fence and atomic compiled to (the probe kernels), beside the PTX ISA's membar levels.
report::Section ptx_section(const KernelListing& listing, const std::string& arch);

struct LastBlockOutcome {
  LastBlockVariant variant = LastBlockVariant::syncthreads_or;
  std::optional<LastBlockRun> gpu;
};
report::Section last_block_section(const LastBlockSpec& spec, std::uint64_t model_sum,
                                   const std::vector<LastBlockOutcome>& runs, bool gpu_run);

struct QueueOutcome {
  std::optional<QueueRun> a_priori;  // the static assignment
  std::optional<QueueRun> queue;     // the WorkQueue
};
report::Section work_queue_section(const QueueSpec& spec, const QueueOutcome& gpu, bool gpu_run);

struct RaceOutcome {
  RaceVariant variant = RaceVariant::no_barrier;
  std::optional<RaceRun> gpu;
};
report::Section work_queue_race_section(const RaceSpec& spec, const std::vector<RaceOutcome>& runs, bool gpu_run);

struct PartialOutcome {
  PartialVariant variant = PartialVariant::every_block;
  std::optional<PartialRun> gpu;
  std::string problem;  // on a GPU, without gpu: why the run gave no answer (the child's failure)
};
report::Section last_block_partial_section(const PartialSpec& spec, const std::vector<PartialOutcome>& runs,
                                           bool gpu_run);
// The child's answer, and reading it back (nullopt: not an answer for `threads_total` threads).
std::string format_partial_answer(const PartialRun& r);
std::optional<PartialRun> parse_partial_answer(const std::string& text, std::size_t threads_total);

struct HostOutcome {
  Fence fence = Fence::none;
  std::optional<HostObserverRun> gpu;
};
report::Section host_observer_section(const HostObserverSpec& spec, const std::vector<HostOutcome>& runs, bool gpu_run);

}  // namespace cudasync::threadfence
