// Kernels fill plain arrays and never print; the part files turn them into sections.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"

namespace cudasync::warp_primitives {

namespace cg = cooperative_groups;
using cuda::DeviceBuffer;

namespace {

// Only the lanes in `mask` call, passing `mask`: Fan's shape (10.3), with the branch made explicit.
__global__ void shuffle_kernel(int op, int param, int width, unsigned mask, const int* values, int* out) {
  const int lane = threadIdx.x;
  if (!((mask >> lane) & 1u)) return;
  const int v = values[lane];
  int r = 0;
  switch (op) {
    case 0: r = __shfl_sync(mask, v, param, width); break;
    case 1: r = __shfl_up_sync(mask, v, static_cast<unsigned>(param), width); break;
    case 2: r = __shfl_down_sync(mask, v, static_cast<unsigned>(param), width); break;
    default: r = __shfl_xor_sync(mask, v, param, width); break;
  }
  out[lane] = r;
}

struct VoteOut {
  unsigned ballot[32], activemask[32], match_any[32], match_all[32];
  int all[32], any[32], match_all_pred[32];
};

__global__ void vote_kernel(unsigned mask, const int* pred, const int* key, VoteOut* out) {
  const int lane = threadIdx.x;
  if (!((mask >> lane) & 1u)) return;
  // __activemask first, right after the branch: later calls may see a different convergence.
  out->activemask[lane] = __activemask();
  const int p = pred[lane];
  out->ballot[lane] = __ballot_sync(mask, p);
  out->all[lane] = __all_sync(mask, p);
  out->any[lane] = __any_sync(mask, p);
  out->match_any[lane] = __match_any_sync(mask, key[lane]);
  int all_pred = 0;
  out->match_all[lane] = __match_all_sync(mask, key[lane], &all_pred);
  out->match_all_pred[lane] = all_pred;
}

__global__ void reduce_kernel(unsigned mask, const int* values, unsigned* add, unsigned* mn, unsigned* mx) {
  const int lane = threadIdx.x;
  if (!((mask >> lane) & 1u)) return;
#if __CUDA_ARCH__ >= 800
  const auto v = static_cast<unsigned>(values[lane]);
  add[lane] = __reduce_add_sync(mask, v);
  mn[lane] = __reduce_min_sync(mask, v);
  mx[lane] = __reduce_max_sync(mask, v);
#else
  (void)values; (void)add; (void)mn; (void)mx;  // the host waives this part below 8.0
#endif
}

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

template <typename T, std::size_t N>
std::array<T, N> to_array(const DeviceBuffer<T>& b) {
  std::array<T, N> a{};
  b.download(a.data(), N);
  return a;
}

DeviceBuffer<int> upload_lanes(const Lanes& l) {
  DeviceBuffer<int> b(kWarpSize);
  b.upload(l.data(), l.size());
  return b;
}

}  // namespace

Lanes gpu_shuffle(const ShuffleSpec& spec) {
  auto values = upload_lanes(spec.values);
  DeviceBuffer<int> out(kWarpSize);
  out.fill_bytes(0xAB);
  shuffle_kernel<<<1, spec.warp.threads>>>(static_cast<int>(spec.op), spec.param, spec.width, spec.warp.mask, values.get(),
                                           out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return to_array<int, kWarpSize>(out);
}

VoteLanes gpu_votes(const VoteSpec& spec) {
  auto pred = upload_lanes(spec.predicate);
  auto key = upload_lanes(spec.key);
  DeviceBuffer<VoteOut> out(1);
  out.fill_bytes(0xAB);
  vote_kernel<<<1, spec.warp.threads>>>(spec.warp.mask, pred.get(), key.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  VoteOut h{};
  out.download(&h, 1);
  VoteLanes v{};
  for (int i = 0; i < kWarpSize; ++i) {
    const auto l = static_cast<std::size_t>(i);
    v.ballot[l] = h.ballot[i];
    v.all[l] = h.all[i];
    v.any[l] = h.any[i];
    v.activemask[l] = h.activemask[i];
    v.match_any[l] = h.match_any[i];
    v.match_all[l] = h.match_all[i];
    v.match_all_pred[l] = h.match_all_pred[i];
  }
  return v;
}

ReduceLanes gpu_reduce(const VoteSpec& spec) {
  auto values = upload_lanes(spec.values);
  DeviceBuffer<unsigned> add(kWarpSize), mn(kWarpSize), mx(kWarpSize);
  add.fill_bytes(0xAB);
  mn.fill_bytes(0xAB);
  mx.fill_bytes(0xAB);
  reduce_kernel<<<1, spec.warp.threads>>>(spec.warp.mask, values.get(), add.get(), mn.get(), mx.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return {to_array<unsigned, kWarpSize>(add), to_array<unsigned, kWarpSize>(mn), to_array<unsigned, kWarpSize>(mx)};
}

SharedWords gpu_syncwarp(const Lanes& values, SyncwarpVariant variant) {
  auto in = upload_lanes(values);
  DeviceBuffer<int> out(kSyncwarpShared);
  out.fill_bytes(0xAB);
  syncwarp_kernel<<<1, kWarpSize>>>(static_cast<int>(variant), in.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return to_array<int, kSyncwarpShared>(out);
}

ReductionTrace gpu_reduction_trace(const Lanes& values, ShuffleOp op) {
  auto in = upload_lanes(values);
  DeviceBuffer<int> out(kTraceSteps * kWarpSize);
  out.fill_bytes(0xAB);
  trace_kernel<<<1, kWarpSize>>>(static_cast<int>(op), in.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto flat = to_array<int, kTraceSteps * kWarpSize>(out);
  ReductionTrace t{};
  for (int s = 0; s < kTraceSteps; ++s)
    for (int l = 0; l < kWarpSize; ++l)
      t[static_cast<std::size_t>(s)][static_cast<std::size_t>(l)] = flat[static_cast<std::size_t>(s * kWarpSize + l)];
  return t;
}

double gpu_cycles_per_op(CostProbe probe, int iterations) {
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<int> sink(kWarpSize);
  switch (probe) {
    case CostProbe::shfl_xor: cost_kernel<0><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
    case CostProbe::ballot: cost_kernel<1><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
    case CostProbe::match_any: cost_kernel<2><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
    case CostProbe::sum_shared_syncwarp: cost_kernel<3><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
    case CostProbe::sum_shfl_down: cost_kernel<4><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
    case CostProbe::sum_shfl_xor: cost_kernel<5><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
    case CostProbe::sum_cg_reduce: cost_kernel<6><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
    case CostProbe::sum_reduce_add: cost_kernel<7><<<1, 32>>>(iterations, cycles.get(), sink.get()); break;
  }
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  long long c = 0;
  cycles.download(&c, 1);
  return static_cast<double>(c) / iterations;
}

}  // namespace cudasync::warp_primitives
