// Kernels of the shuffles: __shfl*_sync per lane, a 64-bit __shfl_down_sync, and the partitions and
// a tile of Fan 10.4. They fill plain arrays and never print; shuffles.cpp turns them into sections.
#include <cooperative_groups.h>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/warp_primitives/warp.hpp"

namespace cudasync::warp_primitives {

namespace cg = cooperative_groups;
using cuda::DeviceBuffer;

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

// TileLanes' layout in plain arrays, which device code can index (std::array's operator[] is host code).
struct TileOut {
  int g32_rank[32], g32_size[32], g4_rank[32], g4_size[32];
  int shfl_down[32], any[32], all[32];
  unsigned ballot[32];
};
static_assert(sizeof(TileOut) == sizeof(TileLanes));

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

}  // namespace

Lanes gpu_shuffle(const ShuffleSpec& spec) {
  auto values = upload(spec.values);
  DeviceBuffer<int> out(kWarpSize);
  out.fill_bytes(0xAB);
  shuffle_kernel<<<1, spec.warp.threads>>>(static_cast<int>(spec.op), spec.param, spec.width, spec.warp.mask, values.get(),
                                           out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  Lanes got{};
  out.download(got.data(), got.size());
  return got;
}

TileLanes gpu_tiles(const Lanes& values, const Lanes& predicate) {
  auto v = upload(values);
  auto p = upload(predicate);
  DeviceBuffer<TileOut> out(1);
  out.fill_bytes(0xAB);
  tiles_kernel<<<1, kWarpSize>>>(v.get(), p.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  TileLanes r;
  out.download(reinterpret_cast<TileOut*>(&r), 1);
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
