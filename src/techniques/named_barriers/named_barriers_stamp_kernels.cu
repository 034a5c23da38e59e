// Part early-stamp: what a clock read placed right after a barrier measures. One block; the last
// warp works before each arrival, the others arrive at once and take two stamps after the barrier:
// one at once (nothing but the clock read after bar.sync), one behind a shared-memory load and store
// of their own word, which the PTX ISA lets happen only once the barrier has completed.
#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/named_barriers/named_barriers_device.cuh"
#include "techniques/named_barriers/named_barriers_gpu.hpp"

namespace cudasync::named_barriers {

namespace {

template <bool Named>
__global__ void early_stamp_kernel(int rounds, long long late_cycles, unsigned id, long long* arrive,
                                   long long* naive, long long* guarded, long long* calib) {
  __shared__ int own[kMaxWarps];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize, lane = tid % kWarpSize, warps = static_cast<int>(blockDim.x) / kWarpSize;
  if (lane == 0) own[warp] = 0;
  __syncthreads();
  const long long g0 = static_cast<long long>(globaltimer_ns()), c0 = stamp();
  for (int r = 0; r < rounds; ++r) {
    if (warp == warps - 1) work(late_cycles);
    const long long a = stamp();
    __syncwarp();
    if constexpr (Named) {
      bar_sync(id, blockDim.x);
    } else {
      __syncthreads();
    }
    const long long n = stamp();  // the naive stamp: the very next instruction
    if (lane == 0) {
      const long long g = stamp_after_barrier(&own[warp]);
      const int k = r * warps + warp;
      arrive[k] = a;
      naive[k] = n;
      guarded[k] = g;
    }
  }
  if (tid == 0) store_calibration(calib, g0, c0);
}

}  // namespace

StampResult gpu_early_stamp(const StampSpec& spec, StampBarrier barrier) {
  const auto n = static_cast<std::size_t>(spec.rounds * spec.warps);
  cuda::DeviceBuffer<long long> arrive(n), naive(n), guarded(n), calib(2);
  calib.fill_bytes(0);
  const auto id = static_cast<unsigned>(spec.id);
  if (barrier == StampBarrier::named)
    early_stamp_kernel<true><<<1, spec.block_threads()>>>(spec.rounds, spec.late_cycles, id, arrive.get(), naive.get(),
                                                          guarded.get(), calib.get());
  else
    early_stamp_kernel<false><<<1, spec.block_threads()>>>(spec.rounds, spec.late_cycles, id, arrive.get(), naive.get(),
                                                           guarded.get(), calib.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  StampResult r;
  r.arrive = arrive.download();
  r.naive = naive.download();
  r.guarded = guarded.download();
  const auto c = calib.download();
  r.ns_per_cycle = c[1] > 0 ? static_cast<double>(c[0]) / static_cast<double>(c[1]) : 0.0;
  return r;
}

}  // namespace cudasync::named_barriers
