#pragma once
// threadfence's patterns: the two inter-block patterns of the SO Docs topic "CUDA: Inter-block
// communication" (the lastBlock guard and the WorkQueue), and the ways they break when a rule of
// theirs is ignored. The plain types both backends use, the reference model, the judges and the GPU
// entries (patterns.cu); nvcc compiles it too, so it includes only the standard library.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "techniques/threadfence/fences.hpp"

namespace cudasync::threadfence {

// ---- lastBlock: the SO Docs single-pass reduction -------------------------------------------------
// Every block sums its slice and writes partial[block]; the last block to arrive (an atomicAdd on
// a counter) sums the partials. The guards:
enum class LastBlockVariant : int {
  syncthreads_or = 0,  // SO Docs guard 1: __threadfence(); atomicAdd by thread 0; __syncthreads_or(last)
  shared_flag,         // SO Docs guard 2: the same with a __shared__ flag and __syncthreads()
  no_fence,            // guard 1 without any fence (broken)
  other_writer,        // guard 1 as SO Docs writes it, but the partial is stored by the block's last
                       // thread, and no barrier separates that store from thread 0's atomicAdd (broken)
};
inline constexpr int kLastBlockVariants = 4;

struct LastBlockSpec {
  int blocks = 264;
  int threads = 256;
  int per_thread = 8;  // elements each thread sums
  int runs = 200;      // launches, each with its own fresh counter, partials and result
  std::vector<std::uint32_t> input;  // blocks * threads * per_thread values
  long long elements() const { return static_cast<long long>(blocks) * threads * per_thread; }
};

struct LastBlockRun {
  std::vector<std::uint64_t> result;     // per run: what the last block wrote
  std::vector<std::uint32_t> counter;    // per run: the counter after the kernel (the last block resets it)
  std::vector<std::int32_t> last_block;  // per run: which block found itself last (-1: none)
};

// ---- WorkQueue: items fetched with atomicAdd, against a-priori assignment ------------------------
// Item i costs cost_units[i] * unit_cycles cycles of work for every thread of the block.
struct QueueSpec {
  int blocks = 16;
  int threads = 128;
  long long unit_cycles = 2000;
  std::vector<std::uint32_t> cost_units;
  int items() const { return static_cast<int>(cost_units.size()); }
};

struct QueueRun {
  std::vector<std::int32_t> processed_by;     // per item: the block that did it (-1: nobody)
  std::vector<std::uint32_t> times_processed; // per item
  std::vector<long long> block_cycles;        // per block: clock64 from its start to its end
  std::vector<std::int32_t> block_items;      // per block: items it did
  std::uint64_t checksum = 0;                 // sum of item_checksum(i) over the items done
  double ns_per_cycle = 0.0;
};

// ---- WorkQueue race: two fetch() calls with no __syncthreads() between them -----------------------
// Every block loops: fetch() (thread 0 takes the next index with atomicAdd and stores it in the
// __shared__ item; __syncthreads(); every thread reads the item), then each warp does its share of
// the item's work, then reads the item again through the reference fetch() returned, to file its
// result under it. Warp w's share of item i takes cost_units[i] * share[i][w] * unit_cycles cycles:
// warp 0's share is always 2, the others' 1 or 3, so some warps are still working when thread 0
// has finished, fetched the next item and stored it in the same __shared__ word.
enum class RaceVariant : int {
  no_barrier = 0,  // fetch(); work; file; fetch(); ...: what SO Docs warns against
  barrier,         // the same with a __syncthreads() after filing: the rule SO Docs gives
};
inline constexpr int kRaceVariants = 2;
inline constexpr std::uint32_t kWarpZeroShare = 2;  // the others: 1 (faster than warp 0) or 3 (slower)

struct RaceSpec {
  int blocks = 8;
  int threads = 128;  // 4 warps
  long long unit_cycles = 4000;
  int max_turns = 32;  // turns each block records (its work goes on after them, unrecorded)
  std::vector<std::uint32_t> cost_units;  // per item: 1..4
  std::vector<std::uint32_t> share;       // [item * warps() + warp]
  int warps() const { return threads / kWarpSize; }
  int items() const { return static_cast<int>(cost_units.size()); }
};

inline constexpr std::int32_t kNoItem = -1;  // fetch() found the queue empty
inline constexpr std::int32_t kNoTurn = -2;  // the block never got this far

struct RaceRun {
  std::vector<std::uint32_t> filed;    // [item * threads + thread]: results that thread filed under item
  std::vector<std::int32_t> fetched;   // [block * max_turns + turn]: what thread 0 fetched (kNoItem, kNoTurn)
  std::vector<std::int32_t> filed_by;  // [(block * max_turns + turn) * warps + warp]: lane 0's filing
};

// ---- lastBlock called by only some threads ----------------------------------------------------------
// SO Docs: "lastBlock function is invoked uniformly by all threads in all blocks". Guard 1 (with its
// acquire half) on a grid with more blocks than blocks of data, called three ways:
enum class PartialVariant : int {
  every_block = 0,   // every thread of every block calls it; a block with no data adds 0: right
  skipping_blocks,   // the blocks with no data return before it: nobody draws the last ticket
  thread_zero_only,  // if (threadIdx.x == 0) { if (lastBlock(counter)) ... } then a __syncthreads():
                     // __syncthreads_or in divergent code (runs in a child process: it may hang)
};
inline constexpr int kPartialVariants = 3;

struct PartialSpec {
  int blocks = 16;
  int data_blocks = 12;  // blocks 0 .. data_blocks - 1 have data
  int threads = 128;
  std::vector<std::uint32_t> input;  // data_blocks * threads values, one per thread
};

inline constexpr std::uint64_t kNeverWritten = ~0ull;
enum class PartialStage : int {  // where a thread of the divergent kernel was last seen
  not_started = 0,
  at_guard,        // thread 0: waiting in the guard's __syncthreads_or
  past_guard,      // thread 0: out of the guard (merged, if its block was last)
  at_barrier,      // waiting at the __syncthreads() after the if
  done,            // past it: the thread finished
};

struct PartialRun {
  bool completed = true;  // false: the kernel was still running when the watch ended (child only)
  long long watched_ms = 0;
  std::uint64_t result = kNeverWritten;
  std::uint32_t counter = 0;  // the tickets drawn (the last block does not reset it here)
  std::int32_t last_block = -1;
  std::vector<std::int32_t> stage;  // child only: [block * threads + thread], a PartialStage
};

// What processing item i adds to the checksum (a multiplicative hash: a missed or doubled item
// changes the sum).
CUDASYNC_TF_HD constexpr std::uint64_t item_checksum(std::uint32_t i) { return static_cast<std::uint64_t>(i) * 2654435761ull + 1ull; }

// ---- the reference model -----------------------------------------------------------------------------
std::vector<std::uint32_t> make_last_block_input(long long n, std::uint64_t seed);
std::uint64_t exact_sum(const std::vector<std::uint32_t>& v);
std::string to_string(LastBlockVariant v);       // "guard 1 (SO Docs): __syncthreads_or", ... (the run's language)
const char* guard_id(LastBlockVariant v);        // "syncthreads-or", ...: kebab-case, for check ids
bool guard_is_correct(LastBlockVariant v);       // the model: is the guard's result guaranteed?

// Costs in units: 1, 2, 4, ... 32 (log-uniform), seeded.
std::vector<std::uint32_t> make_costs(int items, std::uint64_t seed);

struct Schedule {
  std::vector<std::uint64_t> block_units;        // per block: units of work it did
  std::vector<std::int32_t> block_items;         // per block: items it did
  std::vector<std::int32_t> item_block;          // per item: the block that did it
  std::uint64_t makespan() const;                // the largest block_units
};
// Block b does items b, b + blocks, b + 2 blocks, ... (decided before the launch).
Schedule static_schedule(const std::vector<std::uint32_t>& costs, int blocks);
// Each block takes the next item the moment it is free (ties: the lower block), as the queue does
// when fetching costs nothing. The GPU's order may differ where two blocks are free at once.
Schedule queue_schedule(const std::vector<std::uint32_t>& costs, int blocks);
std::uint64_t checksum_of_all(int items);

// 64 items of 1..4 units; warp 0's share of each item 2, every other warp's 1 or 3 (seeded).
RaceSpec make_race_spec(std::uint64_t seed);
std::string to_string(RaceVariant v);  // "no __syncthreads()", "__syncthreads()": between two fetches (the run's language)

// What warp `warp` files in one turn: the item it worked on, or, without the barrier, for a warp
// slower than warp 0, the `next` item thread 0 stored in the same __shared__ word meanwhile (kNoItem:
// nothing is filed; kNoTurn: unknown, the log ended).
std::int32_t filed_under(const RaceSpec& spec, RaceVariant v, std::int32_t item, std::int32_t next, int warp);

// Per block, the items thread 0 fetched in order (the last kNoItem), when fetching costs nothing:
// the earliest fetch gets the next index (ties: the lower block). no_barrier: thread 0 fetches as
// soon as warp 0 is done; barrier: when the whole block is.
std::vector<std::vector<std::int32_t>> race_schedule(const RaceSpec& spec, RaceVariant v);

// Given each block's fetched items (the model's schedule or the GPU's log): how many times each
// warp's share of each item was filed, counts[item * warps + warp], and in how many (turn, warp) a
// result went under another item than the one worked on.
struct RaceCounts {
  std::vector<std::uint32_t> counts;
  std::size_t misfiled = 0;
  std::size_t unknown = 0;  // (turn, warp) the log does not cover
};
RaceCounts race_counts(const RaceSpec& spec, RaceVariant v, const std::vector<std::vector<std::int32_t>>& fetched);

struct RaceSummary {
  std::size_t portions = 0;  // items x warps
  std::size_t once = 0, lost = 0, twice = 0;
};
RaceSummary summarize_counts(const std::vector<std::uint32_t>& counts);

PartialSpec make_partial_spec(std::uint64_t seed);
std::string to_string(PartialVariant v);  // "every thread of every block", ... (the run's language)
std::uint64_t partial_sum(const PartialSpec& spec);

struct PartialPrediction {
  bool defined = true;        // false: the PTX ISA leaves the outcome undefined
  std::uint32_t tickets = 0;  // tickets drawn
  bool merged = false;        // a block drew the last ticket and wrote the sum
  std::string why;            // in the run's language
};
PartialPrediction partial_model(const PartialSpec& spec, PartialVariant v);

// ---- verdicts on what a GPU did, against the model ----------------------------------------------------
struct GuardTally {
  std::size_t runs = 0;
  std::size_t right = 0;  // the model's sum, written by a last block
  std::size_t reset = 0;  // the counter back at 0 after the kernel
  std::size_t wrong() const { return runs - right; }
};
GuardTally tally_guard(const LastBlockRun& r, std::uint64_t model_sum);

struct QueueTally {
  std::size_t items = 0;
  std::size_t once = 0;  // items processed exactly once
  bool checksum_equal = false;
  bool passed() const { return once == items && checksum_equal; }
};
QueueTally tally_queue(const QueueRun& r);
// The a-priori assignment: every item done by the block the model assigns it.
bool assignment_agrees(const QueueRun& r, const Schedule& model);
// Each block's time, clock64 cycles converted with the run's ns per cycle.
std::vector<double> block_ns(const QueueRun& r);

struct RaceTally {
  std::vector<std::uint32_t> counts;  // per (item, warp): how often the warp's lane 0 filed under the item
  RaceSummary gpu;
  std::size_t lanes_disagree = 0;  // portions whose 32 lanes filed a different number of times
  std::size_t gpu_misfiled = 0;    // (turn, warp) of the log whose result went under another item, or none
  RaceCounts model;                // the model, given the GPU's own fetch order
  RaceSummary model_summary;
  std::size_t predicted = 0;       // portions whose GPU count is the model's
  bool log_complete = true;        // every block's log reached its kNoItem
};
RaceTally tally_race(const RaceSpec& spec, RaceVariant v, const RaceRun& r);

struct PartialVerdict {
  bool as_predicted = false;  // the run is what the model predicts (every_block, skipping_blocks)
  std::string detail;
};
PartialVerdict judge_partial(const PartialSpec& spec, PartialVariant v, const PartialRun& r);
// Where the threads of the divergent kernel were last seen: "thread 0 in the guard's
// __syncthreads_or: 16 of 16 blocks; the other threads at the __syncthreads() after it: 2032 of 2032".
std::string stage_text(const PartialSpec& spec, const PartialRun& r);

// ---- the GPU side (patterns.cu) ----------------------------------------------------------------------
// spec.runs launches of the lastBlock reduction with guard `variant`.
CUDASYNC_GPU_ENTRY(LastBlockRun, gpu_last_block, (const LastBlockSpec& spec, LastBlockVariant variant))
// One launch of the WorkQueue (dynamic: items fetched with atomicAdd) or of the a-priori assignment.
CUDASYNC_GPU_ENTRY(QueueRun, gpu_queue, (const QueueSpec& spec, bool dynamic))
// One launch of the WorkQueue loop with or without the __syncthreads() between two fetch() calls.
// No thread waits for another except at __syncthreads(); the work spins on clock64, bounded.
CUDASYNC_GPU_ENTRY(RaceRun, gpu_queue_race, (const RaceSpec& spec, RaceVariant variant))
// One launch of lastBlock called every_block or skipping_blocks (never thread_zero_only: that one
// may hang, and runs in a child process through gpu_last_block_divergent).
CUDASYNC_GPU_ENTRY(PartialRun, gpu_last_block_partial, (const PartialSpec& spec, PartialVariant variant))
// Child process only: lastBlock inside if (threadIdx.x == 0). The threads write their stage into
// host-mapped memory as they go and the host watches the kernel for watch_ms. A kernel that has not
// ended by then is hung: on_hang gets what was seen (completed false) and must end the process
// without another CUDA call (every call would wait for the kernel forever).
CUDASYNC_GPU_ENTRY(PartialRun, gpu_last_block_divergent,
                   (const PartialSpec& spec, int watch_ms, const std::function<void(const PartialRun&)>& on_hang))

}  // namespace cudasync::threadfence
