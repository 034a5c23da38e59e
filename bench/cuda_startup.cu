// Probe: where a process's CUDA start-up goes (the start-up issue's question: what does the probe
// of every GPU cost, and what does choosing one cost). Times each runtime call cudasync's start-up
// makes, in the order it makes them, in ms:
//   cuda_startup            every GPU visible
//   CUDA_VISIBLE_DEVICES=0 cuda_startup
// prints "count 331.2 | props[0] 0.4 | attrs[0] 0.1 | ... | select 112.5 | total 450.1".
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>

#include "probe_clock.hpp"

int main() {
  const auto start = std::chrono::steady_clock::now();
  auto t = start;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    std::printf("cudaGetDeviceCount failed\n");
    return 1;
  }
  std::printf("devices %d | count %.1f", count, ms_since(t));
  for (int d = 0; d < count; ++d) {
    t = std::chrono::steady_clock::now();
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, d);
    std::printf(" | props[%d] %.1f", d, ms_since(t));
    t = std::chrono::steady_clock::now();
    int v = 0;
    for (const cudaDeviceAttr a : {cudaDevAttrComputeCapabilityMajor, cudaDevAttrMultiProcessorCount,
                                   cudaDevAttrMaxThreadsPerMultiProcessor, cudaDevAttrL2CacheSize,
                                   cudaDevAttrCooperativeLaunch, cudaDevAttrClockRate})
      cudaDeviceGetAttribute(&v, a, d);
    std::printf(" | attrs[%d] %.2f", d, ms_since(t));
    t = std::chrono::steady_clock::now();
    char bus[32];
    cudaDeviceGetPCIBusId(bus, sizeof bus, d);
    std::printf(" | bus[%d] %.2f", d, ms_since(t));
  }
  t = std::chrono::steady_clock::now();
  cudaSetDevice(0);
  cudaFree(nullptr);
  std::printf(" | select %.1f", ms_since(t));
  t = std::chrono::steady_clock::now();
  void* p = nullptr;
  cudaMalloc(&p, 1 << 20);
  cudaFree(p);
  std::printf(" | malloc %.1f | total %.1f\n", ms_since(t), ms_since(start));
  return 0;
}
