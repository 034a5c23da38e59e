#pragma once
// Which backend a run uses: the GPU, or the CPU reference model.
#include <optional>
#include <string>

#include "core/device_info.hpp"

namespace cudasync {

enum class BackendRequest { automatic, gpu, model };
const char* to_string(BackendRequest b);

struct BackendChoice {
  bool gpu = false;                  // true: kernels run and are checked against the model
  std::optional<DeviceInfo> device;  // set when gpu
  std::string reason;                // one line: which backend and why, in English (the JSON's run metadata)
  std::string said;                  // the same in the run's language, for the log line
};

// model: always the model (no GPU needed, --device ignored). auto: the GPU when one is usable, else the model (reason says why). gpu: NoGpuError (exit 3)
// when none is usable. --device out of range: UsageError (exit 2) when GPUs exist, NoGpuError
// (exit 3) when there are none at all. Pure: tests feed it made-up probes.
BackendChoice choose_backend(BackendRequest request, std::optional<int> device, const GpuProbe& probe);

}  // namespace cudasync
