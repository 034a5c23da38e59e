#include "core/cli/log_sink.hpp"

#include <spdlog/sinks/base_sink.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "core/cli/terminal.hpp"
#include "core/report/text_width.hpp"

namespace cudasync::cli {

namespace {

constexpr std::string_view kPrefix = "cudasync: ";

class StderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const auto lines = log_lines(std::string_view(msg.payload.data(), msg.payload.size()),
                                 static_cast<std::size_t>(terminal_columns(STDERR_FILENO)));
    for (const auto& l : lines) std::fprintf(stderr, "%s\n", l.c_str());
  }
  void flush_() override { std::fflush(stderr); }
};

}  // namespace

std::vector<std::string> log_lines(std::string_view message, std::size_t width) {
  if (width <= kPrefix.size() + 20) return {std::string(kPrefix) + std::string(message)};
  std::vector<std::string> out;
  const std::string indent(kPrefix.size(), ' ');
  std::size_t start = 0;
  while (true) {
    const std::size_t end = message.find('\n', start);
    const std::string_view line = message.substr(start, end == std::string_view::npos ? end : end - start);
    for (const auto& piece : report::wrap_text(line, width - kPrefix.size()))
      out.push_back((out.empty() ? std::string(kPrefix) : indent) + piece);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

std::shared_ptr<spdlog::sinks::sink> stderr_log_sink() { return std::make_shared<StderrSink>(); }

}  // namespace cudasync::cli
