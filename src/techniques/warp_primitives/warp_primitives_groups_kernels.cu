// Kernels of the parts divergence (Fan 10.1), cg-tiles (Fan 10.4) and shfl-64 (Fan 10.3): they
// fill plain arrays and never print; the parts turn them into sections.
#include <cooperative_groups.h>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"

namespace cudasync::warp_primitives {

namespace cg = cooperative_groups;
using cuda::DeviceBuffer;

// ---------------------------------------------------------------- shfl-64 (Fan 10.3)

// One __shfl_down_sync of a T per calling lane: the build's SASS listing counts its SHFL.
template <typename T>
__global__ void shfl_down_kernel(unsigned mask, int delta, int width, const T* values, T* out) {
  const int lane = static_cast<int>(threadIdx.x);
  if (!((mask >> lane) & 1u)) return;
  out[lane] = __shfl_down_sync(mask, values[lane], static_cast<unsigned>(delta), width);
}
// The 32-bit kernel is never launched: it is compiled so that the listing shows one SHFL beside two.
// (Outside the anonymous namespace: an explicit instantiation there would not be emitted.)
template __global__ void shfl_down_kernel<int>(unsigned, int, int, const int*, int*);

namespace {

// ---------------------------------------------------------------- divergence (Fan 10.1)

// One case's work: `iterations` dependent steps x = 3x + K. The empty asm keeps each step (and so
// each case's loop) apart: the 32 cases stay 32 separate paths in the SASS.
template <int K>
__device__ unsigned case_work(unsigned x, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    x = x * 3u + static_cast<unsigned>(K);
    asm volatile("" : "+r"(x));
  }
  return x;
}

#define CUDASYNC_CASE(k)                      \
  case k:                                     \
    mask = __activemask();                    \
    x = case_work<k>(x, iterations);          \
    break;
#define CUDASYNC_CASES4(k) CUDASYNC_CASE(k) CUDASYNC_CASE(k + 1) CUDASYNC_CASE(k + 2) CUDASYNC_CASE(k + 3)

// The same 32-case switch either way; only what it switches on differs: the warp (threadIdx.x / 32,
// one case per warp) or the lane (threadIdx.x % 32, every lane of a warp its own case).
template <int On>
__global__ void divergence_kernel(int iterations, unsigned* activemask, unsigned* result, long long* cycles) {
  const int t = static_cast<int>(threadIdx.x);
  const int c = On == 0 ? t / 32 : t % 32;
  unsigned x = static_cast<unsigned>(t), mask = 0;
  __syncwarp();
  const long long start = clock64();
  switch (c) {
    CUDASYNC_CASES4(0) CUDASYNC_CASES4(4) CUDASYNC_CASES4(8) CUDASYNC_CASES4(12)
    CUDASYNC_CASES4(16) CUDASYNC_CASES4(20) CUDASYNC_CASES4(24) CUDASYNC_CASES4(28)
    default: break;
  }
  __syncwarp();  // the warp meets again: lane 0's clock now covers every path of its warp
  const long long stop = clock64();
  activemask[t] = mask;
  result[t] = x;
  if (t % 32 == 0) cycles[t / 32] = stop - start;
}
#undef CUDASYNC_CASES4
#undef CUDASYNC_CASE

// ---------------------------------------------------------------- cg-tiles (Fan 10.4)

struct TileOut {
  int g32_rank[32], g32_size[32], g4_rank[32], g4_size[32];
  int shfl_down[32], any[32], all[32];
  unsigned ballot[32];
};

__global__ void tiles_kernel(const int* values, const int* pred, TileOut* out) {
  const int t = static_cast<int>(threadIdx.x);
  cg::thread_block block = cg::this_thread_block();
  // Fan's thread_group partitions: sizes known only at run time.
  cg::thread_group g32 = cg::tiled_partition(block, 32);
  cg::thread_group g4 = cg::tiled_partition(g32, 4);
  out->g32_rank[t] = static_cast<int>(g32.thread_rank());
  out->g32_size[t] = static_cast<int>(g32.size());
  out->g4_rank[t] = static_cast<int>(g4.thread_rank());
  out->g4_size[t] = static_cast<int>(g4.size());
  // The templated tile: its size is known at compile time, and it has the warp functions.
  cg::thread_block_tile<kTileSize> t4 = cg::tiled_partition<kTileSize>(block);
  out->shfl_down[t] = t4.shfl_down(values[t], 1);
  out->any[t] = t4.any(pred[t]);
  out->all[t] = t4.all(pred[t]);
  out->ballot[t] = t4.ballot(pred[t]);
}

template <typename T>
std::array<T, kWarpSize> shuffle_wide(const ShuffleSpec& spec, const std::array<T, kWarpSize>& values) {
  DeviceBuffer<T> in(kWarpSize), out(kWarpSize);
  in.upload(values.data(), values.size());
  out.fill_bytes(0xAB);
  shfl_down_kernel<T><<<1, spec.warp.threads>>>(spec.warp.mask, spec.param, spec.width, in.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::array<T, kWarpSize> got{};
  out.download(got.data(), got.size());
  return got;
}

DeviceBuffer<int> upload(const Lanes& l) {
  DeviceBuffer<int> b(kWarpSize);
  b.upload(l.data(), l.size());
  return b;
}

template <std::size_t N>
void copy_out(const int (&from)[N], Lanes& to) {
  for (std::size_t i = 0; i < N; ++i) to[i] = from[i];
}

}  // namespace

DivergenceRun gpu_divergence(SwitchOn on, int iterations) {
  DeviceBuffer<unsigned> activemask(kDivergenceThreads), result(kDivergenceThreads);
  DeviceBuffer<long long> cycles(kDivergenceWarps);
  activemask.fill_bytes(0);
  if (on == SwitchOn::warp)
    divergence_kernel<0><<<1, kDivergenceThreads>>>(iterations, activemask.get(), result.get(), cycles.get());
  else
    divergence_kernel<1><<<1, kDivergenceThreads>>>(iterations, activemask.get(), result.get(), cycles.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  DivergenceRun r;
  activemask.download(r.activemask.data(), r.activemask.size());
  result.download(r.result.data(), r.result.size());
  long long c[kDivergenceWarps] = {};
  cycles.download(c, kDivergenceWarps);
  for (int w = 0; w < kDivergenceWarps; ++w) r.cycles[static_cast<std::size_t>(w)] = c[w];
  return r;
}

TileLanes gpu_tiles(const Lanes& values, const Lanes& predicate) {
  auto v = upload(values);
  auto p = upload(predicate);
  DeviceBuffer<TileOut> out(1);
  out.fill_bytes(0xAB);
  tiles_kernel<<<1, kWarpSize>>>(v.get(), p.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  TileOut h{};
  out.download(&h, 1);
  TileLanes r;
  copy_out(h.g32_rank, r.g32_rank);
  copy_out(h.g32_size, r.g32_size);
  copy_out(h.g4_rank, r.g4_rank);
  copy_out(h.g4_size, r.g4_size);
  copy_out(h.shfl_down, r.shfl_down);
  copy_out(h.any, r.any);
  copy_out(h.all, r.all);
  for (int i = 0; i < kWarpSize; ++i) r.ballot[static_cast<std::size_t>(i)] = h.ballot[i];
  return r;
}

Shuffle64Lanes gpu_shuffle64(const ShuffleSpec& spec) {
  Lanes64 ll{};
  LanesF64 dbl{};
  for (std::size_t l = 0; l < kWarpSize; ++l) {
    ll[l] = wide_long_long(spec.values[l]);
    dbl[l] = wide_double(spec.values[l]);
  }
  Shuffle64Lanes r;
  r.ll = shuffle_wide<long long>(spec, ll);
  r.dbl = shuffle_wide<double>(spec, dbl);
  return r;
}

}  // namespace cudasync::warp_primitives
