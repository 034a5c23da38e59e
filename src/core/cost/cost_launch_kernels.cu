// The cost model's probes timed per launch or per loop: __syncthreads(), the cluster barrier,
// grid.sync(), and the launch sequences the benches time with events (one launch, a memset and a
// launch, two launches, a cooperative launch, many empty blocks, many blocks that each end in one
// same-address atomicAdd). And gpu_probe, which runs any probe.
#include <cooperative_groups.h>

#include <functional>

#include "core/cost/cost_gpu.hpp"
#include "core/cost/cost_probe.cuh"
#include "core/cuda/cluster.cuh"
#include "core/cuda/event_timer.hpp"

namespace cudasync::cost {

namespace gpu {

namespace {

namespace cg = cooperative_groups;

constexpr int kSyncLoop = 2000;
constexpr int kClusterLoop = 1000;
constexpr int kGridSyncK1 = 100, kGridSyncK2 = 600;
constexpr int kLaunchWarmup = 3;

__global__ void sync_kernel(int loops, long long* ns) {
  __syncthreads();
  const unsigned long long t0 = cuda::globaltimer_ns();
  for (int i = 0; i < loops; ++i) __syncthreads();
  const unsigned long long t1 = cuda::globaltimer_ns();
  if (threadIdx.x == 0) ns[0] = static_cast<long long>(t1 - t0);
}

// own-cluster's meeting: rank 0 arrives with release, the others relaxed; everyone waits (acquire).
__global__ void cluster_kernel(int loops, long long* ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const bool leader = cuda::cluster_block_rank() == 0;
  cuda::cluster_arrive_release();  // start together
  cuda::cluster_wait_acquire();
  const unsigned long long t0 = cuda::globaltimer_ns();
  for (int i = 0; i < loops; ++i) {
    __syncwarp();
    if (leader) cuda::cluster_arrive_release();
    else cuda::cluster_arrive_relaxed();
    cuda::cluster_wait_acquire();
  }
  const unsigned long long t1 = cuda::globaltimer_ns();
  if (blockIdx.x == 0 && threadIdx.x == 0) ns[0] = static_cast<long long>(t1 - t0);
#else
  (void)loops;
  (void)ns;
#endif
}

__global__ void grid_sync_kernel(int loops) {
  cg::grid_group g = cg::this_grid();
  for (int i = 0; i < loops; ++i) g.sync();
}

__global__ void empty_kernel(int* sink) {
  if (sink != nullptr && threadIdx.x == 0 && blockIdx.x == 0x7fffffff) *sink = 1;
}

template <typename T>
__global__ void atomic_block_kernel(T* word) {
  if (threadIdx.x == 0) atomicAdd(word, T(1));
}

ProbeResult skipped(std::string why) { return {{}, std::move(why)}; }

// ns per call of `work`, timed as the benches time a call: an event before, one after.
ProbeResult event_timed(const std::function<void()>& work, int reps) {
  ProbeResult r;
  for (double ms : cuda::time_repeated_ms(work, reps, kLaunchWarmup)) r.ns.push_back(ms * 1e6);
  return r;
}

ProbeResult run_sync(const ProbeSpec& s) {
  cuda::DeviceBuffer<long long> ns(1);
  ProbeResult r;
  for (int rep = -1; rep < s.reps; ++rep) {
    sync_kernel<<<1, s.threads>>>(kSyncLoop, ns.get());
    CUDA_CHECK_LAUNCH();
    long long v = 0;
    ns.download(&v, 1);
    if (rep >= 0) r.ns.push_back(static_cast<double>(v) / kSyncLoop);
  }
  return r;
}

ProbeResult run_cluster(const ProbeSpec& s) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (std::string why = cuda::cluster_unsupported(cluster_kernel, device); !why.empty()) return skipped(why);
  const Coresidency c = cuda::cluster_coresidency_of(cluster_kernel, s.threads, 0, s.cluster, device);
  if (s.blocks % s.cluster != 0 || s.blocks > c.limit())
    return skipped(std::to_string(s.blocks) + " blocks do not fit at once in clusters (" + c.text() + ")");
  cuda::DeviceBuffer<long long> ns(1);
  ProbeResult r;
  for (int rep = -1; rep < s.reps; ++rep) {
    CUDA_CHECK(cuda::launch_in_clusters(cluster_kernel, s.blocks, s.threads, s.cluster, nullptr, kClusterLoop, ns.get()));
    long long v = 0;
    ns.download(&v, 1);
    if (rep >= 0) r.ns.push_back(static_cast<double>(v) / kClusterLoop);
  }
  return r;
}

ProbeResult run_grid_sync(const ProbeSpec& s) {
  int device = 0, coop = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  if (coop == 0) return skipped("this GPU does not support cooperative launches");
  if (std::string why = unfit(reinterpret_cast<const void*>(grid_sync_kernel), s.blocks, s.threads); !why.empty())
    return skipped(why);
  const auto launch = [&](int loops) {
    void* args[] = {&loops};
    CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_sync_kernel), dim3(s.blocks), dim3(s.threads),
                                           args, 0, nullptr));
  };
  const auto ms = [&](int loops) {
    cuda::Event e0, e1;
    e0.record();
    launch(loops);
    e1.record();
    return static_cast<double>(cuda::elapsed_ms(e0, e1));
  };
  ProbeResult r;
  (void)ms(kGridSyncK1);  // warm-up
  for (int rep = 0; rep < s.reps; ++rep) {
    const double t1 = ms(kGridSyncK1), t2 = ms(kGridSyncK2);
    r.ns.push_back((t2 - t1) * 1e6 / (kGridSyncK2 - kGridSyncK1));
  }
  return r;
}

ProbeResult run_launches(const ProbeSpec& s) {
  cuda::DeviceBuffer<double> word(1);
  word.fill_bytes(0);
  int* none = nullptr;
  switch (s.probe) {
    case Probe::launch_memset_1:
      return event_timed(
          [&] {
            CUDA_CHECK(cudaMemsetAsync(word.get(), 0, sizeof(float)));
            empty_kernel<<<1, 128>>>(none);
            CUDA_CHECK_LAUNCH();
          },
          s.reps);
    case Probe::launch_2:
      return event_timed(
          [&] {
            empty_kernel<<<1, 128>>>(none);
            empty_kernel<<<1, 128>>>(none);
            CUDA_CHECK_LAUNCH();
          },
          s.reps);
    case Probe::launch_coop: {
      int device = 0, coop = 0;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
      if (coop == 0) return skipped("this GPU does not support cooperative launches");
      void* args[] = {&none};
      return event_timed(
          [&] {
            CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(empty_kernel), dim3(1), dim3(128), args, 0,
                                                   nullptr));
          },
          s.reps);
    }
    case Probe::empty_blocks:
      return event_timed(
          [&] {
            empty_kernel<<<s.blocks, s.threads>>>(none);
            CUDA_CHECK_LAUNCH();
          },
          s.reps);
    case Probe::atomic_blocks:
      return event_timed(
          [&] {
            if (s.wide) atomic_block_kernel<double><<<s.blocks, s.threads>>>(word.get());
            else atomic_block_kernel<float><<<s.blocks, s.threads>>>(reinterpret_cast<float*>(word.get()));
            CUDA_CHECK_LAUNCH();
          },
          s.reps);
    default:
      return event_timed(
          [&] {
            empty_kernel<<<1, 128>>>(none);
            CUDA_CHECK_LAUNCH();
          },
          s.reps);
  }
}

}  // namespace

}  // namespace gpu

ProbeResult gpu_probe(const ProbeSpec& s) {
  try {
    switch (s.probe) {
      case Probe::contended:
      case Probe::poll_latency:
      case Probe::arrive_poll: return gpu::run_spin_probe(s);
      case Probe::sync: return gpu::run_sync(s);
      case Probe::cluster_barrier: return gpu::run_cluster(s);
      case Probe::grid_sync: return gpu::run_grid_sync(s);
      case Probe::stream_read: return gpu::skipped("a streaming read of the caller's own input: the caller measures it");
      case Probe::lock_handoff: return gpu::skipped("the lock lesson's own kernel: the caller measures it");
      default: return gpu::run_launches(s);
    }
  } catch (const cuda::CudaError& e) {
    // A probe the runtime refuses (a launch configuration, an occupancy query) is a primitive this
    // GPU cannot give, not a failed bench: the model says which and why. (A sticky error would
    // fail the bench's own next call, which reports it.)
    (void)cudaGetLastError();
    return gpu::skipped(std::string("the runtime refused the probe: ") + e.what());
  }
}

}  // namespace cudasync::cost
