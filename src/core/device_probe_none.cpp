// The model-only build: there is no CUDA runtime to ask, and cudasync says so.
#include "core/device_info.hpp"

namespace cudasync {

GpuProbe probe_gpus() {
  GpuProbe p;
  p.built_with_cuda = false;
  p.reason = "this cudasync was built without CUDA; rebuild with the CUDA toolkit for the GPU backend";
  return p;
}

}  // namespace cudasync
