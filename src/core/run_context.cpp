#include "core/run_context.hpp"

#include "core/log.hpp"

namespace cudasync {

const GpuProbe& RunContext::gpus() const {
  if (probe != nullptr) return *probe;
  if (!probed_->has_value()) {
    const log::Timed timed("GPU probe");  // -v: "GPU probe: 335 ms"
    *probed_ = probe_gpus();
  }
  return **probed_;
}

std::string RunContext::device_text() const {
  if (!gpu || !device) return "";
  const DeviceInfo& d = *device;
  return "GPU " + std::to_string(d.index) + ", " + d.name + ", " + std::to_string(d.sm_count) + " SMs, cc " +
         d.cc_string();
}

}  // namespace cudasync
