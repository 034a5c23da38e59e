// core/cuda/memory_stress.hpp: the kernel and its owner.
#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/memory_stress.hpp"

namespace cudasync::cuda {

namespace {

// Each thread walks its own xorshift sequence over the buffer: a store, a load, an atomic add, and
// a store to the next line, in turn. The flag (mapped host memory) and the clock are read every 64
// steps. Racy on purpose: the values are never read by anyone but the stress itself.
__global__ void memory_stress_kernel(unsigned* words, unsigned mask, const volatile int* stop,
                                     unsigned long long budget_ns) {
  const unsigned long long end = globaltimer_ns() + budget_ns;
  unsigned x = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u + 12345u;
  unsigned sink = 0;
  volatile unsigned* v = words;
  for (unsigned i = 0;; ++i) {
    if ((i & 63u) == 0 && (*stop != 0 || past(end))) break;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    const unsigned at = x & mask;
    switch (i & 3u) {
      case 0: v[at] = x; break;
      case 1: sink += v[at]; break;
      case 2: atomicAdd(words + at, 1u); break;
      default: v[(at + 32u) & mask] = sink; break;
    }
  }
  if (sink == 0x5eed5eedu) words[0] = sink;  // keeps the loads
}

}  // namespace

MemoryStress::MemoryStress() {
  int device = 0, sms = 1;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  blocks_ = sms / 4 > 0 ? sms / 4 : 1;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&words_), kWords * sizeof(unsigned)));
  CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&stop_host_), sizeof(int), cudaHostAllocMapped));
  *stop_host_ = 0;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&stop_dev_), stop_host_, 0));
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

MemoryStress::~MemoryStress() {
  if (stream_) CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
  if (stop_host_) CUDA_CHECK_NOTHROW(cudaFreeHost(stop_host_));
  if (words_) CUDA_CHECK_NOTHROW(cudaFree(words_));
}

void MemoryStress::start() {
  *static_cast<volatile int*>(stop_host_) = 0;
  memory_stress_kernel<<<blocks_, kThreads, 0, stream_>>>(words_, static_cast<unsigned>(kWords - 1), stop_dev_,
                                                         kBudgetNs);
  CUDA_CHECK(cudaGetLastError());
}

void MemoryStress::stop() {
  *static_cast<volatile int*>(stop_host_) = 1;
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace cudasync::cuda
