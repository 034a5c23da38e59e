#pragma once
// The cost model's "bytes" primitive: a plain streaming read of a caller's own device array (16-byte
// loads, four in flight per thread, a grid that fills the GPU), for a bench that must know what
// reading its input costs by itself (cg-reduce: Probe::stream_read). The bytes are only read:
// each thread folds what it loaded with XOR, and a block writes only if the fold is a value no
// input makes (so the loads stay, and nothing is written).
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"

namespace cudasync::cost {

inline constexpr int kStreamReadThreads = 256;

__global__ void __launch_bounds__(kStreamReadThreads) stream_read_kernel(const uint4* __restrict__ x, long long vectors,
                                                                           unsigned* sink) {
  constexpr int kInFlight = 4;
  const long long stride = static_cast<long long>(blockDim.x) * gridDim.x;
  long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; v + (kInFlight - 1) * stride < vectors; v += kInFlight * stride) {
    uint4 r[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) r[u] = x[v + u * stride];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) acc ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  }
  for (; v < vectors; v += stride) acc ^= x[v].x ^ x[v].y ^ x[v].z ^ x[v].w;
  if (acc == 0x9e3779b9u && threadIdx.x == 0x3ff) sink[blockIdx.x] = acc;  // never: blocks have 256 threads
}

// The grid: as many blocks as fit at once.
inline int stream_read_grid() {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_read_kernel, kStreamReadThreads, 0));
  return per_sm * sms > 0 ? per_sm * sms : sms;
}

// Reads `bytes` from `p` (16-byte aligned: cudaMalloc's are) in one launch; `sink` is never written.
inline void launch_stream_read(const void* p, long long bytes, unsigned* sink, int grid, cudaStream_t stream = nullptr) {
  stream_read_kernel<<<grid, kStreamReadThreads, 0, stream>>>(static_cast<const uint4*>(p), bytes / 16, sink);
  CUDA_CHECK_LAUNCH();
}

}  // namespace cudasync::cost
