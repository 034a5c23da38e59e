#pragma once
// The lockfree-barrier lesson as core runs it, and the host side of its topics: every part runs one
// barrier (barriers.cpp: the model's values and words, the verdicts, the section, the summary over
// several barriers); the model simulates each protocol step by step (steps.cpp); --bench is a sweep
// over grid sizes beside a cost model (bench.cpp); the kernels are barriers.cu.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cost/model.hpp"
#include "core/course/exercise.hpp"
#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/lockfree_barrier/barriers.hpp"

namespace cudasync::lockfree_barrier {

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

// ---- the step simulation of each protocol (steps.cpp) --------------------------------------------
// Over B blocks and S resident slots: it prints the counter or the arrays step by step and ends in a
// deadlock when B > S (or, for the transcription's code, when a block runs ahead). It steps blocks
// of a grid, not lanes: core/simt's machine starts every lane at step 1, where this one starts a
// block only when a resident slot (or room for its whole cluster) is free, and it has no launch
// boundary (relaunch), no cluster barrier and no block that runs ahead.
struct SimSpec {
  Barrier barrier = Barrier::xf_lock;
  int blocks = 4;
  int slots = 4;       // blocks that can be resident at once
  int threads = 256;   // the lock-free master checks one slot per thread in the transcription's code
  int barriers = 2;    // barriers to run through (phases - 1)
  int own_counters = 1;
  int shown_barriers = 2;  // steps are recorded for barriers 1 .. shown_barriers (and the end)
  int cluster_size = 1;    // own-cluster: blocks per cluster; a cluster starts only when all of it fits
};

struct SimStep {
  int step = 0;
  std::string blocks;  // "0-3, 5"
  std::string event;   // "arrive at barrier 1: atomicAdd(&g_mutex, 1)"
  std::string state;   // the protocol's words after the step: "g_mutex 4, goalVal 6"
};

struct SimResult {
  std::vector<SimStep> steps;
  bool completed = false;      // every block finished every phase
  bool deadlock = false;       // a step in which nothing could move, before the end
  int early_barrier = 0;       // > 0: a block passed this barrier before every block had arrived
  int early_block = -1;        // the first such block
  std::vector<int> spinning;   // at a deadlock: blocks that hold a slot and spin
  std::vector<int> waiting;    // at a deadlock: blocks that never got a slot
  std::vector<int> arrived;    // per block: barriers it arrived at
  std::vector<int> arrive_step, release_step;  // per block: the steps it arrived at and left barrier 1 (0: never)
  // Per block: the action at which it arrived at and left barrier 1 (0: never). The model takes
  // the blocks' actions one at a time (an arrival, a poll), numbered from 1 in that order: within a
  // step the blocks are served in turn, as the L2 serves atomics on one word.
  std::vector<int> arrive_action, release_action;
  int total_steps = 0;
  std::string schedule;        // how the simulation orders the blocks' actions
};

SimResult simulate(const SimSpec& s);
report::Table step_table(const SimResult& m);
std::optional<report::Table> model_timeline(const SimResult& m);  // barrier 1, block by block (--trace)

// ---- the reference model (barriers.cpp) ----------------------------------------------------------

const char* barrier_key(Barrier b);  // the part id: "xf-lockfree"
std::optional<Barrier> barrier_from_key(const std::string& key);
// In the order the report shows them.
const std::vector<Barrier>& all_barriers();

// How many counters own and own-cluster spread their arrivals over for a grid of `blocks`: one up
// to 192 blocks, two up to 1056, then one per 528 blocks (the arrivals per counter of the best
// measured point), at most 32. Measured (docs/measurements.md): one counter polled by thread 0 is
// best at 132 blocks; at 528 and 1056 blocks two counters beat one, four, eight, sixteen and 32.
int own_counters_for(int blocks);
// own-stagger's pollers per block: 4 x SMs pollers in all (so that the loads on the counters stay
// those of 4 blocks per SM), 1 to kMaxOwnPollers, at most one per warp of a block of `threads`.
// 132 blocks on 132 SMs: 4; 264: 2; 528 and 1056: 1.
int own_pollers_for(int blocks, int sm_count, int threads);
// Blocks that add to counter l of C: b = l, l + C, l + 2C, ... < blocks.
int own_share(int blocks, int counters, int l);

// The co-residency a model run assumes: an H100 (132 SMs, 32 blocks and 2048 threads per SM, 64K
// registers), for kernels of at most 32 registers per thread (ptxas -v gives the lesson's kernels
// 5 to 31 on sm_75 and sm_90; a GPU run asks the occupancy API instead).
Coresidency model_coresidency(int threads);
// The same in clusters of `cluster_size` blocks (assumed to fit wherever their blocks do).
Coresidency model_cluster_coresidency(int threads, int cluster_size);

// The cluster size own-cluster launches a grid of `blocks` with: the largest of kClusterSizes that
// divides the grid (a grid is whole clusters) and at which the grid is co-resident; when none is,
// the dividing size that fits the most blocks (its refusal then quotes the best the GPU can do).
// `by_size[i]`: the co-residency in clusters of kClusterSizes[i]. 132 blocks: 4 (132 = 33 x 4);
// 1056 blocks on a 132-SM Hopper: 2, because clusters of 4 or 8 fit only 992 (H200 measured).
int own_cluster_size(int blocks, const std::vector<Coresidency>& by_size);

// The data: the initial values, and the final ones every correct barrier must reproduce bit for bit.
std::vector<std::uint32_t> initial_values(int blocks, int threads, std::uint64_t seed);
std::vector<std::uint32_t> model_values(int blocks, int threads, int phases, std::uint64_t seed);

// What the protocol's words hold after phases - 1 barriers (empty for relaunch, graph and
// grid-sync, whose state the tool cannot read): xf-lock: {counter}; xf-lockfree: Arrayin[0..N-1]
// then Arrayout[0..N-1]; own: its counters.
std::vector<std::uint32_t> final_words(Barrier b, int blocks, int phases, int own_counters);

// "0-3, 5, 7-9"; at most `max_ranges` ranges, then ", ..." and the count.
std::string block_ranges(const std::vector<int>& blocks, std::size_t max_ranges = 6);

// ---- the verdicts (barriers.cpp): pure functions the parts only show ------------------------------

// How the step simulation ended: "completed in 7 steps", "deadlock at step 4; block 0 passed
// barrier 1 before every block had arrived".
std::string sim_outcome(const SimResult& m);
// The same as an id, what an exercise reads beside the words: "completes", "deadlocks" or "stops"
// (the simulation ran out of steps first).
const char* sim_outcome_id(const SimResult& m);
// Every block passed every barrier, and none before every block had arrived.
bool sim_passes(const SimResult& m);

// The GPU's final values against the model's.
struct ValuesVerdict {
  std::size_t compared = 0;
  std::size_t wrong = 0;
  std::size_t first_wrong = 0;  // index of the first wrong value
  bool passed() const { return compared > 0 && wrong == 0; }
  // "every value equal", or "3 differ, the first at block 1, thread 5".
  std::string detail(int threads) const;
};
// Nothing is compared when the sizes differ (or the model has no values).
ValuesVerdict judge_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model);

// What the protocol's words hold, in a few words: "g_mutex 1980", "Arrayin all 15, Arrayout
// 0..15", "counters 990 990"; "-" when there are none.
std::string words_text(Barrier b, const std::vector<std::uint32_t>& words, int blocks);

// Who reached barrier 1 on the GPU, who never did, and who gave up at the deadline.
struct Arrivals {
  std::vector<int> arrived, never, gave_up;
  // Past co-residency: the deadline ended the kernel and the blocks that never arrived are named.
  bool deadline_ended(const GpuRun& g, int blocks) const;
};
Arrivals arrivals(const GpuRun& g);

// The GPU column of the summary: "refused" (by the runtime), "deadline" (a spin gave up, or the
// grid was past co-residency) or "ran".
std::string gpu_status(const GpuRun& g, bool beyond);

// The bench's cells whose kernel reached its deadline ("own @ 1056 blocks"): a spin gave up, so the
// figure of that cell is not a barrier's.
struct BenchDeadlines {
  std::vector<std::string> hit;
  bool passed() const { return hit.empty(); }
  std::string detail() const;
};

// ---- one run of the lesson (lesson.cpp) ----------------------------------------------------------

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
// Its place in the course: lessons/lockfree-barrier/lesson.json declares every exercise, and each
// reads its answer by id from a run of the lesson (the model's simulation of Xiao & Feng's barriers:
// its g_mutex, its outcome, whether a block passed early); none needs code.
const course::LessonCourse& course();

// "8 per SM x 132 SMs; assumed: an H100, no GPU here"
std::string per_sm_text(const Coresidency& c);
// What a GPU launch of a grid of `blocks` gets: own's counters and own-cluster's cluster size chosen
// for that grid, the run's threads and deadline.
GpuSpec gpu_spec(const Run& run, int blocks, int phases);
// own-cluster's cluster size for a grid of `blocks`, and its co-residency there.
std::pair<int, Coresidency> cluster_for(int blocks, const Limits& l);

// ---- the parts (barriers.cpp) --------------------------------------------------------------------

// The part of barrier b: runs it, keeps its result in run.results and returns its section.
report::Section barrier_part(Run& run, Barrier b);
// The section of one barrier's result (the tests feed it made-up GPU runs).
report::Section barrier_section(const BarrierResult& r, const Run& run);
// Every barrier side by side, when more than one ran.
void summary_finish(Run& run, report::Report& r);
// One timeline row: 'a' at the arrival, 'r' at the release, '-' between ("x" when they share a
// column); without a release the dashes run to the end.
std::string timeline(std::int64_t arrive, std::int64_t release, std::int64_t t0, std::int64_t t1, int width);

// ---- --bench (bench.cpp) -------------------------------------------------------------------------

void bench_setup(Run& run, report::Section& s);
std::vector<report::Section> bench_sections(Run& run);

// The cost of one in-kernel barrier, term by term (cost.cpp). The time between two barriers in a
// loop is the critical path of the last block to be released: it passes its block's
// __syncthreads(), pays its release fence, sends its arrival to the L2, where it may wait behind the
// other arrivals to the same word, and the news that the last arrival has landed must reach every
// poller; then the acquire and the closing __syncthreads(). Each step is a primitive the GPU
// measures in the same run (core/cost/probe.hpp), and thread 0's part, the protocol, is measured
// whole as well: its steps slow each other down when they meet on the same words, and the
// contention term is what the whole costs beyond them.
//
//   own at 132 blocks of 256, one counter:
//     sync        2 x sync(256)                        the opening and the closing __syncthreads()
//     fence       fence-rel(132)                       red.release's MEMBAR, 132 blocks fencing at once
//     queue       max(0, queue-atomic(132) - rt-atomic)  132 same-address atomics beyond one alone
//     poll        poll-relaxed(132)                    the last arrival sent until 132 pollers have seen it
//     acquire     fence-acquire                        one fence.acquire.gpu after the poll loop
//     contention  arrive-poll-own(132) - (fence + queue + poll + acquire)
struct BarrierShape {
  int blocks = 132;
  int threads = 256;
  int counters = 1;  // own: C
  int cluster = 1;   // own-cluster: blocks per cluster
  int pollers = 1;   // own-stagger: K pollers per block
  int arity = kDefaultTreeArity;  // own-tree: children per node
};
// The primitives barrier b's formula reads, at this shape (relaunch, graph and the transcription's
// barriers have none: their time is the launch, or they are not timed).
std::vector<cost::Need> barrier_needs(Barrier b, const BarrierShape& s);
// ns per barrier, as a sum of terms (sync, fence, queue, poll, acquire, contention, scan, climb,
// cluster).
cost::Prediction predict_barrier(Barrier b, const BarrierShape& s, const cost::Primitives& p);
// The arity of kTreeArities at which own-tree's prediction at shape s is the least (s.arity is
// ignored); kDefaultTreeArity when nothing is measured.
int tree_arity_for(const BarrierShape& s, const cost::Primitives& p);

}  // namespace cudasync::lockfree_barrier
