#include "core/shared_gpu.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "core/log.hpp"

namespace cudasync {

namespace {

// The few NVML declarations this file needs, written here because Debian does not ship nvml.h
// (NVML API Reference Guide, docs.nvidia.com/deploy/nvml-api: "Initialization and Cleanup",
// nvmlDeviceGetHandleByPciBusId_v2, nvmlDeviceGetComputeRunningProcesses; nvmlProcessInfo_t as
// the _v2 and _v3 entry points fill it).
using nvmlReturn_t = int;  // NVML_SUCCESS = 0, NVML_ERROR_INSUFFICIENT_SIZE = 7
using nvmlDevice_t = void*;
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
constexpr nvmlReturn_t kNvmlSuccess = 0;
using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ByBusIdFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using ProcessesFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*);

// dlsym returns an object pointer; POSIX requires it to convert to a function pointer.
template <class Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

}  // namespace

int other_processes(const std::vector<unsigned>& pids, unsigned self) {
  const bool self_listed = std::find(pids.begin(), pids.end(), self) != pids.end();
  const int n = static_cast<int>(pids.size());
  return self_listed ? n - 1 : std::max(0, n - 1);
}

std::optional<int> other_processes_on_gpu(const RunContext& ctx) {
  if (!ctx.gpu || !ctx.device || ctx.device->pci_bus_id.empty()) return std::nullopt;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return std::nullopt;
  std::optional<int> out;
  const auto init = symbol<InitFn>(lib, "nvmlInit_v2");
  const auto shutdown = symbol<ShutdownFn>(lib, "nvmlShutdown");
  const auto by_bus = symbol<ByBusIdFn>(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  auto processes = symbol<ProcessesFn>(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (processes == nullptr) processes = symbol<ProcessesFn>(lib, "nvmlDeviceGetComputeRunningProcesses_v2");
  if (init != nullptr && shutdown != nullptr && by_bus != nullptr && processes != nullptr && init() == kNvmlSuccess) {
    nvmlDevice_t device = nullptr;
    nvmlProcessInfo_t infos[256] = {};
    unsigned int count = 256;
    if (by_bus(ctx.device->pci_bus_id.c_str(), &device) == kNvmlSuccess &&
        processes(device, &count, infos) == kNvmlSuccess) {
      std::vector<unsigned> pids;
      for (unsigned int i = 0; i < count && i < 256; ++i) pids.push_back(infos[i].pid);
      out = other_processes(pids, static_cast<unsigned>(getpid()));
    }
    shutdown();
  }
  dlclose(lib);
  return out;
}

void note_if_gpu_shared(const RunContext& ctx, report::Section& s) {
  const std::optional<int> others = other_processes_on_gpu(ctx);
  if (!others || *others == 0) return;
  const std::string line = std::to_string(*others) + (*others == 1 ? " other process is" : " other processes are") +
                           " computing on this GPU (NVML): these timings are not the GPU's alone; run again when "
                           "nvidia-smi shows it free";
  s.note(line);
  log::warn(s.id + ": " + line);
}

}  // namespace cudasync
