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
#include <map>
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

// The lines of `markdown` outside fenced code blocks, each with its number.
std::vector<std::pair<int, std::string>> prose_lines(const std::string& markdown) {
  std::vector<std::pair<int, std::string>> out;
  std::istringstream in(markdown);
  bool code = false;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      code = !code;
      continue;
    }
    if (!code) out.emplace_back(n, line);
  }
  return out;
}

// What the package installs for students (cmake/install.cmake: lessons/, every *.md) carries no
// answer: no why paragraph of an exercise, no answers section, no unfilled template like {answer}.
// The answers to the questions for class live in docs/teachers/, which is not installed.
TEST(InstalledTexts, CarryNoAnswerNoWhyAndNoTemplate) {
  static const std::regex template_name(R"(\{[a-z][a-z0-9_]*\})");
  int texts = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(source_dir()) / "lessons")) {
    if (!e.is_regular_file() || e.path().extension() != ".md") continue;
    ++texts;
    for (const auto& [n, line] : prose_lines(read_file(e.path().string()))) {
      const std::string where = e.path().string() + ":" + std::to_string(n) + ": " + line;
      EXPECT_NE(line.rfind("*Why:*", 0), 0u) << where;
      EXPECT_NE(line.rfind("*为什么：*", 0), 0u) << where;
      EXPECT_NE(line, "## Answers") << where;
      EXPECT_NE(line, "## 答案") << where;
      EXPECT_FALSE(std::regex_search(line, template_name)) << where;
    }
  }
  EXPECT_EQ(texts, 2 * static_cast<int>(kCourse.size()) + 4)
      << "every lesson's en.md and zh.md, the guide's two and the lab plans' two";
  for (const std::string& lesson : kCourse)
    for (const char* lang : {"en", "zh"})
      EXPECT_TRUE(fs::exists(fs::path(source_dir()) / "docs" / "teachers" / (lesson + "." + lang + ".md")))
          << lesson << " " << lang << ": the teacher's answers";
}

// The course table of the teachers' guide (lessons/README.md, README.zh.md) gives each lesson's
// number of exercises as `cudasync exercise` counts them, and its example tally the course's total.
TEST(CourseTable, CountsInTheGuideAreTheTools) {
  const CliResult r = run_cli("exercise --json --backend model");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, long long> counts;
  long long total = 0, lessons_with = 0;
  for (const auto& row : doc["report"]["sections"]["exercises"]["tables"]["lessons"]["rows"]) {
    const long long n = row["exercises"].get<long long>();
    counts[row["lesson"].get<std::string>()] = n;
    total += n;
    lessons_with += n > 0 ? 1 : 0;
  }
  ASSERT_EQ(counts.size(), kCourse.size());
  static const std::regex row(R"(^\| (\d+) \| `([a-z-]+)` \|.*\| ([^|]+) \|$)");
  for (const char* guide : {"README.md", "README.zh.md"}) {
    SCOPED_TRACE(guide);
    const std::string text = read_file(source_dir() + "/lessons/" + guide);
    int rows = 0;
    for (const auto& [n, line] : prose_lines(text)) {
      std::smatch m;
      if (!std::regex_match(line, m, row)) continue;
      ++rows;
      const std::string lesson = m[2].str(), cell = m[3].str();
      ASSERT_EQ(counts.count(lesson), 1u) << line;
      const long long want = counts[lesson];
      if (want == 0)
        EXPECT_TRUE(cell == "none" || cell == "无") << line;
      else
        EXPECT_EQ(cell, std::to_string(want)) << line;
    }
    EXPECT_EQ(rows, static_cast<int>(kCourse.size()));
    static const std::regex tally(R"((\d+)/(\d+) lessons, (\d+)/(\d+) exercises)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, tally)) << "the guide's example of a tally";
    EXPECT_EQ(m[2].str(), std::to_string(lessons_with));
    EXPECT_EQ(m[4].str(), std::to_string(total));
  }
}

// The bullets of a text's last section (its sources), each joined onto one line.
std::vector<std::string> source_bullets(const std::string& markdown) {
  const std::size_t at = markdown.rfind("\n## ");
  std::vector<std::string> out;
  if (at == std::string::npos) return out;
  std::istringstream in(markdown.substr(at + 1));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("- ", 0) == 0)
      out.push_back(line.substr(2));
    else if (line.rfind("  ", 0) == 0 && !out.empty())
      out.back() += " " + line.substr(2);
  }
  return out;
}

// How a text may name a listed work: by its short citation (the section's title, "Fan, ch. 10"), or
// by its title, without a leading "NVIDIA " and cut at the first " (", ", " or ": " ("CUDA by
// Example"); a cut shorter than 10 characters names nothing.
std::vector<std::string> names_of(const std::string& cite, std::string title) {
  std::vector<std::string> out = {cite};
  if (title.rfind("NVIDIA ", 0) == 0) title = title.substr(7);
  out.push_back(title);
  for (const char* cut : {" (", ", ", ": "}) {
    const std::string shorter = title.substr(0, title.find(cut));
    if (shorter.size() >= 10) out.push_back(shorter);
  }
  return out;
}

// `cudasync sources` lists every work a lesson text cites: each bullet of a text's sources names a
// work that `cudasync sources` lists (names_of).
TEST(Sources, EveryWorkATextCitesIsListed) {
  const CliResult r = run_cli("sources --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> cites;
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& [key, section] : doc["report"]["sections"].items())
    for (const auto& n : names_of(section["title"].get<std::string>(),
                                  section["facts"]["title"]["value"].get<std::string>()))
      cites.push_back(n);
  ASSERT_FALSE(cites.empty());
  for (const std::string& lesson : kCourse)
    for (const char* lang : {"en", "zh"}) {
      SCOPED_TRACE(lesson + "/" + lang);
      const auto bullets = source_bullets(text_of(lesson, lang));
      EXPECT_FALSE(bullets.empty());
      for (const std::string& b : bullets)
        EXPECT_TRUE(std::any_of(cites.begin(), cites.end(),
                                [&](const std::string& c) { return b.find(c) != std::string::npos; }))
            << "cites a work `cudasync sources` does not list, or not by its short citation: " << b;
    }
}

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
