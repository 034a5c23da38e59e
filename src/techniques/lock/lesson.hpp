#pragma once
// The lock lesson as core runs it: its options, what one run shares between parts, the part table,
// the verdicts the parts share, and each part's data and section. A part function gathers the
// model's and the GPU's results into its struct; the section builder turns a struct into the
// report, so tests can feed it made-up GPU results. The topics: spin_lock.cpp (lock-class,
// warp-deadlock, thread-lock), stale_reads.cpp (stale-reads, delay-fix), ownership.* (copy-destructor,
// shared-mutex), combining.cpp, bench.cpp (--bench and its cost model); model.* is the reference
// model, locks.* the kernels.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/child_process.hpp"
#include "core/cost/model.hpp"
#include "core/course/exercise.hpp"
#include "core/parts/lesson.hpp"
#include "techniques/lock/locks.hpp"
#include "techniques/lock/model.hpp"
#include "techniques/lock/ownership.hpp"

namespace cudasync::lock {

// Defaults of each part (the blog's own shapes where it has one).
inline constexpr int kClassBlocks = 132, kClassIters = 100;  // kernel<<<N, 1>>>, N = an H100's SMs
inline constexpr int kWarpIters = 10;                        // <<<1, 32>>> and <<<1, 128>>>
inline constexpr int kStaleBlocks = 132, kStaleIters = 50, kStaleRuns = 4;
inline constexpr int kThreadLockBlocks = 4, kThreadLockThreads = 128, kThreadLockIters = 20;  // <<<4, 128>>>
inline constexpr int kCombiningBlocks = 132, kCombiningThreads = 1, kCombiningIters = 100;  // part 1's grid
inline constexpr int kDelayBlocks = 132, kDelayIters = 20, kDelayRuns = 2;
inline const std::vector<int> kDefaultDelaysNs = {1000, 10000};  // 1 us and 10 us
inline constexpr int kSharedBlocks = 128, kSharedIters = 10;  // the blog's GtThrCntKernel<<<128, 1>>>
inline constexpr int kMaxRuns = 100;
// Lock handoffs per launch in --bench (each lock's iterations adjust to its thread count).
inline constexpr long long kBenchUpdates = 16384;
inline constexpr int kTimedReps = 5;   // launches timed per part in a plain run
inline constexpr int kTraceLanes = 4;  // lanes (or blocks) in a model trace
inline constexpr int kTraceRows = 40;
inline constexpr auto kCopyChildTimeout = std::chrono::milliseconds(20000);

struct Options {
  std::optional<int> blocks;      // lock-class, stale-reads, delay-fix, thread-lock, combining
  std::optional<int> threads;     // warp-deadlock, thread-lock, combining
  std::optional<int> iterations;  // acquisitions per thread, every part that launches a lock
  std::optional<int> runs;        // stale-reads, delay-fix: launches per variant
  std::optional<std::vector<int>> delays;  // delay-fix: the delays tried, ns
  std::optional<std::string> model;  // lockstep | independent: the scheduler of the model's runs
};

// One run's shared state: the options, the schedulers the model runs, this build's SASS, and the
// copy-destructor part's child, started first so that it runs while the other parts do.
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Options options;
  std::string arch;  // the SASS shown ("sm_90"), "" when the build has none
  std::vector<Regime> trace_regimes;  // the schedulers of every trace the selected parts show
  std::unique_ptr<ChildProcess> copy_child;
  std::optional<CopyOutcome> copy_start_failed;

  // The schedulers the model runs and checks: --model's, else both.
  std::vector<Regime> checked() const;
  bool checks(Regime r) const;
  // The SASS of this lesson's kernel `kernel` for `arch`, from this build's listing (empty when none).
  std::vector<std::string> sass(const std::string& kernel) const;
  // The schedulers of a part's traces: --model's, else `fallback` (both when empty).
  std::vector<Regime> traced(std::vector<Regime> fallback) const;
};

const parts::Lesson<Options, Run>& lesson();
// lock's place in the course: lessons/lock/lesson.json declares every exercise, and each reads its
// answer by id from a run of the lesson; none needs code.
const course::LessonCourse& course();

// ---- names --------------------------------------------------------------------------------------
std::string variant_name(Variant v);  // "fix 2: __threadfence() in lock() and unlock()"
std::string bench_name(Variant v);    // the same kernels named as locks: "CAS lock (atomicCAS, ...)"
const char* bench_id(Variant v);      // "cas", "ticket", "warp-aggregated"
const char* kernel_name(Variant v);   // "fenced_kernel"
// A model run of protocol `p` under `r` at blocks x threads x iterations, `trace_rows` kept.
SimResult sim(Protocol p, Regime r, int blocks, int threads, int iterations, int trace_rows = 0);

// ---- verdicts the parts share (lesson.cpp) ------------------------------------------------------
struct Verdict {
  bool passed = false;
  std::string detail;
};

std::string grid_text(int blocks, int threads);  // "<<<132, 1>>>"
std::string grid_id(int blocks, int threads);    // "132x1": a kebab-case id

// "2 threads gave up at their deadline; blocks still spinning: 17, 40 (completed 13000 of 13200
// acquisitions)"
std::string stuck_text(const LockRun& r);
std::string count_text(long long count, long long expected);  // "320 of 320 (exact)"
// The launches' ns per acquisition; launches that timed out are left out (a stuck launch is not a time).
std::vector<double> ns_samples(const std::vector<LockRun>& runs);
// The same for the empty-section launches timed after them (RunSpec::handoff_too).
std::vector<double> handoff_ns_samples(const std::vector<LockRun>& runs);
bool any_timed_out(const std::vector<LockRun>& runs);

// Passes when every launch completed with its exact count (and, for the combining lock, every answer
// 0 .. n-1 once); the detail names the first launch that did not.
Verdict runs_exact(const std::vector<LockRun>& runs);
// The first launch's problem as "<where>: ..." ("" when every launch is exact): the bench's cells.
std::string first_problem(const std::vector<LockRun>& runs, const std::string& where);

// Updates lost over several launches (expected - count), and how many launches lost any.
struct Lost {
  long long lost = 0, total = 0;
  long long losing = 0;
  bool stuck = false;  // a launch timed out: its count says nothing about stale reads
};
Lost lost_updates(const std::vector<LockRun>& runs);

// "completes in 12 steps, count 8 of 8 (exact)", "deadlock: the state after step 4 is the state
// after step 2", "undecided after 200000 steps".
std::string model_outcome_text(const SimResult& r);

// warp-deadlock: in lockstep the lane that takes the lock waits at the spin loop's exit for the
// lanes still spinning; a warp of one lane has no other lane, so it cannot deadlock.
bool lockstep_deadlocks(int threads);
// The model's lockstep run of lock() / unlock() against that expectation.
Verdict lockstep_verdict(const SimResult& lockstep);

// combining: critical sections per lock handoff of each launch that completed.
std::vector<double> per_handoff(const std::vector<LockRun>& runs);
// Its time per critical section over the CAS lock's time per handoff (medians), when both ran.
std::optional<double> combining_ratio(const std::vector<LockRun>& combining, const std::vector<LockRun>& cas);

// ---- delay-fix (stale_reads.cpp) ----------------------------------------------------------------
// The blog's delay beside the real fixes: the updates the delayed rows lost together, the longest
// delay that still lost one (0: none lost), and whether every launch of every real fix was exact.
std::string delay_text(unsigned ns);  // "100 ns", "10 us", "1 ms"
struct DelayRuns {
  unsigned delay_ns = 0;
  std::vector<LockRun> runs;
};
struct DelayFinding {
  Lost lost;
  unsigned longest_losing = 0;
  bool fixes_exact = false;
};
DelayFinding delay_finding(const std::vector<DelayRuns>& delayed, const std::vector<std::vector<LockRun>>& fixes);
// "with a delay of up to 10 us the book's lock still lost 5200 of 10560 updates; the fences lost
// none", or what a run with no loss means.
std::string delay_verdict(const DelayFinding& f);
// The waiting --part delay-fix would do, in ns: runs x blocks x iterations x every delay, twice
// (after the increment and before the load). Over kMaxDelayWaitNs it is refused.
inline constexpr long long kMaxDelayWaitNs = 4000000000LL;  // 4 s
inline constexpr int kMaxDelayNs = 1000000;                 // 1 ms per critical section
std::optional<std::string> delay_budget_error(const std::vector<int>& delays_ns, int runs, int blocks, int iterations);

// ---- shared-mutex (ownership.cpp) ---------------------------------------------------------------
// Every launch counted exactly and nobody gave up.
Verdict shared_mutex_counts(const SharedMutexRun& r);
// The mutex was a device allocation after every launch (nothing freed it while a lock used it).
Verdict shared_mutex_alive(const SharedMutexRun& r);
// ~Mutex ran once, when no CudaKernelLock was left, and its cudaFree succeeded: what the ownership
// model says the fix does.
Verdict shared_mutex_frees_once(const SharedMutexRun& r, const OwnershipRun& model);

// The usage error when one launch of `part` would make more than kMaxAcquisitions acquisitions.
std::optional<std::string> acquisitions_error(const std::string& part, int blocks, int threads, int iterations);
// stale-reads: 4 runs of each variant, fewer when one launch is big (about a million acquisitions
// per variant at most), so that --blocks 132 --iterations 10000 takes seconds, not minutes.
int stale_runs(std::optional<int> runs, int blocks, int iterations);

// ---- lock-class ---------------------------------------------------------------------------------
struct ClassPart {
  RunSpec spec;                  // book_atomic_add; the plain runs use the same grid
  SimResult model, model_plain;  // a few blocks, independent threads
  std::vector<LockRun> gpu;      // atomicAdd, one per timed launch
  std::vector<LockRun> gpu_plain;
};
report::Section lock_class_section(const ClassPart& p, bool gpu_run);
report::Section lock_class_part(Run& run);

// ---- warp-deadlock: one case per block size -----------------------------------------------------
struct WarpCase {
  RunSpec spec;
  std::optional<SimResult> lockstep, independent;  // the model at the case's size, one iteration
  std::optional<LockRun> gpu;
};
struct WarpPart {
  std::vector<Regime> checked = {Regime::lockstep, Regime::independent};  // the model's schedulers (--model)
  std::vector<WarpCase> cases;
  std::vector<SimResult> traces;
  std::string sass_note;  // what the lock kernel's spin compiled to, when the listing has it
};
report::Section warp_deadlock_section(const WarpPart& p, bool gpu_run);
report::Section warp_deadlock_part(Run& run);

// ---- stale-reads and delay-fix: updates the book's lock loses, its fixes and the blog's delay ---
struct LossRow {
  Variant variant;                    // stale-reads: book and the fixes; delay-fix: with the delays too
  unsigned delay_ns = 0;              // delay_after, delay_before
  SimResult model;                    // two blocks, two iterations, independent
  std::vector<LockRun> gpu;           // one per run
  std::vector<std::string> compiled;  // stale-reads: the kernel's fence and cache instructions (SASS), if listed
};
struct LossPart {
  RunSpec spec;  // blocks, iterations (variant and delay per row)
  int runs = 4;
  std::vector<LossRow> rows;
  SimResult trace;                    // the model's run of the blog's code (with its delay), step by step
  std::string arch;                   // stale-reads: the SASS shown ("sm_90"), "" when none
  std::optional<SimResult> lockstep;  // delay-fix: the same lock() with the delay in one lockstep warp
};
using StaleRow = LossRow;
using StalePart = LossPart;
using DelayRow = LossRow;
using DelayPart = LossPart;
report::Section stale_reads_section(const StalePart& p, bool gpu_run);
report::Section stale_reads_part(Run& run);
report::Section delay_fix_section(const DelayPart& p, bool gpu_run);
report::Section delay_fix_part(Run& run);

// ---- copy-destructor ----------------------------------------------------------------------------
struct CopyPart {
  std::optional<CopyOutcome> child;
  std::vector<FixRun> fixes;
  std::string fixes_error;  // when the fixes could not run
};
report::Section copy_destructor_section(const CopyPart& p, bool gpu_run);
report::Section copy_destructor_part(Run& run);
std::string copy_child(Run& run);  // the child mode "copy": the blog's callKernel(), one answer

// ---- shared-mutex: the blog's fix 2, a Mutex class held by std::shared_ptr ----------------------
struct SharedMutexPart {
  int blocks = kSharedBlocks, iters = kSharedIters;
  OwnershipRun by_value, shared;      // the ownership model of both ways of holding the mutex
  std::optional<SharedMutexRun> gpu;
  std::string gpu_error;              // when the GPU run failed
};
report::Section shared_mutex_section(const SharedMutexPart& p, bool gpu_run);
report::Section shared_mutex_part(Run& run);

// ---- thread-lock --------------------------------------------------------------------------------
struct ThreadLockPart {
  RunSpec spec;
  std::optional<SimResult> lockstep, independent;  // one warp, the model
  std::vector<SimResult> traces;
  std::vector<LockRun> gpu;
};
report::Section thread_lock_section(const ThreadLockPart& p, bool gpu_run);
report::Section thread_lock_part(Run& run);

// ---- combining, beyond the blog: the combining lock, and the CAS lock at the same grid ----------
struct CombiningPart {
  RunSpec spec;                   // combining
  std::optional<SimResult> lockstep;  // the model: one warp of 32 lanes in lockstep
  SimResult model;                // the model: the traces' shape (independent unless --model lockstep)
  std::vector<SimResult> traces;
  std::vector<LockRun> gpu;       // combining, one per timed launch
  RunSpec cas{Variant::fenced, 0, 0, 0};  // the CAS lock at the same grid; iters 0: not run
  std::vector<LockRun> gpu_cas;   // one per timed launch
};
report::Section combining_section(const CombiningPart& p, bool gpu_run);
report::Section combining_part(Run& run);

// ---- --bench: every lock at every contention level ----------------------------------------------
struct BenchConfig {
  int blocks = 1;
  int threads = 1;
  int iters = 1;
};
struct BenchPart {
  std::vector<Variant> locks;        // rows, the CAS lock (Variant::fenced) among them
  std::vector<BenchConfig> configs;  // columns
  std::vector<std::vector<LockRun>> gpu;  // [lock * configs + config]: one per repetition
  std::vector<SimResult> verdicts;   // the model: each lock in one warp, lockstep and independent
  int reps = 0;
  cost::Primitives primitives;       // the cost model's, measured in the same run (empty on the model)
};

// The cost of one update (--bench), term by term: the lock's handoff plus its critical section.
// The handoff is the lock's protocol with nothing between taking and releasing, measured whole
// (handoff-<lock>: its own kernel, the same grid); its parts are measured apart under the same
// waiters (core/cost/probe.hpp, Background), and the contention is what the whole costs beyond
// them (negative: they overlap). The parts: the taker's atomic behind the waiters' (take), its
// acquire or fence, the release; a lock whose waiters poll first adds detect, the combining lock
// its scan of the slots and an answer stored per request (serve). The section is the counter's
// load from the L2 (load), under the same waiters:
//
//   the CAS lock at <<<132, 1>>> (waiters: 131 threads spinning with atomicCAS):
//     take        cas-round-under-cas(132x1)        one CAS on the lock word behind the waiters'
//     fence       fence-sc-under-cas(132x1)         __threadfence() after taking
//     release     store-fence-sc-under-cas(132x1)   a store, __threadfence() waits for it, atomicExch
//     contention  handoff-cas(132x1) - (take + fence + release)
//     load        load-under-cas(132x1)             *cnt from the L2 (the fence dropped the L1)
enum class LockDesign : int {
  book = 0,         // atomicCAS / atomicExch, no fence: the critical section hits the L1 (not correct)
  fenced,           // the CAS lock: __threadfence() after taking and before releasing
  acq_rel,          // compare_exchange(acquire), store(release)
  ttas,             // relaxed polls, compare_exchange(acquire) when the word reads 0, store(release)
  ttas_same_line,   // the same, the counter in the lock word's line
  backoff,          // acq_rel with __nanosleep back-off after a failed try
  ticket,           // fetch_add a ticket, acquire polls of `serving`, sleeping by distance
  warp_aggregated,  // one lane per warp takes the lock for the warp's updates
  combining,        // flat combining: the holder serves every published request
};

Variant variant_of(LockDesign d);  // the kernel that runs it
// The waiters a lock's primitives are measured under.
cost::Background lock_background(LockDesign d, int blocks, int threads);
std::vector<cost::Need> lock_needs(LockDesign d, int blocks, int threads);
// ns per update (for most locks one handoff; warp-aggregated and combining divide a handoff among
// the updates it carries).
cost::Prediction predict_lock(LockDesign d, int blocks, int threads, const cost::Primitives& p);

report::Section bench_section(const BenchPart& p, bool gpu_run);
std::vector<report::Section> bench(Run& run);

}  // namespace cudasync::lock
