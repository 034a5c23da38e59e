// The model-only build: there is no CUDA runtime to ask, and cudasync says so.
#include "core/device_info.hpp"
#include "core/errors.hpp"
#include "core/gpu_entry.hpp"
#include "core/memory_budget.hpp"
#include "core/words/words.hpp"

namespace cudasync {

GpuProbe probe_gpus() {
  GpuProbe p;
  p.built_with_cuda = false;
  p.reason = words::say_both("core", "driver.built-without-cuda");
  return p;
}

}  // namespace cudasync

namespace cudasync {

void gpu_not_built_in(const char* entry) {
  throw NoGpuError(std::string(entry) + ": this cudasync was built without CUDA");
}

}  // namespace cudasync

namespace cudasync {

std::optional<std::uint64_t> free_device_memory(int) { return std::nullopt; }

}  // namespace cudasync
