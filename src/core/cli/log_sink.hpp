#pragma once
// Where cudasync's log lines go: stderr (stdout carries the report), each line starting
// "cudasync: ". On a terminal a long line wraps to the terminal's width, its continuation indented
// under the first word, so a log line never runs past the edge (the report itself folds to the same
// width). A file or a pipe gets each message on one line, whole, for grep.
#include <spdlog/sinks/sink.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cudasync::cli {

std::shared_ptr<spdlog::sinks::sink> stderr_log_sink();

// The lines one message becomes, prefix included: wrapped to `width` columns; whole, as one
// line, when width is 0 (not a terminal).
std::vector<std::string> log_lines(std::string_view message, std::size_t width);

}  // namespace cudasync::cli
