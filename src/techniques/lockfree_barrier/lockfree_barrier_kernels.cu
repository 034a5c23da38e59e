// The barriers that live inside one kernel (Xiao & Feng's, grid.sync(), cudasync's own, own-cluster)
// and the multi-phase kernel they guard, its launches and its timing. Every spin goes through a
// %globaltimer deadline (core/cuda/deadline.cuh): a spinner that waits too long sets the grid's
// abort word and gives up, the other blocks see that word at their next spin or at their start and
// stop too, and the host reads who arrived, who gave up and who never started. Relaunch and graph,
// one kernel per phase, are in lockfree_barrier_launch_kernels.cu. Kernels fill device memory and
// never print.
#include <cooperative_groups.h>

#include <algorithm>
#include <string>

#include "core/cuda/occupancy.cuh"
#include "core/words/words.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_candidates.cuh"
#include "techniques/lockfree_barrier/lockfree_barrier_cluster.cuh"

namespace cudasync::lockfree_barrier {

using namespace gpu;

namespace {

template <Barrier B>
__device__ __forceinline__ int grid_barrier(const PhaseArgs& a, int k) {
  if constexpr (B == Barrier::xf_lock) return xf_lock(a, k);
  else if constexpr (B == Barrier::xf_lock_unrepaired) return xf_lock_unrepaired(a, k);
  else if constexpr (B == Barrier::xf_lockfree) return xf_lockfree(a, k);
  else if constexpr (B == Barrier::xf_lockfree_unrepaired) return xf_lockfree_unrepaired(a, k);
  else if constexpr (B == Barrier::own) return own(a, k);
  else if constexpr (B == Barrier::own_cluster) return own_cluster(a, k);
  else if constexpr (B == Barrier::own_stagger) return own_stagger(a, k);
  else if constexpr (B == Barrier::own_paced) return own_paced(a, k);
  else {
    (void)a;
    (void)k;
    cg::this_grid().sync();  // 4. cooperative groups: needs cudaLaunchCooperativeKernel
    return kPassed;
  }
}

// A block that starts after another has given up does nothing (past co-residency that is every
// block that was not resident: it could only start once a resident block had exited).
__device__ bool grid_gave_up(const PhaseArgs& a) {
  __shared__ int s_stop;
  if (threadIdx.x == 0) s_stop = ld_relaxed_gpu(a.watch.timed_out) != 0;
  __syncthreads();
  const bool stop = s_stop != 0;
  __syncthreads();
  return stop;
}

// The multi-phase kernel with one software barrier (or grid.sync) between phases.
template <Barrier B>
__global__ void __launch_bounds__(1024) phases_kernel(PhaseArgs a) {
  const unsigned b = blockIdx.x;
  if constexpr (B == Barrier::own_cluster) {
    if (cluster_start_stopped(a)) {  // the whole cluster, or none of it
      if (threadIdx.x == 0) a.stopped[b] = 1;
      return;
    }
  } else if constexpr (B != Barrier::grid_sync) {
    if (grid_gave_up(a)) {
      if (threadIdx.x == 0) a.stopped[b] = 1;
      return;
    }
  }
  int done = 0;
  for (int p = 1; p <= a.phases; ++p) {
    phase(a, p);
    done = p;
    if (p == a.phases) break;
    if (p == 1 && threadIdx.x == 0) a.arrive_ns[b] = now_ns();
    const int r = grid_barrier<B>(a, p);
    if (r != kPassed) {
      if (threadIdx.x == 0) (r == kGaveUp ? a.gave_up : a.stopped)[b] = 1;
      break;
    }
    if (p == 1 && threadIdx.x == 0) a.release_ns[b] = now_ns();
  }
  if (threadIdx.x == 0) a.phases_done[b] = done;
}

// The bench: nothing but barriers.
template <Barrier B>
__global__ void __launch_bounds__(1024) loop_kernel(PhaseArgs a, int barriers) {
  if constexpr (B == Barrier::own_cluster)
    if (cluster_start_stopped(a)) return;
  for (int k = 1; k <= barriers; ++k) {
    const int r = grid_barrier<B>(a, k);
    if (r != kPassed) {
      if (threadIdx.x == 0 && r == kGaveUp) a.gave_up[blockIdx.x] = 1;
      return;
    }
  }
}

template <Barrier B>
void launch_phases(const PhaseArgs& a, int blocks, int threads) {
  phases_kernel<B><<<blocks, threads>>>(a);
  CUDA_CHECK_LAUNCH();
}

// own-cluster: the same grid in clusters of `cluster` consecutive blocks.
void launch_phases_in_clusters(const PhaseArgs& a, int blocks, int threads, int cluster) {
  CUDA_CHECK(cuda::launch_in_clusters(phases_kernel<Barrier::own_cluster>, blocks, threads, cluster, nullptr, a));
}

template <typename Kernel>
int blocks_per_sm(Kernel k, int threads) {
  int n = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, 0));
  return n;
}

template <Barrier B>
void launch_loop(const PhaseArgs& a, const GpuSpec& s, int barriers) {
  if constexpr (B == Barrier::grid_sync) {
    PhaseArgs copy = a;
    int n = barriers;
    void* args[] = {&copy, &n};
    CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(loop_kernel<Barrier::grid_sync>), dim3(s.blocks),
                                           dim3(s.threads), args, 0, nullptr));
  } else if constexpr (B == Barrier::own_cluster) {
    CUDA_CHECK(cuda::launch_in_clusters(loop_kernel<Barrier::own_cluster>, s.blocks, s.threads, s.cluster_size, nullptr,
                                        a, barriers));
  } else {
    loop_kernel<B><<<s.blocks, s.threads>>>(a, barriers);
    CUDA_CHECK_LAUNCH();
  }
}

template <Barrier B>
double loop_ms(Buffers& m, const PhaseArgs& a, const GpuSpec& s, int barriers) {
  CUDA_CHECK(cudaMemsetAsync(m.words.get(), 0, m.words.bytes()));
  cuda::Event e0, e1;
  e0.record();
  launch_loop<B>(a, s, barriers);
  e1.record();
  return static_cast<double>(cuda::elapsed_ms(e0, e1));
}

template <Barrier B>
Timing time_loop(const GpuSpec& s, int reps, int k1, int k2) {
  Buffers m(s.blocks, s.threads);
  m.reset();
  const PhaseArgs a = m.args(s);
  Timing t;
  (void)loop_ms<B>(m, a, s, k1);  // warm-up
  for (int i = 0; i < reps; ++i) {
    const double t1 = loop_ms<B>(m, a, s, k1);
    const double t2 = loop_ms<B>(m, a, s, k2);
    t.ns.push_back((t2 - t1) * 1e6 / static_cast<double>(k2 - k1));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  u32 abort_word = 0;
  m.abort_word.download(&abort_word, 1);
  t.deadline_hit = abort_word != 0;
  return t;
}

}  // namespace

GpuLimits gpu_limits(int threads, int device) {
  GpuLimits g;
  int coop = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  g.cooperative_launch = coop != 0;
  g.software = cuda::coresidency_of(phases_kernel<Barrier::own>, threads, 0, device);
  const int per_sm[] = {
      blocks_per_sm(phases_kernel<Barrier::xf_lock>, threads),      blocks_per_sm(phases_kernel<Barrier::xf_lockfree>, threads),
      blocks_per_sm(phases_kernel<Barrier::xf_lock_unrepaired>, threads), blocks_per_sm(phases_kernel<Barrier::xf_lockfree_unrepaired>, threads),
      blocks_per_sm(loop_kernel<Barrier::xf_lock>, threads),        blocks_per_sm(loop_kernel<Barrier::xf_lockfree>, threads),
      blocks_per_sm(loop_kernel<Barrier::own>, threads)};
  for (int n : per_sm) g.software.blocks_per_sm = std::min(g.software.blocks_per_sm, n);
  g.candidates = g.software;  // the bench's own candidates: never lower the lesson's own limit
  for (int n : {blocks_per_sm(loop_kernel<Barrier::own_stagger>, threads), blocks_per_sm(loop_kernel<Barrier::own_paced>, threads),
                blocks_per_sm(phases_kernel<Barrier::own_stagger>, threads),
                blocks_per_sm(phases_kernel<Barrier::own_paced>, threads)})
    g.candidates.blocks_per_sm = std::min(g.candidates.blocks_per_sm, n);
  g.cooperative = cuda::coresidency_of(phases_kernel<Barrier::grid_sync>, threads, 0, device);
  g.cooperative.blocks_per_sm =
      std::min(g.cooperative.blocks_per_sm, blocks_per_sm(loop_kernel<Barrier::grid_sync>, threads));
  // own-cluster only: a GPU or build without clusters waives own-cluster, never the other barriers.
  try {
    g.cluster_unsupported = cuda::cluster_unsupported(phases_kernel<Barrier::own_cluster>, device);
    if (g.cluster_unsupported.empty())
      for (int cs : kClusterSizes) {
        Coresidency c = cuda::cluster_coresidency_of(phases_kernel<Barrier::own_cluster>, threads, 0, cs, device);
        const Coresidency l = cuda::cluster_coresidency_of(loop_kernel<Barrier::own_cluster>, threads, 0, cs, device);
        c.clusters = std::min(c.clusters, l.clusters);
        g.clusters.push_back(c);
      }
  } catch (const cuda::CudaError& e) {
    (void)cudaGetLastError();
    g.cluster_unsupported = words::say("lockfree-barrier", "gpu.cluster-sizing-failed", {{"error", e.what()}});
    g.clusters.clear();
  }
  return g;
}

GpuRun gpu_run(Barrier b, const GpuSpec& s, const std::vector<std::uint32_t>& x0) {
  if (b == Barrier::relaunch || b == Barrier::graph) return run_launches(s, x0, b == Barrier::graph);
  GpuRun r;
  r.barrier = b;
  Buffers m(s.blocks, s.threads);
  PhaseArgs a = m.prepare(s, x0);
  cuda::Event start, stop;
  start.record();
  switch (b) {
    case Barrier::grid_sync: {
      void* args[] = {&a};
      const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(phases_kernel<Barrier::grid_sync>),
                                                        dim3(s.blocks), dim3(s.threads), args, 0, nullptr);
      if (e == cudaErrorCooperativeLaunchTooLarge) {
        (void)cudaGetLastError();  // not sticky
        r.refused = words::say("lockfree-barrier", "gpu.refused-by-runtime",
                               {{"error", cudaGetErrorString(e)}, {"name", cudaGetErrorName(e)}});
        return r;
      }
      CUDA_CHECK(e);
      break;
    }
    case Barrier::xf_lock: launch_phases<Barrier::xf_lock>(a, s.blocks, s.threads); break;
    case Barrier::xf_lockfree: launch_phases<Barrier::xf_lockfree>(a, s.blocks, s.threads); break;
    case Barrier::own: launch_phases<Barrier::own>(a, s.blocks, s.threads); break;
    case Barrier::own_stagger: launch_phases<Barrier::own_stagger>(a, s.blocks, s.threads); break;
    case Barrier::own_paced: launch_phases<Barrier::own_paced>(a, s.blocks, s.threads); break;
    case Barrier::own_cluster: launch_phases_in_clusters(a, s.blocks, s.threads, s.cluster_size); break;
    case Barrier::xf_lock_unrepaired: launch_phases<Barrier::xf_lock_unrepaired>(a, s.blocks, s.threads); break;
    case Barrier::xf_lockfree_unrepaired: launch_phases<Barrier::xf_lockfree_unrepaired>(a, s.blocks, s.threads); break;
    default: break;
  }
  stop.record();
  r.kernel_ms = cuda::elapsed_ms(start, stop);
  collect(r, m, s);
  return r;
}

Timing gpu_time(Barrier b, const GpuSpec& s, int reps, int k1, int k2) {
  switch (b) {
    case Barrier::relaunch: return time_launches(s, reps, k1, false);
    case Barrier::graph: return time_launches(s, reps, k1, true);
    case Barrier::xf_lock: return time_loop<Barrier::xf_lock>(s, reps, k1, k2);
    case Barrier::xf_lockfree: return time_loop<Barrier::xf_lockfree>(s, reps, k1, k2);
    case Barrier::grid_sync: return time_loop<Barrier::grid_sync>(s, reps, k1, k2);
    case Barrier::own: return time_loop<Barrier::own>(s, reps, k1, k2);
    case Barrier::own_stagger: return time_loop<Barrier::own_stagger>(s, reps, k1, k2);
    case Barrier::own_paced: return time_loop<Barrier::own_paced>(s, reps, k1, k2);
    case Barrier::own_cluster: return time_loop<Barrier::own_cluster>(s, reps, k1, k2);
    default: return {};  // the transcription's barriers are not timed
  }
}

}  // namespace cudasync::lockfree_barrier
