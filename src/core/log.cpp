#include "core/log.hpp"

#include <spdlog/spdlog.h>

namespace cudasync::log {

void info(const std::string& line) { spdlog::info("{}", line); }

}  // namespace cudasync::log
