#pragma once
// The lockfree-barrier lesson as core runs it: its options, what one run shares between parts, and
// its part table. Every part runs one barrier (lockfree_barrier_part.cpp); the summary over several
// barriers is the table's finish (lockfree_barrier_summary.cpp); --bench is a sweep over grid sizes
// (lockfree_barrier_bench.cpp); the model's step table and the GPU's timeline are drawn in
// lockfree_barrier_trace.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/coresidency.hpp"
#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_step_model.hpp"

namespace cudasync::lockfree_barrier {

struct GpuSpec;

// A sentence of this lesson's catalog (lessons/lockfree-barrier/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("lockfree-barrier", key, args);
}

inline constexpr int kDefaultThreads = 256;
inline constexpr int kDefaultPhases = 16;
inline constexpr int kMaxPhases = 100000;
inline constexpr int kMaxBlocks = 65536;
inline constexpr std::int64_t kMaxValues = std::int64_t{1} << 24;  // blocks x threads: the model replays every value
inline constexpr int kTraceDefaultBlocks = 16;
inline constexpr int kTraceMaxBlocks = 64;  // one timeline row per block
inline constexpr int kDefaultDeadlineMs = 100;
inline constexpr int kMaxDeadlineMs = 10000;
inline constexpr int kModelSmCount = 132;
inline constexpr int kTimingReps = 5;  // samples of the time per barrier in a run of the parts

struct Options {
  std::optional<int> blocks;  // default: one per SM (16 with --trace)
  int threads = kDefaultThreads;
  std::optional<int> phases;  // default kDefaultPhases
  bool trace = false;
  bool allow_unsafe = false;
  int deadline_ms = kDefaultDeadlineMs;
};

// What a launch may hold at once: the GPU's occupancy API, or an assumed H100 on the model.
struct Limits {
  Coresidency software, cooperative;
  Coresidency candidates;             // the bench's own candidates (at most `software`)
  bool cooperative_launch = true;
  std::string cluster_unsupported;    // non-empty: own-cluster cannot run on this GPU, and why
  std::vector<Coresidency> clusters;  // in clusters of kClusterSizes[i]
};

// The resolved inputs of a run of the parts.
struct Setup {
  int blocks = 132;
  int threads = 256;
  int phases = 16;
  Coresidency software;     // what a software barrier may use
  Coresidency cooperative;  // what cudaLaunchCooperativeKernel accepts
  Coresidency cluster;      // own-cluster: what fits at once in clusters of cluster_size
  int cluster_size = 1;
  int own_counters = 1;
  double timer_step_ns = 0;  // %globaltimer's step on this GPU (0: unknown)
  bool beyond() const { return blocks > software.limit(); }
  // The resident slots barrier b's model simulates, and whether the grid is past them.
  int limit_of(Barrier b) const {
    return b == Barrier::grid_sync ? cooperative.limit() : uses_clusters(b) ? cluster.limit() : software.limit();
  }
  bool beyond(Barrier b) const {
    return needs_coresidency(b) && blocks > (uses_clusters(b) ? cluster.limit() : software.limit());
  }
};

// One barrier of a run, kept for the summary.
struct BarrierResult {
  Barrier barrier = Barrier::relaunch;
  SimResult sim;                           // the model's step simulation
  std::vector<std::uint32_t> model_words;  // final_words(): empty where the tool cannot read them
  std::optional<GpuRun> gpu;               // a GPU run
  std::optional<std::string> waived;       // this GPU cannot run it: why
};

// One run's shared state: the inputs, the model's values every barrier must leave, and each
// barrier's result as its part ran (read by the summary).
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Options options;
  Limits limits;
  Setup s;
  bool bench = false;
  std::vector<std::uint32_t> want;  // the model's final values (empty when no barrier can run the grid)
  std::vector<std::uint32_t> x0;    // the initial values, on a GPU
  std::vector<BarrierResult> results;
};

const parts::Lesson<Options, Run>& lesson();
// --predict: the parts whose outcome a student predicts before the run (lockfree_barrier_prediction.cpp).
std::vector<parts::Prediction> predictions();

// "8 per SM x 132 SMs; assumed: an H100, no GPU here"
std::string per_sm_text(const Coresidency& c);
// What a GPU launch of a grid of `blocks` gets: own's counters and own-cluster's cluster size chosen
// for that grid, the run's threads and deadline.
GpuSpec gpu_spec(const Run& run, int blocks, int phases);
// own-cluster's cluster size for a grid of `blocks`, and its co-residency there.
std::pair<int, Coresidency> cluster_for(int blocks, const Limits& l);

// The part of barrier b (lockfree_barrier_part.cpp): runs it, keeps its result in run.results and
// returns its section.
report::Section barrier_part(Run& run, Barrier b);
// The section of one barrier's result (the tests feed it made-up GPU runs).
report::Section barrier_section(const BarrierResult& r, const Run& run);
// Every barrier side by side, when more than one ran (lockfree_barrier_summary.cpp).
void summary_finish(Run& run, report::Report& r);
// --bench (lockfree_barrier_bench.cpp): its setup facts and its sweep.
void bench_setup(Run& run, report::Section& s);
std::vector<report::Section> bench_sections(Run& run);

// lockfree_barrier_trace.cpp: the model's steps, and barrier 1 on the GPU block by block.
report::Table step_table(const SimResult& m);
std::optional<report::Table> model_timeline(const SimResult& m);  // barrier 1, block by block (--trace)
report::Table trace_table(const GpuRun& g, double timer_step_ns);
// One timeline row: 'a' at the arrival, 'r' at the release, '-' between ("x" when they share a
// column); without a release the dashes run to the end.
std::string timeline(std::int64_t arrive, std::int64_t release, std::int64_t t0, std::int64_t t1, int width);

}  // namespace cudasync::lockfree_barrier
