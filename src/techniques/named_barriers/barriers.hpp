#pragma once
// named-barriers: the sixteen hardware barriers of a block (PTX ISA 9.0, barrier{.cta}: bar.sync /
// bar.arrive / bar.red) and their modern form, cuda::barrier. This header holds what the kernels
// (barriers.cu), the reference model and the judges share: the plain structs the GPU and the model
// both fill, the GPU entries, and the model's and judges' declarations. nvcc compiles it too, so it
// includes only the standard library.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_entry.hpp"

namespace cudasync::named_barriers {

inline constexpr int kWarpSize = 32;
inline constexpr int kBarrierCount = 16;   // barriers per CTA, ids 0..15 (PTX ISA, "bar, barrier")
inline constexpr int kMaxBlockThreads = 1024;
inline constexpr int kMaxWarps = kMaxBlockThreads / kWarpSize;
// Written by the GPU into slots that were never written, so "not written" is recognisable.
inline constexpr std::int32_t kPoison = static_cast<std::int32_t>(0xABABABABu);

// ---- bar.sync with a thread count: two groups of warps, each on its own barrier ----------------
// Group g has threads[g] threads (a multiple of 32) and runs `phases` phases; each phase is
// `work_cycles[g]` cycles of work, then `bar.sync ids[g], threads[g]`. Group 1 is held before its
// first barrier until group 0 has passed all of its own.
struct GroupsSpec {
  int threads[2] = {64, 128};
  int ids[2] = {1, 2};
  int phases = 4;
  long long work_cycles[2] = {2000, 12000};
  int block_threads() const { return threads[0] + threads[1]; }
  int warps(int g) const { return threads[g] / kWarpSize; }
};

// clock64 stamps taken by lane 0 of each warp (one SM, one counter): just before each bar.sync
// and just after it. Index [warp * phases + phase].
struct GroupsTrace {
  std::vector<long long> arrive;
  std::vector<long long> leave;
  std::vector<int> passed;             // barriers each warp got through, per warp
  std::vector<int> arrivals;           // warps counted at [g * phases + phase] (atomicAdd before arriving)
  double ns_per_cycle = 0.0;           // from %globaltimer over the same kernel
  bool hold_gave_up = false;           // group 1, held until group 0 was done, stopped waiting (deadline)
};

// ---- producer / consumer with bar.arrive (the PTX ISA's example) --------------------------------
// `producers` threads write slot[p] = input[round][p], signal with bar.arrive on `ids[0]` (full),
// fetch the next value from global memory, then wait with bar.sync on `ids[1]` (empty). The
// `consumers` threads bar.sync on full, read the slots, and bar.arrive on empty. Both barriers
// count producers + consumers threads.
struct PcSpec {
  int producers = 32;
  int consumers = 32;
  int ids[2] = {1, 2};  // full, empty
  int rounds = 4;
  std::vector<std::int32_t> input;  // rounds * producers values, [round * producers + p]
  int block_threads() const { return producers + consumers; }
  int producer_warps() const { return producers / kWarpSize; }
  int consumer_warps() const { return consumers / kWarpSize; }
};

// Per warp and round, clock64 stamps of lane 0. Producers: t0 before bar.arrive(full), t1 after
// it, t2 when the next value has been fetched, t3 when bar.sync(empty) returned. Consumers: t0
// before bar.sync(full), t1 after it, t2 after reading (just before bar.arrive(empty)), t3 = t2.
inline constexpr int kPcStamps = 4;
struct PcResult {
  std::vector<std::int32_t> consumed;  // [round * producers + slot], written by the consumer that read it
  std::vector<long long> stamps;       // [(warp * rounds + round) * kPcStamps + k], warps: producers first
  double ns_per_cycle = 0.0;
};

// ---- bar.red: the three block-wide predicate reductions -----------------------------------------
// Every thread passes predicate[tid] (0/1) to __syncthreads_count/and/or and to the inline PTX
// bar.red.popc.u32 / bar.red.and.pred / bar.red.or.pred on barrier `id`; each writes what it got.
enum RedColumn : int { red_count = 0, red_and, red_or, red_ptx_popc, red_ptx_and, red_ptx_or, kRedColumns };
struct RedSpec {
  int threads = 256;
  int id = 1;
  std::vector<std::int32_t> predicate;  // one per thread
};
struct RedResult {
  std::vector<std::int32_t> values;  // [tid * kRedColumns + column]
};

// ---- misuse: a bad thread count, run so that nothing can hang -----------------------------------
// `arrive_threads` threads (whole warps) execute `bar.sync id, count` with a count that is not a
// multiple of 32 or larger than the threads that arrive. Warp w arrives `stagger_ns * w` after the
// first, so the stamps show which warps were released together. Rescue warps watch: when the
// waiters are still inside the barrier after `settle_ns`, one rescue warp executes
// `bar.arrive id, count` (32 more arrivals) and the next one watches again.
struct MisuseCase {
  int count = 48;
  int arrive_threads = 64;
  int waiting_warps() const { return (arrive_threads + kWarpSize - 1) / kWarpSize; }
  // Enough rescue arrivals for any reading of `count` (rounded up to whole warps), plus one.
  int rescue_warps() const {
    const int need = (count + kWarpSize - 1) / kWarpSize + 1;
    const int room = kMaxWarps - waiting_warps();
    return need < room ? need : room;
  }
};
struct MisuseTiming {
  long long stagger_ns = 20000;
  long long settle_ns = 2000000;
};
// What one misuse kernel observed (the child process fills it; see lesson.hpp).
// Times are %globaltimer nanoseconds after the first waiting warp arrived.
struct MisuseObservation {
  MisuseCase c;
  std::vector<long long> arrive_ns;  // per waiting warp
  std::vector<long long> leave_ns;   // per waiting warp
  std::vector<long long> rescue_ns;  // one per rescue arrival that was needed
};

// ---- early-stamp: what a clock read right after bar.sync measures --------------------------------
// `warps` warps of one block meet at a barrier `rounds` times; the last warp works `late_cycles`
// cycles before each arrival. Lane 0 of every warp stamps clock64 just before the barrier (its
// arrival), right after it (the naive stamp), and after a shared-memory load and store of its own
// word (the guarded stamp, which cannot come before the barrier completes). Index [round * warps + warp].
enum class StampBarrier : int { syncthreads = 0, named };  // __syncthreads() / bar.sync id, blockDim.x
struct StampSpec {
  int warps = 4;
  int rounds = 16;
  long long late_cycles = 20000;
  int id = 1;  // the named barrier
  int block_threads() const { return warps * kWarpSize; }
};
struct StampResult {
  std::vector<long long> arrive, naive, guarded;
  double ns_per_cycle = 0.0;
};

// ---- the GPU side (barriers.cu) ------------------------------------------------------------------
// Each function launches one block, copies what the kernel recorded back, and returns it as the
// plain structs above.
CUDASYNC_GPU_ENTRY(GroupsTrace, gpu_groups, (const GroupsSpec& spec))
// bar.arrive / bar.sync (inline PTX)
CUDASYNC_GPU_ENTRY(PcResult, gpu_producer_consumer, (const PcSpec& spec))
// cuda::barrier; compute capability 8.0+
CUDASYNC_GPU_ENTRY(PcResult, gpu_producer_consumer_cuda_barrier, (const PcSpec& spec))
CUDASYNC_GPU_ENTRY(RedResult, gpu_red, (const RedSpec& spec))
// One block of spec.warps warps, the last one late, meeting at `barrier` spec.rounds times.
CUDASYNC_GPU_ENTRY(StampResult, gpu_early_stamp, (const StampSpec& spec, StampBarrier barrier))

// Runs one misuse case. Only the misuse part's child process calls this (misuse.cpp):
// a count that is not a multiple of 32 is undefined in the PTX ISA, and whatever the hardware does
// with it must not touch the parent's CUDA context.
CUDASYNC_GPU_ENTRY(MisuseObservation, gpu_misuse, (const MisuseCase& c, int id, const MisuseTiming& timing))

// The cost of one barrier, in ns per iteration of a loop of `iterations` barriers in one block of
// `block_threads` threads (one launch, timed with %globaltimer inside the kernel).
enum class CostVariant : int {
  syncthreads = 0,     // __syncthreads(): bar.sync 0 over the whole block
  named_halves,        // each half of the block on its own barrier: bar.sync 1|2, block/2
  arrive_sync_pair,    // half arrives (bar.arrive 1), half waits (bar.sync 1), then back on barrier 2
  cuda_barrier,        // cuda::barrier<thread_scope_block>::arrive_and_wait(); compute capability 8.0+
};
inline constexpr int kCostVariants = 4;
CUDASYNC_GPU_ENTRY(double, gpu_ns_per_barrier, (CostVariant variant, int block_threads, int iterations))

// ---- the reference model (phases.cpp) ------------------------------------------------------------
// What the PTX ISA ("bar, barrier") says a block's hardware barriers do, as a barrier-phase
// simulation with arrival counts per barrier id, plus the predicate reductions of bar.red. The GPU
// is checked against it.
//
// The rules simulated: each of the 16 barriers counts arrivals; a warp arrives as a whole (32
// threads) at bar.sync, bar.red or bar.arrive; bar.sync and bar.red wait, bar.arrive does not.
// When the arrivals reach the barrier's thread count (all threads of the CTA when no count is
// given), the phase completes, the waiting warps go on, and the barrier starts a new phase.
enum class StepKind { sync, arrive, red };
struct Step {
  StepKind kind = StepKind::sync;
  int id = 0;
  int count = 0;  // threads; 0 = all threads of the CTA
};
using WarpProgram = std::vector<Step>;

// How a count that is not a multiple of 32 is read. The PTX ISA requires a multiple of the warp
// size and defines nothing else; the misuse part shows which of the two readings a GPU follows.
enum class CountRule { exact, round_up, round_down };
std::string to_string(CountRule r);  // in the run's language
// Threads a phase needs: `count` (0: the CTA, in whole warps) under `rule`.
int needed_threads(int count, int cta_threads, CountRule rule);

struct Phase {
  int id = 0;
  int index = 0;              // 0, 1, ... per barrier id
  int needed_threads = 0;
  std::vector<int> warps;     // in arrival order
  std::vector<int> waited;    // the ones that waited (bar.sync / bar.red); the rest used bar.arrive
};
struct StuckWarp {
  int warp = 0;
  int id = 0;
  int arrived_threads = 0;    // in the phase the warp waits in
  int needed_threads = 0;
};
struct Simulation {
  std::vector<Phase> phases;                // completed, in completion order
  std::array<int, kBarrierCount> completed{};  // phases completed per barrier id
  std::vector<StuckWarp> stuck;             // warps that would wait forever: empty when the block finishes
  std::vector<std::string> hazards;         // what the PTX ISA leaves undefined, seen on the way
  bool finishes() const { return stuck.empty() && hazards.empty(); }
  std::vector<const Phase*> phases_of(int id) const;
};

// Runs the warps round-robin, one step each, until all are done or none can move.
Simulation simulate(const std::vector<WarpProgram>& warps, int cta_threads, CountRule rule = CountRule::exact);

// The programs of the lesson's parts.
std::vector<WarpProgram> groups_program(const GroupsSpec& spec);
std::vector<WarpProgram> pc_program(const PcSpec& spec);
// The waiting warps of a misuse case alone (without the rescue warps).
std::vector<WarpProgram> misuse_program(const MisuseCase& c, int id);

// bar.red / __syncthreads_{count,and,or}: one result for the whole block.
struct RedTotals {
  std::int32_t count = 0;  // threads whose predicate is non-zero
  std::int32_t all = 0;    // 1 if every thread's is
  std::int32_t any = 0;    // 1 if some thread's is
};
RedTotals model_red(const std::vector<std::int32_t>& predicate);

// What each consumer read: consumed[round * producers + slot] = input[round * producers + slot].
std::vector<std::int32_t> model_consumed(const PcSpec& spec);
// Which consumer thread reads slot `slot`: slot % consumers (a consumer past the last slot reads none).
inline int reader_of(int slot, int consumers) { return slot % consumers; }

// A misuse run as the model predicts it under `rule`: phases (sizes, in warps) in arrival order,
// and how many rescue arrivals (32 threads each) release every stuck warp.
struct MisusePrediction {
  CountRule rule = CountRule::exact;
  std::vector<int> phase_sizes;  // warps released together, in the order the phases complete
  int rescues = 0;               // bar.arrive of the rescue warps needed to release the rest
  bool hangs_without_rescue() const { return rescues > 0; }
};
MisusePrediction predict_misuse(const MisuseCase& c, CountRule rule);

// ---- verdicts on what a GPU recorded, against the model and the barrier rules ---------------------
// Pure functions, tested directly (tests/techniques/named_barriers/named_barriers_judge_test.cpp).
// "8 phases complete; no warp is left waiting", the first hazard, or the first stuck warp.
std::string simulation_detail(const Simulation& sim);

// bar-sync:
// One row of the model's phase table as the GPU saw it. Cycles count from the first arrival.
struct GroupsPhase {
  int gpu_warps = 0;          // warps the GPU counted arriving (atomicAdd before bar.sync)
  long long last_in = 0;      // the last warp of the group arriving
  long long first_out = 0;    // the first warp of the group released
  bool agrees = true;         // gpu_warps equals the model's and first_out >= last_in
};
struct GroupsVerdict {
  long long origin = 0;              // the first arrival, the zero of every cycle below
  std::vector<GroupsPhase> phases;   // one per sim.phases row
  std::vector<int> bad_counts;       // rows whose arrivals differ from the model's
  std::vector<int> bad_order;        // rows where a warp left before the last one arrived
  std::vector<int> short_passed;     // warps that passed fewer barriers than there are phases
  long long group0_done = 0;         // group 0 left its last phase
  long long group1_first = 0;        // group 1 arrived at its first barrier
  bool independent = false;          // group 0 was done before group 1 arrived, and the hold never gave up
  bool agrees() const { return bad_counts.empty() && short_passed.empty(); }
};
GroupsVerdict judge_groups(const GroupsSpec& spec, const Simulation& sim, const GroupsTrace& gpu);

// producer-consumer, cuda-barrier:
// Per round, how many consumed values equal the produced ones.
struct RoundsVerdict {
  std::vector<int> equal;      // per round
  std::vector<int> bad_rounds;
  int equal_total = 0;
  bool passed() const { return bad_rounds.empty(); }
};
RoundsVerdict judge_rounds(const PcSpec& spec, const std::vector<std::int32_t>& consumed);

// What the stamps of a producer/consumer run show.
struct PcTiming {
  std::vector<int> bad_full_rounds;   // a consumer left `full` before the last producer arrived
  std::vector<int> bad_empty_rounds;  // a producer left `empty` before the last consumer read
  long long arrive_cycles = 0;        // median: producer signal, t1 - t0
  long long full_wait_cycles = 0;     // median: consumer wait on full, t1 - t0
  long long empty_wait_cycles = 0;    // median: producer wait on empty, t3 - t2
  bool consumers_waited() const { return bad_full_rounds.empty(); }
  bool producers_waited() const { return bad_empty_rounds.empty(); }
};
// Stamp k of `warp` in `round` (layout: PcResult).
long long pc_stamp(const PcSpec& spec, const PcResult& r, int warp, int round, int k);
PcTiming pc_timing(const PcSpec& spec, const PcResult& r);

// bar-red:
// Per RedColumn, the value every thread received (nullopt: threads disagree); the columns that do
// not match the model. __syncthreads_and/or promise only non-zero for true: compared as truth values.
struct RedVerdict {
  std::vector<std::optional<std::int32_t>> values;
  std::vector<int> bad_columns;
  bool passed() const { return bad_columns.empty(); }
};
RedVerdict judge_red(int threads, const RedTotals& model, const RedResult& gpu);

// listing:
// The opcodes (prefixes) a kernel must compile to on SASS arch sm_<sm>.
struct OpcodeExpectation {
  std::string kernel;
  std::vector<std::string> opcodes;
};
std::vector<OpcodeExpectation> listing_expectations(int sm);

// early-stamp:
// The stamps of the warps that waited (every warp but the last to arrive, each round), in cycles
// after the last arrival of their round: negative means before it, so before the barrier completed.
struct StampVerdict {
  int samples = 0;
  int naive_before = 0;        // naive stamps taken before the last warp arrived
  int guarded_before = 0;      // guarded stamps before it: what the PTX ISA rules out
  long long naive_median = 0, naive_earliest = 0, guarded_median = 0;
  std::vector<int> bad_rounds;  // rounds with a guarded stamp before the last arrival
  bool guarded_waited() const { return samples > 0 && guarded_before == 0; }
};
StampVerdict judge_stamps(const StampSpec& spec, const StampResult& r);
// What the naive stamps show: "came back before the barrier completed in 48 of 48 waits, a median of
// 9,871 cycles early", or that they waited.
std::string stamp_finding(const StampVerdict& v);

// misuse:
// Warps released together, in the order they arrived (warp indices), from the observed times: a
// warp joins the group of the warp before it when it arrived before that warp left.
std::vector<std::vector<int>> observed_phases(const MisuseObservation& o);
// What released `warp`: 0 for its own phase completing, k for rescue arrival k (1-based).
int released_by(const MisuseObservation& o, std::size_t warp);
// The prediction the observation matches (phase sizes and rescue arrivals), or nullopt.
std::optional<MisusePrediction> matched_prediction(const std::vector<MisusePrediction>& predictions,
                                                   const MisuseObservation& o);

}  // namespace cudasync::named_barriers
