#include "core/log.hpp"

#include <spdlog/spdlog.h>

namespace cudasync::log {

void info(const std::string& line) { spdlog::info("{}", line); }

void warn(const std::string& line) { spdlog::warn("warning: {}", line); }

}  // namespace cudasync::log
