#pragma once
// One line on stderr through the tool's logger ("cudasync: ..."; -q silences it, -v adds debug),
// for code that should not compile spdlog and fmt itself: they are header-only here, and every
// file that includes them pays for compiling fmt. core/log.cpp is the one that does.
#include <chrono>
#include <string>

namespace cudasync::log {

void info(const std::string& line);
// Shown with -v only: where a run spends its time ("part misuse: 412 ms").
void debug(const std::string& line);
// "cudasync: warning: ...": something went wrong that the run survives (a progress state it
// could not read or save).
void warn(const std::string& line);
// A line that -q does not silence: why a run exits non-zero when its report alone says it (a wrong
// answer to an exercise).
void error(const std::string& line);

// With -v, how long a scope took, logged as it ends ("multi-gpu: NCCL communicators: 412 ms"):
//   { log::Timed t("multi-gpu: NCCL communicators"); ... }
class Timed {
 public:
  explicit Timed(std::string what) : what_(std::move(what)), start_(std::chrono::steady_clock::now()) {}
  ~Timed();
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  std::string what_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cudasync::log
