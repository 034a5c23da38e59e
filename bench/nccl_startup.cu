// Probe: what NCCL's start-up costs in a process that has already started CUDA (multi-gpu opens its
// communicators beside its first parts; the start-up issue's question is what the 830 ms it took on
// two H100 are made of, and which of NCCL's documented settings cut it for a single-process pair
// of GPUs). Times, in ms: the device count, a context on each visible GPU, ncclCommInitAll over
// them, one all-reduce of one integer (its first use connects), and the communicators' destruction.
//   nccl_startup                          prints "gpus 2 | count 331.2 | contexts 220.0 | ... "
//   NCCL_IB_DISABLE=1 nccl_startup        the same with NCCL's settings of the run's environment
//   nccl_startup --no-destroy             the communicators left to the process's exit, as a
//                                         cudasync process does (time the whole process around it)
// NCCL itself reads its settings from the environment, so the variants are the caller's.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_clock.hpp"

int main(int argc, char** argv) {
  const bool destroy = !(argc > 1 && std::string(argv[1]) == "--no-destroy");
  const auto start = std::chrono::steady_clock::now();
  auto t = start;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    std::printf("no GPU\n");
    return 1;
  }
  std::printf("gpus %d | count %.1f", count, ms_since(t));
  t = std::chrono::steady_clock::now();
  std::vector<int> devs(static_cast<std::size_t>(count));
  std::vector<cudaStream_t> streams(devs.size());
  for (int d = 0; d < count; ++d) {
    devs[static_cast<std::size_t>(d)] = d;
    cudaSetDevice(d);
    cudaFree(nullptr);
    cudaStreamCreate(&streams[static_cast<std::size_t>(d)]);
  }
  std::printf(" | contexts %.1f", ms_since(t));
  t = std::chrono::steady_clock::now();
  std::vector<ncclComm_t> comms(devs.size());
  const ncclResult_t r = ncclCommInitAll(comms.data(), count, devs.data());
  std::printf(" | init %.1f", ms_since(t));
  if (r != ncclSuccess) {
    std::printf(" | failed: %s\n", ncclGetErrorString(r));
    return 1;
  }
  std::vector<int*> buf(devs.size());
  for (int d = 0; d < count; ++d) {
    cudaSetDevice(d);
    cudaMalloc(&buf[static_cast<std::size_t>(d)], sizeof(int));
  }
  t = std::chrono::steady_clock::now();
  ncclGroupStart();
  for (int d = 0; d < count; ++d) {
    const auto i = static_cast<std::size_t>(d);
    ncclAllReduce(buf[i], buf[i], 1, ncclInt, ncclSum, comms[i], streams[i]);
  }
  ncclGroupEnd();
  for (int d = 0; d < count; ++d) {
    cudaSetDevice(d);
    cudaStreamSynchronize(streams[static_cast<std::size_t>(d)]);
  }
  std::printf(" | first all-reduce %.1f", ms_since(t));
  t = std::chrono::steady_clock::now();
  if (destroy)
    for (auto c : comms) ncclCommDestroy(c);
  std::printf(" | destroy %.1f | total %.1f\n", destroy ? ms_since(t) : 0.0, ms_since(start));
  return 0;
}
