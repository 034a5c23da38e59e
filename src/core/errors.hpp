#pragma once
// The exit codes cudasync documents (README, --help) and the exceptions that carry them to main.
#include <stdexcept>
#include <string>

namespace cudasync {

enum class ExitCode : int {
  ok = 0,
  check_failed = 1,  // the GPU disagreed with the model, or a correctness check failed
  usage = 2,         // bad input: an option value, a combination, an unwritable --json path
  no_gpu = 3,        // --backend gpu without a usable GPU, or a CUDA driver/runtime error
  waived = 77,       // the lesson or part is not supported on this GPU (the reason is printed)
};

// What main writes into the JSON error object ("kind") and how it exits.
struct Error : std::runtime_error {
  Error(ExitCode c, std::string kind_name, const std::string& message)
      : std::runtime_error(message), code(c), kind(std::move(kind_name)) {}
  ExitCode code;
  std::string kind;
};

struct UsageError : Error {
  explicit UsageError(const std::string& m) : Error(ExitCode::usage, "usage", m) {}
};
struct NoGpuError : Error {
  explicit NoGpuError(const std::string& m) : Error(ExitCode::no_gpu, "no_gpu", m) {}
};
struct WaivedError : Error {
  explicit WaivedError(const std::string& m) : Error(ExitCode::waived, "waived", m) {}
};

}  // namespace cudasync
