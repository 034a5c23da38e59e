#pragma once
// threadfence: what a fence does (seeds 000, 001, 003, 004). Litmus tests run as many concurrent
// instances on the GPU, the fences and atomics down to PTX and SASS, what a fence costs, and the
// two patterns of seed 003 that need one (the lastBlock guard and the WorkQueue). This header
// holds the plain types both backends use; nvcc compiles it too, so it includes only the standard
// library.
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
};
inline constexpr int kCostVariants = 8;
enum class CostShape : int {
  one_thread = 0,  // one block of one thread
  warp_per_sm,     // one block of one warp per SM, every lane its own word
};

// ---- lastBlock: seed 003's single-pass reduction --------------------------------------------------
// Every block sums its slice and writes partial[block]; the last block to arrive (an atomicAdd on
// a counter) sums the partials. The guards:
enum class LastBlockVariant : int {
  syncthreads_or = 0,  // seed guard 1: __threadfence(); atomicAdd by thread 0; __syncthreads_or(last)
  shared_flag,         // seed guard 2: the same with a __shared__ flag and __syncthreads()
  no_fence,            // guard 1 without any fence (broken)
  other_writer,        // guard 1 as the seed writes it, but the partial is stored by the block's last
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

// What processing item i adds to the checksum (a multiplicative hash: a missed or doubled item
// changes the sum).
CUDASYNC_TF_HD constexpr std::uint64_t item_checksum(std::uint32_t i) { return static_cast<std::uint64_t>(i) * 2654435761ull + 1ull; }

}  // namespace cudasync::threadfence
