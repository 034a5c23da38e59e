// Log lines on stderr: one whole line for a file or a pipe (grep finds the message), wrapped to the
// terminal's width on a terminal, the continuation under the first word.
#include <gtest/gtest.h>

#include <string>

#include "core/cli/log_sink.hpp"
#include "core/report/text_width.hpp"

using cudasync::cli::log_lines;

namespace {

const std::string kNoDriver =
    "backend: model (no usable GPU: no NVIDIA driver found (libcuda.so.1 cannot be loaded))";

TEST(LogSink, NotATerminalKeepsTheMessageWhole) {
  const auto lines = log_lines(kNoDriver, 0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "cudasync: " + kNoDriver);
}

TEST(LogSink, ATerminalOf80ColumnsGetsLinesThatFit) {
  const auto lines = log_lines(kNoDriver, 80);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("cudasync: backend: model", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("          ", 0), 0u) << lines[1];
  std::string joined;
  for (const auto& l : lines) {
    EXPECT_LE(cudasync::report::display_width(l), 80u) << l;
    joined += (joined.empty() ? "" : " ") + l.substr(10);
  }
  EXPECT_EQ(joined, kNoDriver);
}

TEST(LogSink, EachLineOfAMessageWrapsOnItsOwn) {
  const auto lines = log_lines("first line\nsecond line", 80);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "cudasync: first line");
  EXPECT_EQ(lines[1], "          second line");
}

}  // namespace
