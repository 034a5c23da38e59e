// Kernels of the votes: __ballot_sync, __all_sync, __any_sync, __activemask, __match_*_sync and
// __reduce_*_sync per lane. They fill plain arrays and never print; votes.cpp turns them into sections.
#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/warp_primitives/warp.hpp"

namespace cudasync::warp_primitives {

using cuda::DeviceBuffer;

namespace {

// VoteLanes' layout in plain arrays, which device code can index (std::array's operator[] is host code).
struct VoteOut {
  unsigned ballot[32];
  int all[32], any[32];
  unsigned activemask[32], match_any[32], match_all[32];
  int match_all_pred[32];
};
static_assert(sizeof(VoteOut) == sizeof(VoteLanes));

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

DeviceBuffer<int> upload(const Lanes& l) {
  DeviceBuffer<int> b(kWarpSize);
  b.upload(l.data(), l.size());
  return b;
}

}  // namespace

VoteLanes gpu_votes(const VoteSpec& spec) {
  auto pred = upload(spec.predicate);
  auto key = upload(spec.key);
  DeviceBuffer<VoteOut> out(1);
  out.fill_bytes(0xAB);
  vote_kernel<<<1, spec.warp.threads>>>(spec.warp.mask, pred.get(), key.get(), out.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  VoteLanes v{};
  out.download(reinterpret_cast<VoteOut*>(&v), 1);
  return v;
}

ReduceLanes gpu_reduce(const VoteSpec& spec) {
  auto values = upload(spec.values);
  DeviceBuffer<unsigned> add(kWarpSize), mn(kWarpSize), mx(kWarpSize);
  add.fill_bytes(0xAB);
  mn.fill_bytes(0xAB);
  mx.fill_bytes(0xAB);
  reduce_kernel<<<1, spec.warp.threads>>>(spec.warp.mask, values.get(), add.get(), mn.get(), mx.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  ReduceLanes r{};
  add.download(r.add.data(), kWarpSize);
  mn.download(r.min.data(), kWarpSize);
  mx.download(r.max.data(), kWarpSize);
  return r;
}

}  // namespace cudasync::warp_primitives
