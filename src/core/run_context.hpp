#pragma once
// What a command's run receives: the chosen backend and the options every command shares. Plain
// data, so lessons need neither CLI11 nor CUDA to read it, and never read the command line.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/device_info.hpp"

namespace cudasync {

// One part of a lesson as `list`, `help` and the course show it.
struct PartSummary {
  std::string id;
  std::string title;
  std::string summary;
  bool needs_gpu = false;  // only a GPU gives its results; the model explains what it can
  bool by_default = true;  // runs when --part is not given
};

struct CommandSummary {
  std::string name;
  std::string summary;
  bool is_lesson = false;
  std::vector<PartSummary> parts;
  std::vector<int> kernel_exercises;  // the numbers of its write-your-own-kernel exercises (NVRTC)
  std::vector<std::pair<std::string, std::string>> needs;  // its manifest's needs: {need, the part}
};

// --max-memory's default: 1 GiB of host memory per run.
inline constexpr std::uint64_t kDefaultMaxMemory = std::uint64_t{1} << 30;

struct RunContext {
  BackendRequest backend_request = BackendRequest::automatic;  // what --backend asked for
  std::optional<int> device_request;   // what --device asked for (tools that start lessons pass it on)
  bool gpu = false;                    // kernels run; the model checks them
  std::optional<DeviceInfo> device;    // set when gpu
  std::uint64_t seed = 1;
  bool bench = false;                  // --bench: measure more (or run the lesson's sweep)
  bool color = false;                  // the text goes to a terminal in colour
  std::uint64_t max_memory = kDefaultMaxMemory;  // --max-memory: the host bytes a run may take (core/memory_budget.hpp)
  // The process exits right after this run (the command line's process; tests that run lessons in
  // their own process leave it false): what the run holds may be left to the operating system.
  bool ends_process = false;
  std::string lang = "en";             // the language printed: "en" or "zh" (core/words/language.hpp)
  const GpuProbe* probe = nullptr;     // a probe made already (the run's, or a test's); else gpus() makes one
  std::vector<CommandSummary> commands;  // the main table, for list

  // The GPUs this process sees: `probe` when set, else asked of the CUDA runtime on the first call
  // and kept (copies of this context share it). Only what needs it calls it, so `explain`, `sources`
  // or a lesson under --backend model never start the CUDA driver (hundreds of ms on a GPU machine).
  const GpuProbe& gpus() const;

  int compute_capability() const { return device ? device->compute_capability() : 0; }
  // "GPU 0, NVIDIA H100 80GB HBM3, 132 SMs, cc 9.0"; "" without a GPU.
  std::string device_text() const;

 private:
  std::shared_ptr<std::optional<GpuProbe>> probed_ = std::make_shared<std::optional<GpuProbe>>();
};

}  // namespace cudasync
