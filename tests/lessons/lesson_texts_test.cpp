// What a student reads cites its sources by name, and every text says where it stands in the
// course: the lesson texts (en, zh) open with what they assume, what the student can do afterwards
// and how long it takes, end with their sources, and neither they, the README nor a lesson's
// output call a source by its working-note name ("seed 002", "the seed's code"): the word clashes
// with --seed, and a student does not have those notes.
//
// kCited lists the lessons already checked; a lesson joins it when its texts and output follow
// the rule (all of kCourse, once every lesson's branch is merged).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run_cli.hpp"

namespace cudasync::test {
namespace {

namespace fs = std::filesystem;

// The course order, as `cudasync list` numbers it.
const std::vector<std::string> kCourse = {"warp-primitives", "cg-reduce",        "named-barriers", "threadfence",
                                          "lock",            "lockfree-barrier", "deadlock-demo",  "multi-gpu"};
const std::vector<std::string> kCited = {"cg-reduce", "lockfree-barrier", "deadlock-demo", "multi-gpu"};

// A working-note name for a source, in English or Chinese ("种子" is how the old texts said it).
const std::regex& working_note_name() {
  static const std::regex re(R"(seed 00|seeds? 0\d\d|the seed\b|seed's|seeds'|种子)", std::regex::icase);
  return re;
}

std::string first_match(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, working_note_name())) return "";
  const auto from = static_cast<std::size_t>(std::max<long>(0, static_cast<long>(m.position(0)) - 60));
  return text.substr(from, 140);
}

std::vector<std::string> headings(const std::string& markdown) {
  std::vector<std::string> out;
  std::istringstream in(markdown);
  bool code = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) code = !code;
    if (!code && line.rfind("## ", 0) == 0) out.push_back(line);
  }
  return out;
}

std::string text_of(const std::string& lesson, const std::string& lang) {
  return read_file((fs::path(source_dir()) / "lessons" / lesson / (lang + ".md")).string());
}

std::size_t course_number(const std::string& lesson) {
  return static_cast<std::size_t>(std::find(kCourse.begin(), kCourse.end(), lesson) - kCourse.begin()) + 1;
}

class CitedLesson : public ::testing::TestWithParam<std::string> {};

TEST_P(CitedLesson, TextsNameNoWorkingNote) {
  for (const char* lang : {"en", "zh"}) {
    SCOPED_TRACE(GetParam() + "/" + lang + ".md");
    EXPECT_EQ(first_match(text_of(GetParam(), lang)), "");
  }
}

TEST_P(CitedLesson, TextsOpenWithTheirPlaceWhatTheyAssumeTeachAndTake) {
  const std::string n = std::to_string(course_number(GetParam()));
  const std::string en = text_of(GetParam(), "en");
  const std::string zh = text_of(GetParam(), "zh");
  const std::string en_head = en.substr(0, 1500), zh_head = zh.substr(0, 1500);
  const std::string total = std::to_string(kCourse.size());
  EXPECT_NE(en_head.find("Lesson " + n + " of " + total + " in course order"), std::string::npos);
  EXPECT_NE(zh_head.find("按课程顺序的第 " + n + " 课，共 " + total + " 课"), std::string::npos);
  for (const char* s : {"**Assumes:**", "**Afterwards you can:**", "**Time:**"})
    EXPECT_NE(en_head.find(s), std::string::npos) << s;
  for (const char* s : {"**前提：**", "**学完之后你能：**", "**用时：**"})
    EXPECT_NE(zh_head.find(s), std::string::npos) << s;
}

TEST_P(CitedLesson, TextsEndWithTheirSources) {
  const auto en = headings(text_of(GetParam(), "en"));
  const auto zh = headings(text_of(GetParam(), "zh"));
  ASSERT_FALSE(en.empty());
  ASSERT_FALSE(zh.empty());
  EXPECT_EQ(en.back(), "## Sources");
  EXPECT_EQ(zh.back(), "## 参考资料");
}

TEST_P(CitedLesson, OutputNamesNoWorkingNote) {
  const std::string l = GetParam();
  for (const std::string& args : {l + " --help", l + " --backend model", l + " --backend model --json",
                                 l + " --backend model --bench", "explain " + l, "explain " + l + " --lang zh"}) {
    SCOPED_TRACE(args);
    const CliResult r = run_cli(args);
    EXPECT_NE(r.exit_code, 2) << r.err;
    EXPECT_EQ(first_match(r.out), "");
    EXPECT_EQ(first_match(r.err), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Lessons, CitedLesson, ::testing::ValuesIn(kCited),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (auto& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

TEST(ReadmeText, NamesNoWorkingNote) { EXPECT_EQ(first_match(read_file(source_dir() + "/README.md")), ""); }

// The README's lessons table lists the lessons in course order, numbered.
TEST(ReadmeText, ListsTheLessonsInCourseOrder) {
  const std::string readme = read_file(source_dir() + "/README.md");
  std::size_t at = readme.find("## Lessons");
  ASSERT_NE(at, std::string::npos);
  for (std::size_t i = 0; i < kCourse.size(); ++i) {
    const std::string row = "| " + std::to_string(i + 1) + " | `" + kCourse[i] + "` |";
    const std::size_t found = readme.find(row, at);
    EXPECT_NE(found, std::string::npos) << row;
    if (found != std::string::npos) at = found;
  }
}

// The tool commands' rows in `cudasync --help` (main.cpp's), `sources` and the lessons of kCited in
// `cudasync list` name no working note either.
TEST(ToolCommands, SummariesNameNoWorkingNote) {
  const CliResult help = run_cli("--help");
  ASSERT_EQ(help.exit_code, 0) << help.err;
  std::istringstream in(help.out);
  int rows = 0;
  for (std::string line; std::getline(in, line);)
    for (const char* tool : {"  list ", "  devices ", "  explain ", "  sources "})
      if (line.rfind(tool, 0) == 0) {
        ++rows;
        EXPECT_EQ(first_match(line), "") << line;
      }
  EXPECT_EQ(rows, 4) << help.out;

  const CliResult sources = run_cli("sources");
  EXPECT_EQ(sources.exit_code, 0) << sources.err;
  EXPECT_EQ(first_match(sources.out), "");

  const CliResult list = run_cli("list --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const auto doc = nlohmann::json::parse(list.out);
  int cited = 0;
  for (const auto& row : doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"]) {
    const std::string lesson = row["lesson"].get<std::string>();
    if (std::find(kCited.begin(), kCited.end(), lesson) == kCited.end()) continue;
    ++cited;
    EXPECT_EQ(first_match(row["summary"].get<std::string>()), "") << lesson;
  }
  EXPECT_EQ(cited, static_cast<int>(kCited.size()));
}

}  // namespace
}  // namespace cudasync::test
