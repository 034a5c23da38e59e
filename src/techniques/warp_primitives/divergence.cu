// The kernel of part divergence (Fan 10.1): the same 32-case switch on the warp or on the lane. It
// fills plain arrays and never prints; divergence.cpp turns them into a section.
#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/warp_primitives/warp.hpp"

namespace cudasync::warp_primitives {

using cuda::DeviceBuffer;

namespace {

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

}  // namespace cudasync::warp_primitives
