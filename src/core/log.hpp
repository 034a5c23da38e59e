#pragma once
// One line on stderr through the tool's logger ("cudasync: ..."; -q silences it, -v adds debug),
// for code that should not compile spdlog and fmt itself: they are header-only here, and every
// file that includes them pays for compiling fmt. core/log.cpp is the one that does.
#include <string>

namespace cudasync::log {

void info(const std::string& line);
// "cudasync: warning: ...": something went wrong that the run survives (a progress state it
// could not read or save).
void warn(const std::string& line);
// A line that -q does not silence: why a run exits non-zero when its report alone says it (a wrong
// answer to an exercise).
void error(const std::string& line);

}  // namespace cudasync::log
