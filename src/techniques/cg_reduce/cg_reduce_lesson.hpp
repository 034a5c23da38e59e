#pragma once
// The cg-reduce lesson as core runs it: its options, what one run shares between parts (the
// inputs, their device copies, every kernel's result), and its part table: one part per rung of
// the ladder, the trace, the ladder's summary (finish) and the --bench sweep. Each part function
// is defined in the file named after it.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/cg_reduce/cg_reduce_gpu.hpp"
#include "techniques/cg_reduce/cg_reduce_judge.hpp"

namespace cudasync::cg_reduce {

// A sentence of this lesson's catalog (lessons/cg-reduce/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("cg-reduce", key, args);
}

inline constexpr std::int64_t kDefaultN = std::int64_t{1} << 24;   // 64 MiB of floats: more than an H100's L2
inline constexpr std::int64_t kMaxN = std::int64_t{1} << 30;       // the book's kernels index with int
inline constexpr std::int64_t kTraceMaxN = std::int64_t{1} << 24;  // the model replays every traced kernel
inline constexpr int kTraceMaxBlock = 256;  // the shared-tree table has one row per word
inline constexpr int kMinLog2Size = 10, kMaxLog2Size = 30;

struct Options {
  std::optional<std::int64_t> n;
  int block = 128;
  std::optional<std::string> dtype;  // default float; --bench without it sweeps both
  std::optional<int> trace_block;
  std::optional<int> trace_warp;
  std::optional<int> grid;           // the grid-sync rung's grid
  std::vector<int> sizes;            // --bench: log2 of the sizes (default 20 ... 28)
};

// The problem every part of a plain run works on.
struct Problem {
  Dtype dtype = Dtype::f32;
  std::int64_t n = 0;
  Plan plan;
  bool gpu = false;
  double reference = 0.0;  // the exact sum, rounded to fp64
  int copies = 1;          // device copies timing rotates through
  int reps = 0;            // timed calls per kernel
};

// One run's shared state. A plain run draws the input once (in its type) and, on a GPU, uploads
// it once; each rung part leaves its kernels' results in `runs`, which the ladder reads back.
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  Options options;
  const RunContext& ctx;
  bool bench = false;             // --bench: the sweep runs instead of the parts
  Problem problem;
  bool cooperative = true;        // cudaDevAttrCooperativeLaunch (assumed on the model)
  std::vector<float> xf;          // the input when problem.dtype is float
  std::vector<double> xd;         // the input when it is double
  std::shared_ptr<GpuInput> gpu;  // its device copies, on a GPU
  std::map<int, KernelRun> models;  // the model's results, by order class (rungs that share one)
  std::vector<KernelRun> runs;      // every kernel a part ran, in ladder order
};

const parts::Lesson<Options, Run>& lesson();

// The grids for `block` threads per block: the occupancy API on a GPU, an H100 assumed on the
// model; `grid` (--grid) overrides the grid-sync rung's. `cooperative`: the GPU takes cooperative
// launches (true on the model).
Plan plan_for(int block, std::optional<int> grid, const RunContext& ctx, Dtype dtype, bool& cooperative);

// Device copies of an input of `bytes` to rotate through: enough to span 4 x the L2 cache, at
// most 64, never more than half the free memory.
int rotation_copies(std::int64_t bytes, const RunContext& ctx, std::size_t free_bytes);

// The input plus the largest partial-sum array must fit in device memory: else UsageError,
// naming `what` ("--n 1000", "--bench size 2^28").
void check_device_memory(std::int64_t n, std::size_t elem, const Plan& p, std::size_t free_bytes,
                         const RunContext& ctx, const std::string& what);

// The rung (the part id, "two-pass") that runs kernel k of the ladder.
const char* rung_of(Kernel k);

// The --bench sizes (log2): --sizes sorted without repeats, or 20 ... 28.
std::vector<int> bench_sizes(std::vector<int> sizes);

// The parts, one file each (cg_reduce_<file>.cpp).
report::Section rung_part(Run& run, const std::string& rung);  // rungs: shared ... cub
report::Section trace_part(Run& run);                          // trace
void ladder_finish(Run& run, report::Report& report);          // ladder: the rungs side by side
std::vector<report::Section> bench_sweep(Run& run);            // bench: GB/s by size, x CUB

// The sections the parts build from results, apart from running them (tests feed made-up GPU
// results): one rung's kernels, and every kernel that ran side by side.
report::Section rung_section(const std::string& rung, const std::vector<KernelRun>& runs, const Problem& p);
report::Section ladder_section(const std::vector<KernelRun>& runs, const Problem& p);

}  // namespace cudasync::cg_reduce
