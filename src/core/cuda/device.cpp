#include "core/cuda/device.hpp"

#include <cuda_runtime_api.h>

#include "core/cuda/check.hpp"

namespace cudasync::cuda {

void select_device(int index) {
  CUDA_CHECK(cudaSetDevice(index));
  CUDA_CHECK(cudaFree(nullptr));
}

}  // namespace cudasync::cuda
