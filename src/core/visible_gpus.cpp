#include "core/visible_gpus.hpp"

#include <cstdlib>
#include <sstream>
#include <vector>

namespace cudasync {

std::optional<std::string> visible_device_entry(int index, const char* cuda_visible_devices) {
  if (index < 0) return std::nullopt;
  if (cuda_visible_devices == nullptr) return std::to_string(index);
  std::vector<std::string> entries;
  std::istringstream in(cuda_visible_devices);
  for (std::string e; std::getline(in, e, ',');) {
    const auto first = e.find_first_not_of(" \t");
    const auto last = e.find_last_not_of(" \t");
    entries.push_back(first == std::string::npos ? "" : e.substr(first, last - first + 1));
  }
  if (static_cast<std::size_t>(index) >= entries.size() || entries[static_cast<std::size_t>(index)].empty())
    return std::nullopt;
  return entries[static_cast<std::size_t>(index)];
}

std::optional<std::string> child_visible_devices(int index) {
  const auto entry = visible_device_entry(index, std::getenv("CUDA_VISIBLE_DEVICES"));
  if (!entry) return std::nullopt;
  return "CUDA_VISIBLE_DEVICES=" + *entry;
}

}  // namespace cudasync
