#pragma once
// Thread-block clusters (compute capability 9.0): whether a GPU and a kernel can use them, how many
// clusters of a kernel fit at once, and a launch in clusters. A cluster's blocks are scheduled
// together on one GPC, so a grid of clusters is co-resident only up to whole clusters:
// cudaOccupancyMaxActiveClusters answers that, where the per-SM occupancy API does not.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "core/coresidency.hpp"
#include "core/cuda/check.hpp"

namespace cudasync::cuda {

// Empty when `kernel` can be launched in clusters on `device`; otherwise why not. Checks the GPU
// (compute capability 9.0 and cudaDevAttrClusterLaunch) and the code the runtime picked for the
// kernel: a binary built without sm_90 runs the kernel from older PTX, in which the cluster code
// was compiled out.
template <typename Kernel>
std::string cluster_unsupported(Kernel kernel, int device) {
  int major = 0, minor = 0, launch = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major < 9)
    return "needs sm_90: thread-block clusters need compute capability 9.0, and GPU " + std::to_string(device) +
           " is " + std::to_string(major) + "." + std::to_string(minor);
  CUDA_CHECK(cudaDeviceGetAttribute(&launch, cudaDevAttrClusterLaunch, device));
  if (launch == 0) return "needs sm_90: GPU " + std::to_string(device) + " reports no cluster launch";
  cudaFuncAttributes fa{};
  CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
  if (fa.ptxVersion < 90)
    return "needs sm_90 code: this cudasync was built without compute capability 9.0 (the kernel runs from "
           "compute_" + std::to_string(fa.ptxVersion) + " PTX, which has no clusters)";
  return "";
}

// A launch of `blocks` x `threads` in clusters of `cluster_size` consecutive blocks; the
// configuration points at `attr`, which must outlive it.
inline cudaLaunchConfig_t cluster_config(int blocks, int threads, int cluster_size, cudaStream_t stream,
                                         cudaLaunchAttribute& attr) {
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster_size);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

// How many clusters of `cluster_size` blocks of `kernel` fit on the GPU at once (call only where
// cluster_unsupported() is empty). Throws CudaError where the runtime cannot say.
template <typename Kernel>
Coresidency cluster_coresidency_of(Kernel kernel, int block_threads, std::size_t dynamic_smem_bytes, int cluster_size,
                                   int device) {
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg = cluster_config(cluster_size, block_threads, cluster_size, nullptr, attr);
  cfg.dynamicSmemBytes = dynamic_smem_bytes;
  Coresidency c;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&c.clusters, kernel, &cfg));
  CUDA_CHECK(cudaDeviceGetAttribute(&c.sm_count, cudaDevAttrMultiProcessorCount, device));
  c.cluster_size = cluster_size;
  c.threads = block_threads;
  c.source = "cudaOccupancyMaxActiveClusters, GPU " + std::to_string(device);
  return c;
}

// `kernel<<<blocks, threads, 0, stream>>>(args...)` in clusters of `cluster_size` consecutive blocks
// (blocks must be a multiple of it). Returns the launch's error, like cudaLaunchKernelEx.
template <typename... Params, typename... Args>
cudaError_t launch_in_clusters(void (*kernel)(Params...), int blocks, int threads, int cluster_size,
                               cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = cluster_config(blocks, threads, cluster_size, stream, attr);
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// The cluster's hardware barrier (PTX ISA, barrier.cluster; sm_90), for kernels launched in
// clusters (seen by the host pass too, which never calls them; a device pass for an older GPU does
// not see them). Every thread of every block of the cluster arrives, then waits; `.aligned`: the
// warp executes it converged. The arrival's .release makes this thread's earlier writes visible to
// the threads whose .acquire wait completes this phase; .relaxed promises nothing about memory.
__device__ __forceinline__ unsigned cluster_block_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_arrive_release() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait_acquire() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
#endif

}  // namespace cudasync::cuda
