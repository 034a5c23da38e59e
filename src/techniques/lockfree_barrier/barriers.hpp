#pragma once
// lockfree-barrier: every way to make all blocks of a grid wait for each other (Xiao & Feng, IPDPS
// 2010), run in the same multi-phase kernel and timed. The plain types both backends use and the
// GPU's entry points (core/gpu_entry.hpp); nvcc compiles it too, so it includes only the standard
// library and plain core headers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "core/gpu_entry.hpp"

#if defined(__CUDACC__)
#define CUDASYNC_LB_HD __host__ __device__
#else
#define CUDASYNC_LB_HD
#endif

namespace cudasync::lockfree_barrier {

enum class Barrier : int {
  relaunch = 0,      // one kernel per phase, back to back in a stream: the launch boundary is the barrier
  graph,             // the same launches captured once in a CUDA graph and replayed
  xf_lock,           // Xiao & Feng lock-based: atomicAdd on one counter, goal += N; fences added, `<` not `!=`
  xf_lockfree,       // Xiao & Feng lock-free: Arrayin / Arrayout, master block 0 checks every slot; fences added
  grid_sync,         // cooperative_groups::this_grid().sync() in a cudaLaunchCooperativeKernel launch
  own,               // cudasync's: red.release on spread counters, thread 0 (or warp 0) polls them
  own_cluster,       // the same arrival; one block per thread-block cluster polls, the cluster barrier releases the rest (sm_90)
  xf_lock_unrepaired,      // the transcription's lock-based code as written: no fence, `while (g_mutex != goalVal)`
  xf_lockfree_unrepaired,  // the transcription's lock-free code as written: `if (tid_in_blk = 0)`, one slot per thread, block 1
  // Candidates for own that --bench times beside it (not parts: same words and counters as own,
  // another wait), each checked against the model's values at every grid size of the sweep.
  own_stagger,  // K poller threads per block (lane 0 of warps 0..K-1), started apart: the next poll comes sooner
  own_paced,    // thread 0 polls every counter and sleeps about 1 ns per arrival still missing
  own_tree,     // a combining tree of arity K: the last of a node's K children goes on up; the root's last
                // arriver releases one generation word that every block polls (its own words)
  own_ticket,   // grid.sync()'s atom.add.release, whose value says how many arrivals are still to come:
                // the block sleeps that long before it polls, out of the arrivals' way (xf-lock's word)
};
inline constexpr int kBarrierCount = 9;  // the parts (all_barriers()); the bench's candidates come after
// own's candidates in --bench's sweep (own's arrival, another wait); own-tree (at the arity the cost
// model chooses) and own-ticket (grid.sync()'s arrival) are timed apart, beside them.
inline constexpr Barrier kOwnCandidates[] = {Barrier::own_stagger, Barrier::own_paced};
inline constexpr Barrier kLastBarrier = Barrier::own_ticket;
// own-ticket: ns a block sleeps for each arrival still to come before its first poll (about the L2's
// time per same-address atomic: queue-atomic(1056) took 721.5 ns on an H200, docs/measurements.md).
inline constexpr int kTicketSleepNsPerArrival = 1;

// own-tree's arities the cost model chooses from, and the one it runs with when nothing is measured.
inline constexpr int kTreeArities[] = {2, 4, 8, 16, 32};
inline constexpr int kDefaultTreeArity = 8;

// The combining tree over `blocks` leaves with `arity` children per node: level 1 has
// ceil(blocks / arity) nodes, each level above ceil(the one below / arity), up to one root. Its
// levels (0 for one block: it releases at once) and its nodes.
CUDASYNC_LB_HD inline int tree_levels(int blocks, int arity) {
  int levels = 0;
  for (int n = blocks; n > 1; n = (n + arity - 1) / arity) ++levels;
  return levels;
}
CUDASYNC_LB_HD inline int tree_nodes(int blocks, int arity) {
  int nodes = 0;
  for (int n = blocks; n > 1;) {
    n = (n + arity - 1) / arity;
    nodes += n;
  }
  return nodes;
}

// Software barriers spin inside one kernel: every block must be resident at once.
constexpr bool needs_coresidency(Barrier b) { return b != Barrier::relaunch && b != Barrier::graph; }
// The barriers the bench times (the transcription's, as written, are broken).
constexpr bool is_correct(Barrier b) { return b != Barrier::xf_lock_unrepaired && b != Barrier::xf_lockfree_unrepaired; }
// Launched in thread-block clusters: needs compute capability 9.0, and its co-residency is counted
// in whole clusters.
constexpr bool uses_clusters(Barrier b) { return b == Barrier::own_cluster; }
// The cluster sizes own-cluster chooses from (portable sizes: at most 8 blocks per cluster).
inline constexpr int kClusterSizes[] = {1, 2, 4, 8};
inline constexpr int kClusterSizeCount = 4;

inline constexpr int kWarpSize = 32;
inline constexpr int kSimBarriers = 3;         // the model's step simulation runs through this many barriers
inline constexpr int kStepTableMaxBlocks = 16;  // the model's step table is printed for grids this small (or --trace)
inline constexpr int kMaxOwnCounters = 32;  // one per lane of warp 0
inline constexpr int kMaxOwnPollers = 4;    // own-stagger: poller threads per block
inline constexpr int kOwnStride = 64;       // words between two counters of the own barrier (256 bytes)

// The multi-phase kernel's data. Phase p (1 .. phases) reads buffer (p - 1) % 2 and writes buffer
// p % 2: thread t of block b combines its own value with the value of thread t in block b + 1 and
// of thread t + 1 in block b - 1 (both wrapping), all written in phase p - 1. A barrier that lets
// a block through early makes it read a neighbour's value of the wrong phase (or overwrite one the
// neighbour has not read yet), and the final values differ from the model's.
CUDASYNC_LB_HD inline std::uint32_t mix(std::uint32_t self, std::uint32_t right, std::uint32_t left, std::uint32_t phase) {
  std::uint32_t h = self * 0x9E3779B1u ^ (right + 0x7F4A7C15u * phase);
  h ^= h >> 15;
  h *= 0x85EBCA77u;
  h ^= left + (h >> 13);
  h *= 0xC2B2AE3Du;
  return h ^ (h >> 16);
}

CUDASYNC_LB_HD inline std::uint32_t initial_value(std::uint64_t seed, std::uint32_t i) {
  std::uint32_t h = static_cast<std::uint32_t>(seed) * 0x27D4EB2Fu ^ static_cast<std::uint32_t>(seed >> 32) ^ i;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  return h ^ (h >> 16);
}

// ---- the GPU side (barriers.cu), called under `if (ctx.gpu)` --------------------------------------

// What a launch may hold at once: the GPU's occupancy API, or an assumed H100 on the model.
struct Limits {
  Coresidency software;     // the fewest blocks per SM of any kernel with a software barrier (phase and bench kernels)
  Coresidency candidates;   // the same for the bench's own candidates (own-stagger, own-paced), at most `software`
  Coresidency lean;         // own-tree's and own-ticket's kernels (fewer registers than own-stagger's), at most `software`
  Coresidency cooperative;  // the grid-sync kernels: what cudaLaunchCooperativeKernel accepts
  bool cooperative_launch = true;   // cudaDevAttrCooperativeLaunch
  std::string cluster_unsupported;  // empty: own-cluster can run here; else why not ("needs sm_90: ...")
  std::vector<Coresidency> clusters;  // own-cluster's kernels in clusters of kClusterSizes[i] (empty if unsupported)
};
CUDASYNC_GPU_ENTRY(Limits, gpu_limits, (int threads, int device))

struct GpuSpec {
  int blocks = 132;
  int threads = 256;
  int phases = 16;
  int own_counters = 1;
  int own_pollers = 1;   // own-stagger: K
  int tree_arity = kDefaultTreeArity;  // own-tree: children per node
  int cluster_size = 1;  // own-cluster: blocks per cluster (must divide blocks)
  std::uint64_t deadline_ns = 100'000'000;  // how long one spinner waits before it gives up
};

// What one run of the multi-phase kernel with one barrier observed on the GPU.
struct GpuRun {
  Barrier barrier = Barrier::relaunch;
  std::string refused;                       // grid-sync past co-residency: the runtime's error, else empty
  std::vector<std::uint32_t> values;         // final data, blocks x threads
  std::vector<std::uint32_t> words;          // the protocol's words at the end (see model's final_words)
  std::vector<int> phases_done;              // per block: phases it completed
  std::vector<std::uint8_t> gave_up;         // per block: its own spin reached the deadline
  std::vector<std::uint8_t> stopped;         // per block: stopped early because another block gave up
  std::vector<std::int64_t> arrive_ns;       // per block: %globaltimer when thread 0 reached barrier 1 (0: never)
  std::vector<std::int64_t> release_ns;      // per block: %globaltimer when thread 0 left barrier 1 (0: never)
  bool deadline_hit = false;                 // some spin gave up
  double kernel_ms = 0.0;                    // the whole multi-phase run (all launches for relaunch/graph)
  std::vector<double> ns_per_barrier;        // timing samples of a barrier-only loop (empty: not timed)
};

// The multi-phase kernel with barrier b over the initial values x0 (blocks x threads). Never hangs:
// every spin of a software barrier ends by its deadline, and once one block has given up the others
// stop at their next spin (and blocks that start afterwards stop at once). grid-sync past
// co-residency comes back with `refused` set (the runtime refuses the launch).
CUDASYNC_GPU_ENTRY(GpuRun, gpu_run, (Barrier b, const GpuSpec& s, const std::vector<std::uint32_t>& x0))

// ns per barrier, `reps` samples. Software barriers and grid-sync: a kernel that does nothing but
// barriers, launched with k1 and with k2 barriers, (t2 - t1) / (k2 - k1), so launch costs cancel;
// relaunch: k1 empty launches of the same grid back to back, time / k1; graph: one replay of a graph
// of k1 such launches, time / k1. deadline_hit: a bench kernel's spin gave up (a bug; never expected).
struct Timing {
  std::vector<double> ns;
  bool deadline_hit = false;
};
CUDASYNC_GPU_ENTRY(Timing, gpu_time, (Barrier b, const GpuSpec& s, int reps, int k1, int k2))

// The physical floor: one thread, a chain of atomicAdd on one word in which each address depends on
// the previous result (one L2 round trip each), ns per atomic, `reps` samples of `chain` atomics.
CUDASYNC_GPU_ENTRY(std::vector<double>, gpu_floor_ns, (int reps, int chain))

// The smallest non-zero step of %globaltimer one thread sees (ns), for the trace's legend.
CUDASYNC_GPU_ENTRY(double, gpu_timer_step_ns, ())

}  // namespace cudasync::lockfree_barrier
