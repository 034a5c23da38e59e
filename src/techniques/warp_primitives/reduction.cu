// Kernels of a warp's sum: Fan's shared-memory loops with __syncwarp (10.2), the shuffle sums step
// by step (10.3.2) and the dependent chains the cost part times. They fill plain arrays and never
// print; reduction.cpp turns them into sections.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/warp_primitives/warp.hpp"

namespace cudasync::warp_primitives {

namespace cg = cooperative_groups;
using cuda::DeviceBuffer;

namespace {

__global__ void syncwarp_kernel(int variant, const int* values, int* shared_after) {
  __shared__ int s[kSyncwarpShared];
  const int tid = threadIdx.x;
  s[tid] = values[tid];
  s[tid + 32] = 0;  // the rest of a block's shared array, already reduced away
  __syncwarp();
  if (variant == 0) {
    for (int offset = 16; offset > 0; offset >>= 1) {
      if (tid < offset) s[tid] += s[tid + offset];
      __syncwarp();
    }
  } else if (variant == 1) {
    int v = s[tid];
    for (int offset = 16; offset > 0; offset >>= 1) {
      v += s[tid + offset];
      __syncwarp();
      s[tid] = v;
      __syncwarp();
    }
  } else {
    // The wrong loop Fan warns about (10.2), kept wrong on purpose: lane t reads s[t + offset] while lane
    // t + offset writes it.
    for (int offset = 16; offset > 0; offset >>= 1) {
      s[tid] += s[tid + offset];
      __syncwarp();
    }
  }
  __syncwarp();
  shared_after[tid] = s[tid];
  shared_after[tid + 32] = s[tid + 32];
}

__global__ void trace_kernel(int op, const int* values, int* trace) {
  const int lane = threadIdx.x;
  int v = values[lane];
  trace[lane] = v;
  int step = 1;
  for (int offset = 16; offset > 0; offset >>= 1, ++step) {
    v += op == 2 ? __shfl_down_sync(0xffffffffu, v, offset) : __shfl_xor_sync(0xffffffffu, v, offset);
    trace[step * 32 + lane] = v;
  }
}

template <int Probe>
__device__ int cost_step(int v, cg::thread_block_tile<32> tile) {
  if constexpr (Probe == 0) {
    return __shfl_xor_sync(0xffffffffu, v, 1) + 1;
  } else if constexpr (Probe == 1) {
    return static_cast<int>(__ballot_sync(0xffffffffu, v & 1)) + v;
  } else if constexpr (Probe == 2) {
    return static_cast<int>(__match_any_sync(0xffffffffu, v & 3)) + v;
  } else if constexpr (Probe == 3) {
    __shared__ int s[64];
    const int tid = threadIdx.x;
    s[tid] = v;
    s[tid + 32] = 0;
    __syncwarp();
    for (int offset = 16; offset > 0; offset >>= 1) {
      if (tid < offset) s[tid] += s[tid + offset];
      __syncwarp();
    }
    const int total = s[0];
    __syncwarp();  // everyone has read s[0] before the next round overwrites it
    return total + tid;
  } else if constexpr (Probe == 4 || Probe == 5) {
    int x = v;
    for (int offset = 16; offset > 0; offset >>= 1)
      x += Probe == 4 ? __shfl_down_sync(0xffffffffu, x, offset) : __shfl_xor_sync(0xffffffffu, x, offset);
    return __shfl_sync(0xffffffffu, x, 0) + static_cast<int>(threadIdx.x);
  } else if constexpr (Probe == 6) {
    return cg::reduce(tile, v, cg::plus<int>()) + static_cast<int>(threadIdx.x);
  } else {
#if __CUDA_ARCH__ >= 800
    return static_cast<int>(__reduce_add_sync(0xffffffffu, static_cast<unsigned>(v))) + static_cast<int>(threadIdx.x);
#else
    return v + 1;
#endif
  }
}

template <int Probe>
__global__ void cost_kernel(int iterations, long long* cycles, int* sink) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int v = static_cast<int>(threadIdx.x);
  for (int i = 0; i < 8; ++i) v = cost_step<Probe>(v, tile);  // warm the instruction cache
  __syncwarp();
  const long long start = clock64();
  for (int i = 0; i < iterations; ++i) v = cost_step<Probe>(v, tile);
  __syncwarp();
  const long long stop = clock64();
  sink[threadIdx.x] = v;  // keeps the chain alive
  if (threadIdx.x == 0) *cycles = stop - start;
}

DeviceBuffer<int> upload(const Lanes& l) {
  DeviceBuffer<int> b(kWarpSize);
  b.upload(l.data(), l.size());
  return b;
}

}  // namespace

SharedWords gpu_syncwarp(const Lanes& values, SyncwarpVariant variant) {
  auto in = upload(values);
  DeviceBuffer<int> out(kSyncwarpShared);
  out.fill_bytes(0xAB);
  syncwarp_kernel<<<1, kWarpSize>>>(static_cast<int>(variant), in.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  SharedWords got{};
  out.download(got.data(), got.size());
  return got;
}

ReductionTrace gpu_reduction_trace(const Lanes& values, ShuffleOp op) {
  auto in = upload(values);
  DeviceBuffer<int> out(kTraceSteps * kWarpSize);
  out.fill_bytes(0xAB);
  trace_kernel<<<1, kWarpSize>>>(static_cast<int>(op), in.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::array<int, kTraceSteps * kWarpSize> flat{};
  out.download(flat.data(), flat.size());
  ReductionTrace t{};
  for (int s = 0; s < kTraceSteps; ++s)
    for (int l = 0; l < kWarpSize; ++l)
      t[static_cast<std::size_t>(s)][static_cast<std::size_t>(l)] = flat[static_cast<std::size_t>(s * kWarpSize + l)];
  return t;
}

double gpu_cycles_per_op(CostProbe probe, int iterations) {
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<int> sink(kWarpSize);
  void (*const kernels[kCostProbes])(int, long long*, int*) = {cost_kernel<0>, cost_kernel<1>, cost_kernel<2>,
                                                                cost_kernel<3>, cost_kernel<4>, cost_kernel<5>,
                                                                cost_kernel<6>, cost_kernel<7>};
  kernels[static_cast<int>(probe)]<<<1, 32>>>(iterations, cycles.get(), sink.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  long long c = 0;
  cycles.download(&c, 1);
  return static_cast<double>(c) / iterations;
}

}  // namespace cudasync::warp_primitives
