// "Every command a lesson text shows is run by the tests": each `$ cudasync ...` line inside a
// ```console block of lessons/<lesson>/<lang>.md, of the teachers' guide lessons/README*.md and of
// README.md, is run here, and must exit 0,
// or the code its trailing `# exit N` comment names. Without a GPU they run on the reference model;
// on a GPU machine the same lines run on the GPU. A README pipeline into jq must also name a path
// that exists in today's output (jq prints null for a path that does not, and exits 0). A command
// of a two-GPU part waives on a machine with one GPU (and runs the model without any):
// `# exit 77 on one GPU` expects 77 there, 0 elsewhere.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/device_info.hpp"
#include "support/run_cli.hpp"

namespace cudasync::test {
namespace {

namespace fs = std::filesystem;

struct ShownCommand {
  std::string command;  // as shown, starting with "cudasync"
  int expected_exit = 0;
  bool on_one_gpu = false;  // `# exit N on one GPU`: N only where exactly one GPU is visible, else 0
};

int visible_gpus() {
  static const int n = static_cast<int>(probe_gpus().devices.size());
  return n;
}

std::vector<ShownCommand> commands_in(const std::string& markdown) {
  std::vector<ShownCommand> out;
  std::istringstream in(markdown);
  std::string line;
  bool in_console = false;
  static const std::regex exit_comment(R"(\s+#\s*exit\s+(\d+)( on one GPU)?\s*$)");
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      in_console = !in_console && line.find("console") != std::string::npos;
      continue;
    }
    if (!in_console || line.rfind("$ cudasync", 0) != 0) continue;
    ShownCommand c;
    c.command = line.substr(2);
    std::smatch m;
    if (std::regex_search(c.command, m, exit_comment)) {
      c.expected_exit = std::stoi(m[1].str());
      c.on_one_gpu = m[2].matched;
      c.command = c.command.substr(0, static_cast<std::size_t>(m.position(0)));
    }
    out.push_back(c);
  }
  return out;
}

bool have_jq() { return run_shell("command -v jq >/dev/null").exit_code == 0; }

std::vector<fs::path> lesson_dirs() {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(fs::path(source_dir()) / "lessons"))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

TEST(LessonCommands, EveryLessonHasBothLanguagesShowingTheSameCommands) {
  const auto dirs = lesson_dirs();
  ASSERT_FALSE(dirs.empty());
  for (const auto& d : dirs) {
    SCOPED_TRACE(d.string());
    ASSERT_TRUE(fs::exists(d / "en.md"));
    ASSERT_TRUE(fs::exists(d / "zh.md"));
    const auto en = commands_in(read_file((d / "en.md").string()));
    const auto zh = commands_in(read_file((d / "zh.md").string()));
    EXPECT_FALSE(en.empty()) << "a lesson text with no command to run";
    std::vector<std::string> en_cmds, zh_cmds;
    for (const auto& c : en) en_cmds.push_back(c.command);
    for (const auto& c : zh) zh_cmds.push_back(c.command);
    EXPECT_EQ(en_cmds, zh_cmds) << "en.md and zh.md show different commands";
  }
}

// One test per lesson folder, so that `ctest -R 'LessonCommands.*lock'` runs one lesson's commands.
class ShownCommands : public ::testing::TestWithParam<std::string> {};

// The jq filter of a shown pipeline, `... | jq 'FILTER'`, without its quotes ("" when there is none).
std::string jq_filter(const std::string& command) {
  const auto pipe = command.find(" | jq '");
  if (pipe == std::string::npos) return "";
  const auto open = pipe + 7;
  const auto close = command.rfind('\'');
  return close > open ? command.substr(open, close - open) : "";
}

// Runs one shown command and checks its exit code (and, for a usage error, that it says why).
void run_shown(const ShownCommand& c, bool jq) {
  std::string cmd = c.command;
  const auto pipe = cmd.find(" | ");
  const bool piped = pipe != std::string::npos;
  if (piped) {
    ASSERT_EQ(cmd.compare(pipe, 6, " | jq "), 0) << "shown commands may pipe only to jq";
    if (!jq) cmd = cmd.substr(0, pipe);  // no jq here: still run cudasync and check its JSON
  }
  const CliResult r = run_shell(with_binary(cmd));
  const int expected = c.on_one_gpu && visible_gpus() != 1 ? 0 : c.expected_exit;
  EXPECT_EQ(r.exit_code, expected) << "stderr: " << r.err;
  if (piped && !jq && expected == 0) {
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << "not one JSON document: " << r.out.substr(0, 200);
  }
  if (expected == 2) {
    EXPECT_NE(r.err.find("error"), std::string::npos) << "a usage error must say why";
  }
}

TEST_P(ShownCommands, RunWithTheirStatedExitCode) {
  const bool jq = have_jq();
  const fs::path d = fs::path(source_dir()) / "lessons" / GetParam();
  int ran = 0;
  for (const char* lang : {"en.md", "zh.md"}) {
    if (!fs::exists(d / lang)) continue;
    for (const auto& c : commands_in(read_file((d / lang).string()))) {
      SCOPED_TRACE((d / lang).string() + ": " + c.command);
      run_shown(c, jq);
      ++ran;
    }
  }
  EXPECT_GT(ran, 0);
}

// README.md's console commands, its JSON pipelines included.
TEST(ReadmeCommands, RunWithTheirStatedExitCode) {
  const bool jq = have_jq();
  const auto commands = commands_in(read_file(source_dir() + "/README.md"));
  int piped = 0;
  for (const auto& c : commands) {
    SCOPED_TRACE("README.md: " + c.command);
    run_shown(c, jq);
    const std::string filter = jq_filter(c.command);
    if (filter.empty()) continue;
    ++piped;
    ASSERT_EQ(filter.find('\''), std::string::npos) << "a filter in single quotes holds no single quote";
    if (!jq) continue;
    // A filter that is a path must name one that exists: its path() is among the document's paths.
    // A filter that builds a value ([...]) has no path(); jq's try lets it through.
    const std::string cudasync = c.command.substr(0, c.command.find(" | "));
    const CliResult exists = run_shell(with_binary(cudasync + " | jq -e 'try (path(" + filter +
                                                   ") as $p | any(paths; . == $p)) catch true'"));
    EXPECT_EQ(exists.exit_code, 0) << "the filter names a path today's output does not have\n" << exists.out
                                   << exists.err;
  }
  EXPECT_GE(piped, 3) << "the README's JSON section shows three pipelines";
}

// The teachers' guide (lessons/README.md and README.zh.md): the same commands in both languages, each
// run with its stated exit code.
TEST(LessonsGuideCommands, BothLanguagesShowTheSameCommandsAndTheyRun) {
  const bool jq = have_jq();
  const auto en = commands_in(read_file(source_dir() + "/lessons/README.md"));
  const auto zh = commands_in(read_file(source_dir() + "/lessons/README.zh.md"));
  std::vector<std::string> en_cmds, zh_cmds;
  for (const auto& c : en) en_cmds.push_back(c.command);
  for (const auto& c : zh) zh_cmds.push_back(c.command);
  EXPECT_EQ(en_cmds, zh_cmds) << "README.md and README.zh.md show different commands";
  EXPECT_GE(en.size(), 5u);
  for (const auto& c : en) {
    SCOPED_TRACE("lessons/README.md: " + c.command);
    run_shown(c, jq);
  }
}

// The lab plans (lessons/LABS.md and LABS.zh.md): a section per lesson in course order, the same
// commands in both languages, each run with its stated exit code.
TEST(LabPlans, EveryLessonHasASessionAndBothLanguagesShowTheSameCommandsThatRun) {
  const bool jq = have_jq();
  const std::string en_text = read_file(source_dir() + "/lessons/LABS.md");
  const std::string zh_text = read_file(source_dir() + "/lessons/LABS.zh.md");
  const auto en = commands_in(en_text);
  const auto zh = commands_in(zh_text);
  std::vector<std::string> en_cmds, zh_cmds;
  for (const auto& c : en) en_cmds.push_back(c.command);
  for (const auto& c : zh) zh_cmds.push_back(c.command);
  EXPECT_EQ(en_cmds, zh_cmds) << "LABS.md and LABS.zh.md show different commands";
  // The course order, as `cudasync exercise` lists it.
  const CliResult listed = run_cli("exercise --json --backend model");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto doc = nlohmann::json::parse(listed.out);
  int n = 0;
  for (const auto& row : doc["report"]["sections"]["exercises"]["tables"]["lessons"]["rows"]) {
    ++n;
    const std::string name = row["lesson"].get<std::string>();
    const std::string heading = "## " + std::to_string(n) + ". " + name;
    EXPECT_NE(en_text.find(heading), std::string::npos) << heading;
    EXPECT_NE(zh_text.find(heading), std::string::npos) << heading;
  }
  EXPECT_EQ(n, 8);
  for (const auto& c : en) {
    SCOPED_TRACE("lessons/LABS.md: " + c.command);
    run_shown(c, jq);
  }
}

std::vector<std::string> lesson_names() {
  std::vector<std::string> names;
  for (const auto& d : lesson_dirs()) names.push_back(d.filename().string());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Lessons, ShownCommands, ::testing::ValuesIn(lesson_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (auto& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

}  // namespace
}  // namespace cudasync::test
