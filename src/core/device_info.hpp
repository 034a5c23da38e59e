#pragma once
// What cudasync knows about the GPUs of this machine, as plain data (no CUDA types), so that the
// model-only build, the renderers and the tests can use it.
#include <string>
#include <vector>

#include "core/words/catalog.hpp"

namespace cudasync {

struct DeviceInfo {
  int index = 0;                 // after CUDA_VISIBLE_DEVICES remapping
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;     // co-residency: the hardware limit of resident blocks per SM
  int shared_mem_per_sm = 0;     // bytes
  int regs_per_sm = 0;
  int l2_bytes = 0;
  int clock_khz = 0;             // 0 where the runtime no longer reports it
  bool cooperative_launch = false;
  std::string pci_bus_id;        // "0000:65:00.0" (cudaDeviceGetPCIBusId): how NVML finds the same GPU
  int compute_capability() const { return cc_major * 10 + cc_minor; }
  std::string cc_string() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
};

struct GpuProbe {
  bool built_with_cuda = false;
  int driver_version = 0;        // e.g. 13000; 0 if no driver
  int runtime_version = 0;
  std::vector<DeviceInfo> devices;
  words::Entry reason;           // why no device is usable, when `devices` is empty: English and Chinese
};

// Asks the CUDA runtime once (cudaGetDeviceCount and attributes). Never throws: failures end up
// in `reason`. The model-only build answers "built without CUDA".
GpuProbe probe_gpus();

std::string version_string(int cuda_version);  // 13000 -> "13.0"

}  // namespace cudasync
