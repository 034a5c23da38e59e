#pragma once
// What a command's run() receives: the chosen backend and the options every command shares.
// Plain data, so techniques need neither CLI11 nor CUDA to read it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.hpp"

namespace cudasync {

struct CommandSummary {
  std::string name;
  std::string summary;
  bool is_lesson = false;
};

struct RunContext {
  bool gpu = false;                    // kernels run; the model checks them
  std::optional<DeviceInfo> device;    // set when gpu
  std::uint64_t seed = 1;
  bool bench = false;                  // measure with more repetitions
  const GpuProbe* probe = nullptr;     // for list / devices
  std::vector<CommandSummary> commands;  // the main table, for list
};

}  // namespace cudasync
