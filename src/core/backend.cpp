#include "core/backend.hpp"

#include "core/errors.hpp"

namespace cudasync {

const char* to_string(BackendRequest b) {
  switch (b) {
    case BackendRequest::automatic: return "auto";
    case BackendRequest::gpu: return "gpu";
    case BackendRequest::model: return "model";
  }
  return "auto";
}

BackendChoice choose_backend(BackendRequest request, std::optional<int> device, const GpuProbe& probe) {
  BackendChoice c;
  if (request == BackendRequest::model) {  // the model never needs a GPU, whatever --device says
    c.reason = "backend: model (asked for with --backend model)";
    return c;
  }
  const int count = static_cast<int>(probe.devices.size());
  if (device && (*device < 0 || *device >= count)) {
    if (count == 0) {
      throw NoGpuError("--device " + std::to_string(*device) + ": this machine has no usable GPU (" +
                       probe.reason + ")");
    }
    throw UsageError("--device " + std::to_string(*device) + " is out of range: " + std::to_string(count) +
                     " GPU(s) visible (numbered after CUDA_VISIBLE_DEVICES); accepted: 0.." +
                     std::to_string(count - 1));
  }
  if (count == 0) {
    if (request == BackendRequest::gpu) {
      throw NoGpuError("--backend gpu: no usable GPU (" + probe.reason + ")");
    }
    c.reason = "backend: model (no usable GPU: " + probe.reason + ")";
    return c;
  }
  const DeviceInfo& d = probe.devices[static_cast<std::size_t>(device.value_or(0))];
  c.gpu = true;
  c.device = d;
  c.reason = "backend: gpu " + std::to_string(d.index) + " (" + d.name + ", compute capability " +
             d.cc_string() + "), each result checked against the reference model";
  return c;
}

}  // namespace cudasync
