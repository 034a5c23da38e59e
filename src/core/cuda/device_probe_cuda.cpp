// Asks the CUDA runtime what GPUs this process can see. Never throws: a missing driver is a
// normal state for cudasync (it falls back to the model), and `reason` says what happened.
#include <cuda_runtime_api.h>

#include "core/device_info.hpp"
#include "core/memory_budget.hpp"
#include "core/nvidia_driver.hpp"
#include "core/words/words.hpp"

namespace cudasync {

namespace {
int attribute(cudaDeviceAttr attr, int dev) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess) return 0;
  return v;
}
}  // namespace

GpuProbe probe_gpus() {
  GpuProbe p;
  p.built_with_cuda = true;
  cudaRuntimeGetVersion(&p.runtime_version);
  if (cudaDriverGetVersion(&p.driver_version) != cudaSuccess) p.driver_version = 0;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    // The static runtime says "CUDA driver version is insufficient for CUDA runtime version" both
    // when there is no driver at all and when it is too old: tell the two apart.
    if (!libcuda_loadable()) p.reason = no_driver_message();
    else if (p.driver_version > 0 && !driver_new_enough(p.driver_version, p.runtime_version))
      p.reason = old_driver_message(p.driver_version, p.runtime_version);
    else p.reason = words::say_both("core", "driver.runtime-error", {{"call", "cudaGetDeviceCount"}, {"error", cudaGetErrorString(e)}});
    cudaGetLastError();  // clear the sticky-less error so later calls start clean
    return p;
  }
  if (count == 0) {
    p.reason = words::say_both("core", "driver.zero-devices");
    return p;
  }
  for (int dev = 0; dev < count; ++dev) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = dev;
    d.name = prop.name;
    d.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, dev);
    d.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, dev);
    d.sm_count = attribute(cudaDevAttrMultiProcessorCount, dev);
    d.warp_size = attribute(cudaDevAttrWarpSize, dev);
    d.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock, dev);
    d.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    d.max_blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, dev);
    d.shared_mem_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    d.regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, dev);
    d.l2_bytes = attribute(cudaDevAttrL2CacheSize, dev);
    d.clock_khz = attribute(cudaDevAttrClockRate, dev);
    d.cooperative_launch = attribute(cudaDevAttrCooperativeLaunch, dev) != 0;
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, dev) == cudaSuccess) d.pci_bus_id = bus_id;
    else cudaGetLastError();
    p.devices.push_back(d);
  }
  if (p.devices.empty()) p.reason = words::say_both("core", "driver.no-properties");
  return p;
}

std::optional<std::uint64_t> free_device_memory(int device) {
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) current = -1;
  if (cudaSetDevice(device) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  std::size_t free = 0, total = 0;
  const cudaError_t e = cudaMemGetInfo(&free, &total);
  if (current >= 0 && current != device) cudaSetDevice(current);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(free);
}

}  // namespace cudasync
