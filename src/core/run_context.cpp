#include "core/run_context.hpp"

namespace cudasync {

std::string RunContext::device_text() const {
  if (!gpu || !device) return "";
  const DeviceInfo& d = *device;
  return "GPU " + std::to_string(d.index) + ", " + d.name + ", " + std::to_string(d.sm_count) + " SMs, cc " +
         d.cc_string();
}

}  // namespace cudasync
