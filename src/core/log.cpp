#include "core/log.hpp"

#include <spdlog/spdlog.h>

namespace cudasync::log {

void info(const std::string& line) { spdlog::info("{}", line); }

void warn(const std::string& line) { spdlog::warn("warning: {}", line); }

void error(const std::string& line) { spdlog::error("{}", line); }

}  // namespace cudasync::log
