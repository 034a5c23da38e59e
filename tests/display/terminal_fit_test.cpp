// Everything cudasync prints for a person fits the terminal. The lessons and their parts come from
// the binary itself (`cudasync list --json`); each lesson runs by default, with every --part and
// with --bench, on the model, at COLUMNS=80 (and 132: no line over it either); explain renders
// every lesson text in both languages; every command's --help wraps. Widths are display widths
// (a CJK character counts two), measured here independently of the renderer's own function.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"

namespace cudasync::test {
namespace {

struct Lesson {
  std::string id;
  std::vector<std::string> parts;
};

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> all = [] {
    const CliResult r = run_cli("list --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    std::vector<Lesson> out;
    for (const auto& row : doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"]) {
      Lesson l{row["lesson"].get<std::string>(), {}};
      std::istringstream parts(row["parts"].get<std::string>());
      for (std::string p; parts >> p;) l.parts.push_back(p);
      out.push_back(std::move(l));
    }
    return out;
  }();
  return all;
}

// Columns a line takes on a terminal: East Asian wide and fullwidth characters two, others one.
std::size_t columns(const std::string& line) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    std::size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (std::size_t k = 1; k < len && i + k < line.size(); ++k) cp = (cp << 6) | (line[i + k] & 0x3f);
    const bool wide = (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
                      (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
                      (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
                      (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x20000 && cp <= 0x3fffd);
    w += wide ? 2 : 1;
    i += len;
  }
  return w;
}

// The lines of `args` run at COLUMNS=width that are wider than width; the run must succeed
// (0, or 77 for a part this build waives) and print something.
std::vector<std::string> too_wide(const std::string& args, std::size_t width) {
  const CliResult r = run_shell("COLUMNS=" + std::to_string(width) + " '" + binary_path() + "' " + args);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 77) << args << ": exit " << r.exit_code << "\n" << r.err;
  EXPECT_FALSE(r.out.empty()) << args;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << args << ": colour on a pipe";
  std::vector<std::string> wide;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (columns(line) > width) wide.push_back(std::to_string(columns(line)) + ": " + line);
  return wide;
}

std::string shown(const std::vector<std::string>& lines) {
  std::string s;
  for (std::size_t i = 0; i < lines.size() && i < 8; ++i) s += "  " + lines[i] + "\n";
  return s;
}

TEST(TerminalFit, ListNamesEveryLessonWithItsParts) {
  // The runs below take their parts from list: it must name every part the command line
  // defines, those that run only with --part (threadfence's ptx, cg-reduce's trace) included.
  ASSERT_GE(lessons().size(), 7u);
  const CliResult spec = run_cli("--cli-spec");
  ASSERT_EQ(spec.exit_code, 0) << spec.err;
  std::size_t only_with_part = 0;
  const auto doc = nlohmann::json::parse(spec.out);
  for (const auto& c : doc["commands"]) {
    if (!c["lesson"].get<bool>()) continue;
    std::vector<std::string> defined;
    for (const auto& p : c["parts"]) {
      defined.push_back(p["id"]);
      if (!p["by_default"].get<bool>()) ++only_with_part;
    }
    const auto l = std::find_if(lessons().begin(), lessons().end(), [&](const Lesson& x) { return x.id == c["name"]; });
    ASSERT_NE(l, lessons().end()) << c["name"];
    EXPECT_EQ(l->parts, defined) << l->id;
  }
  EXPECT_GE(only_with_part, 3u);
}

TEST(TerminalFit, EveryLessonAndEveryPartFits80Columns) {
  // In both languages: Chinese lines wrap between characters and count two columns each.
  std::size_t runs = 0;
  for (const auto& l : lessons())
    for (const std::string lang : {"en", "zh"}) {
      const std::string run = l.id + " --backend model -q --lang " + lang;
      std::vector<std::string> commands{run, run + " --bench"};
      for (const auto& p : l.parts) commands.push_back(run + " --part " + p);
      for (const auto& c : commands) {
        const auto wide = too_wide(c, 80);
        EXPECT_TRUE(wide.empty()) << "cudasync " << c << ": " << wide.size() << " lines over 80\n" << shown(wide);
        ++runs;
      }
    }
  EXPECT_GT(runs, 80u);
}

TEST(TerminalFit, TheTourInTheLocalesLanguageFits80Columns) {
  const auto wide = too_wide("tour --backend model -q", 80);
  EXPECT_TRUE(wide.empty()) << "tour\n" << shown(wide);
  const CliResult r = run_shell("LANG=zh_CN.UTF-8 COLUMNS=80 '" + binary_path() + "' tour --backend model -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::size_t over = 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) over += columns(line) > 80 ? 1 : 0;
  EXPECT_EQ(over, 0u);
  EXPECT_NE(r.out.find("== 记住 =="), std::string::npos) << "LANG=zh_CN.UTF-8 tour prints no Chinese";
}

TEST(TerminalFit, OptionsThatWidenATableStillFit80Columns) {
  // Traces of every block or lane, narrower shuffle segments, more threads, the lockstep model.
  for (const std::string c : {"lockfree-barrier --trace --blocks 64", "named-barriers --trace", "lock --model lockstep",
                              "lock --threads 64 --blocks 8", "deadlock-demo --model lockstep --blocks 64",
                              "cg-reduce --part trace --trace-warp 1", "warp-primitives --width 4"}) {
    const auto wide = too_wide(c + " --backend model -q", 80);
    EXPECT_TRUE(wide.empty()) << "cudasync " << c << ": " << wide.size() << " lines over 80\n" << shown(wide);
  }
}

TEST(TerminalFit, AWiderTerminalIsUsedAndNotExceeded) {
  for (const auto& l : lessons()) {
    const auto wide = too_wide(l.id + " --backend model -q", 132);
    EXPECT_TRUE(wide.empty()) << l.id << " at 132\n" << shown(wide);
  }
  // A wider terminal gets wider lines: the paragraphs fill it.
  const CliResult r = run_shell("COLUMNS=132 '" + binary_path() + "' lock --backend model -q");
  std::size_t longest = 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) longest = std::max(longest, columns(line));
  EXPECT_GT(longest, 100u);
}

TEST(TerminalFit, ToolsFit80Columns) {
  for (const std::string c : {"list", "sources", "devices", "doctor", "--help", "help lock"}) {
    const auto wide = too_wide(c, 80);
    EXPECT_TRUE(wide.empty()) << "cudasync " << c << "\n" << shown(wide);
  }
}

TEST(TerminalFit, ExplainRendersEveryTextIn80Columns) {
  for (const auto& l : lessons())
    for (const std::string lang : {"en", "zh"}) {
      const auto wide = too_wide("explain " + l.id + " --lang " + lang, 80);
      EXPECT_TRUE(wide.empty()) << "explain " << l.id << " --lang " << lang << "\n" << shown(wide);
    }
}

TEST(TerminalFit, EveryHelpFits80Columns) {
  std::vector<std::string> commands{"list", "devices", "explain", "sources", "doctor", "bench", "help"};
  for (const auto& l : lessons()) commands.push_back(l.id);
  for (const auto& c : commands) {
    const auto wide = too_wide(c + " --help", 80);
    EXPECT_TRUE(wide.empty()) << c << " --help\n" << shown(wide);
  }
}

}  // namespace
}  // namespace cudasync::test
