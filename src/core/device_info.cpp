#include "core/device_info.hpp"

namespace cudasync {

std::string version_string(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace cudasync
