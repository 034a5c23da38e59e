#pragma once
// The GPU side of lockfree-barrier behind a plain C++ interface (no CUDA types), one
// CUDASYNC_GPU_ENTRY line per entry point (core/gpu_entry.hpp): the parts and the tests call them
// under `if (ctx.gpu)` and need no CUDA headers.
#include <cstdint>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "core/gpu_entry.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier.hpp"

namespace cudasync::lockfree_barrier {

struct GpuLimits {
  Coresidency software;     // the fewest blocks per SM of any kernel with a software barrier (phase and bench kernels)
  Coresidency candidates;   // the same for the bench's own candidates (own-stagger, own-paced), at most `software`
  Coresidency cooperative;  // the grid-sync kernels: what cudaLaunchCooperativeKernel accepts
  bool cooperative_launch = false;  // cudaDevAttrCooperativeLaunch
  std::string cluster_unsupported;  // empty: own-cluster can run here; else why not ("needs sm_90: ...")
  std::vector<Coresidency> clusters;  // own-cluster's kernels in clusters of kClusterSizes[i] (empty if unsupported)
};
CUDASYNC_GPU_ENTRY(GpuLimits, gpu_limits, (int threads, int device))

struct GpuSpec {
  int blocks = 132;
  int threads = 256;
  int phases = 16;
  int own_counters = 1;
  int own_pollers = 1;   // own-stagger: K
  int cluster_size = 1;  // own-cluster: blocks per cluster (must divide blocks)
  std::uint64_t deadline_ns = 100'000'000;  // how long one spinner waits before it gives up
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
