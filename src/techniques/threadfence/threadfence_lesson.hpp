#pragma once
// The threadfence lesson as core runs it: its options, what one run shares between parts, and its
// part table. Each part is defined in the file named after it; a part's section builder takes the
// model's and the GPU's results, so tests feed it made-up GPU results.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_listing.hpp"
#include "core/parts/lesson.hpp"
#include "techniques/threadfence/threadfence_judge.hpp"

namespace cudasync::threadfence {

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
  long long iterations;  // per litmus row
};

const parts::Lesson<Options, Run>& lesson();

// ---- the parts (threadfence_<part>.cpp) -----------------------------------------------------------
report::Section litmus_part(Run& run);
report::Section scope_part(Run& run);
report::Section volatile_part(Run& run);
report::Section ptx_part(Run& run);
report::Section cost_part(Run& run);
report::Section last_block_part(Run& run);
report::Section work_queue_part(Run& run);

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

// What each fence and atomic compiled to (the probe kernels), beside seed 004's membar table.
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

}  // namespace cudasync::threadfence
