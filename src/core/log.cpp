#include "core/log.hpp"

#include <spdlog/spdlog.h>

namespace cudasync::log {

void info(const std::string& line) { spdlog::info("{}", line); }

void debug(const std::string& line) { spdlog::debug("{}", line); }

Timed::~Timed() {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_);
  spdlog::debug("{}: {} ms", what_, ms.count());
}

void warn(const std::string& line) { spdlog::warn("warning: {}", line); }

void error(const std::string& line) { spdlog::error("{}", line); }

}  // namespace cudasync::log
