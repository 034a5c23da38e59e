#include "core/cuda/check.hpp"

#include <cstdio>

namespace cudasync::cuda {

namespace {
std::string describe(cudaError_t e, const char* call, const char* file, int line) {
  // Only the file name: full build paths make messages long and machine-specific.
  std::string f = file;
  if (const auto slash = f.find_last_of('/'); slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorString(e) + " (" +
         cudaGetErrorName(e) + ")";
}
}  // namespace

void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(e, describe(e, call, file, line));
}

void log_cuda_error(cudaError_t e, const char* call, const char* file, int line) noexcept {
  // Destructors run during unwinding; stderr is the one place left to say it.
  std::fprintf(stderr, "cudasync: %s\n", describe(e, call, file, line).c_str());
}

}  // namespace cudasync::cuda
