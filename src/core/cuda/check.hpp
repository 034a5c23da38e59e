#pragma once
// One CUDA_CHECK for every runtime call: it throws a CudaError naming the file, the line and the
// call's text, so a failure deep in a lesson reads like "warp_primitives_kernels.cu:88:
// cudaMemcpy(...) failed: an illegal memory access was encountered". CUDA_CHECK_NOTHROW is the
// twin for destructors, which must not throw. Plain C++: usable from .cpp and .cu alike.
#include <cuda_runtime_api.h>

#include <string>

#include "core/errors.hpp"

namespace cudasync::cuda {

struct CudaError : Error {
  CudaError(cudaError_t e, const std::string& what) : Error(ExitCode::no_gpu, "cuda", what), error(e) {}
  cudaError_t error;
};

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line);
void log_cuda_error(cudaError_t e, const char* call, const char* file, int line) noexcept;

}  // namespace cudasync::cuda

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    const cudaError_t cudasync_err_ = (call);                                         \
    if (cudasync_err_ != cudaSuccess)                                                 \
      ::cudasync::cuda::throw_cuda_error(cudasync_err_, #call, __FILE__, __LINE__);   \
  } while (0)

#define CUDA_CHECK_NOTHROW(call)                                                      \
  do {                                                                                \
    const cudaError_t cudasync_err_ = (call);                                         \
    if (cudasync_err_ != cudaSuccess)                                                 \
      ::cudasync::cuda::log_cuda_error(cudasync_err_, #call, __FILE__, __LINE__);     \
  } while (0)

// After every kernel launch: a bad configuration shows up here, a fault at the next sync.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
