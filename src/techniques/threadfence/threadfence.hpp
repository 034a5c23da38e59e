#pragma once
// threadfence: what a fence does. Litmus tests run as many concurrent instances on the GPU, the
// fences and atomics down to PTX and SASS, what a fence costs, the two inter-block patterns of the
// SO Docs topic "CUDA: Inter-block communication" (the lastBlock guard and the WorkQueue) with the
// ways they break, and a host thread watching the GPU through mapped memory. This header holds the
// plain types both backends use; nvcc compiles it too, so it includes only the standard library.
#include <cstdint>
#include <vector>

// Functions both the kernels and the host call.
#if defined(__CUDACC__)
#define CUDASYNC_TF_HD __host__ __device__
#else
#define CUDASYNC_TF_HD
#endif

namespace cudasync::threadfence {

inline constexpr int kWarpSize = 32;

// ---- litmus tests ---------------------------------------------------------------------------------
// Two threads ("sides") per instance; every instance has its own fresh locations x and y (0 at the
// start), and every store writes 1. r0 and r1 are the values the test records.
//   mp    side 0: x = 1; F0; y = 1              side 1: (reads x once, unrecorded); waits until
//                                                       y == 1 (r0); F1; r1 = x
//   sb    side 0: x = 1; F0; r0 = y             side 1: y = 1; F1; r1 = x
//   lb    side 0: r0 = x; F0; y = 1             side 1: r1 = y; F1; x = 1
//   corr  side 0: x = 1                         side 1: r0 = x; F1; r1 = x
// The weak outcome (one no interleaving of the two programs can give) is mp r0=1 r1=0 (flag seen,
// data stale), sb 0 0, lb 1 1, corr 1 0.
enum class Test : int { mp = 0, sb, lb, corr };
inline constexpr int kTests = 4;

// What sits between a side's two accesses. rel_acq is no fence: that side's synchronizing accesses
// become cuda::atomic_ref<unsigned, thread_scope_device> stores with memory_order_release and loads
// with memory_order_acquire (mp: the flag only; sb, lb, corr: every access of the side).
enum class Fence : int {
  none = 0,
  block,    // __threadfence_block()   membar.cta = fence.sc.cta
  device,   // __threadfence()         membar.gl  = fence.sc.gpu
  system,   // __threadfence_system()  membar.sys = fence.sc.sys
  rel_acq,  // cuda::atomic_ref release store / acquire load, device scope
};
inline constexpr int kFences = 5;

// How the accesses that are not release/acquire are made. mp's flag is always strong (volatile),
// because the consumer waits on it; `access` then applies to the data.
enum class Access : int {
  plain = 0,  // ld.global / st.global: weak (cached in the SM's L1)
  vol,        // ld.volatile / st.volatile: relaxed at system scope (what C++ volatile compiles to)
};

// Where the two sides of an instance run.
enum class Placement : int {
  different_blocks = 0,  // side 0 in block 2k, side 1 in block 2k+1 (in practice other SMs)
  same_block,            // side 0 in the first half of a block's warps, side 1 in the second half
};

struct LitmusSpec {
  Test test = Test::mp;
  Fence fence[2] = {Fence::none, Fence::none};  // side 0, side 1
  Access access = Access::plain;
  Placement placement = Placement::different_blocks;
  bool weak_wait = false;  // mp only: the consumer waits on the flag with plain loads
};

// r0 and r1 as one index: r0 * 2 + r1 (00, 01, 10, 11).
inline constexpr int kOutcomes = 4;
constexpr int outcome_index(int r0, int r1) { return r0 * 2 + r1; }

// What the GPU observed for one configuration.
struct LitmusCounts {
  std::uint64_t outcome[kOutcomes] = {0, 0, 0, 0};
  std::uint64_t timed_out = 0;  // instances not completed: a wait gave up at its deadline
  std::uint64_t instances = 0;  // every instance run, timed out ones included
  int blocks = 0;               // the grid of each launch
  int threads = 0;
  std::uint64_t pairs_per_round = 0;
  int rounds = 0;               // over all launches
  std::uint64_t pairs_same_sm = 0;  // of the first round's pairs, how many had both sides on one SM
  std::uint64_t pairs_checked = 0;
  std::uint64_t completed() const { return instances - timed_out; }
};

// ---- cost of a fence ---------------------------------------------------------------------------
// A loop of `iterations`: a store to the thread's own word, then the fence (or nothing). The last
// two are the peers every lesson prints: a dependent L2 load (ld.cg) and a dependent atomicAdd.
enum class CostVariant : int {
  none = 0,       // the store alone
  block,          // store; __threadfence_block()
  device,         // store; __threadfence()
  system,         // store; __threadfence_system()
  acq_rel,        // store; cuda::atomic_thread_fence(memory_order_acq_rel, thread_scope_device)
  release_store,  // cuda::atomic_ref<..., thread_scope_device>::store(v, memory_order_release)
  l2_load_chain,  // v = __ldcg(&chain[v]): one dependent L2 round trip per iteration
  atomic_chain,   // v = atomicAdd(&chain[v], 0): one dependent atomic per iteration
  device_alone,   // __threadfence() with no store before it: what the fence costs by itself
};
inline constexpr int kCostVariants = 9;
enum class CostShape : int {
  one_thread = 0,  // one block of one thread
  warp_per_sm,     // one block of one warp per SM, every lane its own word
};

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

// ---- a host thread watching the GPU through mapped memory ------------------------------------------
// One GPU thread, round after round: wait until the host says ready, store the round's data words
// (plain stores into mapped pinned host memory), the fence, then the flag (a volatile store). The host
// polls the flag, then reads the data: a word that is not the round's value is a stale read.
inline constexpr int kHostDataWords = 4;  // each on a cache line of its own

struct HostObserverSpec {
  int rounds = 2000;
  unsigned long long device_budget_ns = 100000000ull;  // each GPU wait for the host's "ready"
  int host_budget_ms = 100;                           // each host wait for the GPU's flag
};

struct HostObserverRun {
  std::uint64_t rounds = 0;      // rounds the host completed (saw the flag and read the data)
  std::uint64_t stale = 0;       // of them, rounds with at least one stale word
  std::uint64_t stale_words = 0;
  bool device_gave_up = false;   // a GPU wait reached its deadline
  bool host_gave_up = false;     // a host wait reached its deadline
  double ms = 0.0;               // the host's rounds, wall time
};

// What processing item i adds to the checksum (a multiplicative hash: a missed or doubled item
// changes the sum).
CUDASYNC_TF_HD constexpr std::uint64_t item_checksum(std::uint32_t i) { return static_cast<std::uint64_t>(i) * 2654435761ull + 1ull; }

}  // namespace cudasync::threadfence
