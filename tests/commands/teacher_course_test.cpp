// A teacher's own exercises ($CUDASYNC_COURSE_DIR/<lesson>.json, core/course/teacher_course.hpp)
// through the real binary: they follow the lesson's own, are asked, answered and recorded like
// them; a bad file is refused with file:line: key and exit 2 and changes nothing built in. And the
// build's manifest check (tools/manifest_check.cpp) refuses a bad lesson.json the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_expect.hpp"
#include "support/sqlite_file.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync::test;

namespace {

using json = nlohmann::ordered_json;

// The lock lesson's stale-reads count, asked again by a teacher, in English only.
const char* kTeacherLock = R"({
  "lesson": "lock",
  "exercises": [
    {
      "id": "stale-count-again",
      "answer": "integer",
      "question": {"en": "With one run of stale-reads, what count does the book's lock end with?"},
      "hint": {"en": "Read the variants table."},
      "run": ["--part", "stale-reads", "--runs", "1"],
      "read": {"cell": "stale-reads/variants", "row": 0, "column": "model-count"},
      "why": {"en": "The model ends with {answer}."}
    }
  ]
})";

void write_course_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

CliResult run_with(const std::string& course, const std::string& state, const std::string& args) {
  return run_shell("cd /tmp && CUDASYNC_COURSE_DIR='" + course + "' XDG_STATE_HOME='" + state + "' '" +
                   binary_path() + "' " + args);
}

}  // namespace

TEST(TeacherCourse, ATeachersExerciseFollowsTheLessonsOwnAndIsCheckedAndRecorded) {
  const TempDir course, state;
  write_course_file(course.path + "/lock.json", kTeacherLock);
  const CliResult list = run_with(course.path, state.path, "exercise lock --color never");
  EXPECT_EQ(list.exit_code, 0) << shown(list);
  EXPECT_TRUE(contains(list.out, "8  -       With one run of stale-reads")) << list.out;
  const CliResult asked = run_with(course.path, state.path, "exercise lock 8 --color never");
  EXPECT_EQ(asked.exit_code, 0) << shown(asked);
  EXPECT_TRUE(contains(asked.out, "what count does the book's lock end with?")) << asked.out;
  // The same run the lesson's own exercise 2 reads: the same answer.
  const auto answer = [&](int n) {
    const CliResult r = run_with(course.path, state.path,
                                 "exercise lock " + std::to_string(n) + " --answer --backend model --json");
    EXPECT_EQ(r.exit_code, 0) << shown(r);
    return json::parse(r.out)["report"]["sections"]["answer"]["facts"]["answer"]["value"].get<std::string>();
  };
  const std::string right = answer(8);
  EXPECT_EQ(right, answer(2));
  const CliResult check = run_with(course.path, state.path, "check lock 8 " + right + " --backend model");
  EXPECT_EQ(check.exit_code, 0) << shown(check);
  EXPECT_EQ(cudasync::test::sqlite_value(state.path + "/cudasync/progress.db",
                                         "SELECT solved FROM exercise WHERE exercise = 'stale-count-again'"),
            "1");  // by its id
  // Without the folder the lesson has its own seven again.
  const CliResult own = run_with("", state.path, "exercise lock 8");
  EXPECT_EQ(own.exit_code, 2) << shown(own);
  EXPECT_TRUE(contains(own.err, "accepted: 1..7")) << own.err;
}

TEST(TeacherCourse, ABadFileIsRefusedWithFileLineAndKeyAndExitTwo) {
  const TempDir state;
  struct Case {
    std::string file, text, expected;
  };
  std::string bad_kind = kTeacherLock;
  bad_kind.replace(bad_kind.find("\"integer\""), 9, "\"int\"");
  std::string nested = kTeacherLock;  // wheres within wheres: refused before they reach the stack
  std::string where = "{\"fact\": \"a/b\"}";
  for (int i = 0; i < 5000; ++i) where = "{\"count\": \"a/b\", \"where\": {\"c\": " + where + "}}";
  nested.replace(nested.find("{\"cell\""), nested.find("},\n      \"why\"") + 1 - nested.find("{\"cell\""), where);
  std::string own_id = kTeacherLock;
  own_id.replace(own_id.find("stale-count-again"), 17, "stale-read-count");
  for (const Case& c : std::vector<Case>{
           {"lock.json", bad_kind, "lock.json:6: exercises[0].answer: 'int' is no answer kind; accepted: integer"},
           {"lock.json", own_id, "lock.json:4: exercises[0].id: 'stale-read-count' is the id of lock's own exercise 2"},
           {"lock.json", "{\"lesson\": \"lock\",", "lock.json:1: not JSON"},
           {"lock.json", nested, "exercises[0].read.where.c.where.c.where.c.where.c: nests reads more than 4 deep"},
           {"lock.json", std::string(200000, '[') + std::string(200000, ']'), "lock.json:1: (top): is not an object"},
           {"lok.json", kTeacherLock, "lok.json names no lesson; accepted: warp-primitives"},
       }) {
    SCOPED_TRACE(c.expected);
    const TempDir course;
    write_course_file(course.path + "/" + c.file, c.text);
    const CliResult r = run_with(course.path, state.path, "exercise lock");
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "CUDASYNC_COURSE_DIR: ")) << r.err;
    EXPECT_TRUE(contains(r.err, c.expected)) << r.err;
  }
}

TEST(ManifestCheck, TheBuildRefusesABadLessonJsonNamingFileLineAndKey) {
  const TempDir root;
  std::filesystem::create_directories(root.path + "/lock");
  // The manifest names its kernel exercises' files (kernels/): they travel with it.
  const auto kernels = [&](const std::string& lesson) {
    std::filesystem::copy(source_dir() + "/lessons/lock/kernels", root.path + "/" + lesson + "/kernels");
  };
  kernels("lock");
  const std::string lock = read_file(source_dir() + "/lessons/lock/lesson.json");
  write_course_file(root.path + "/lock/lesson.json", lock);
  EXPECT_EQ(run_shell(std::string("'") + CUDASYNC_MANIFEST_CHECK + "' '" + root.path + "/lock/lesson.json'").exit_code, 0);
  std::string bad = lock;
  bad.replace(bad.find("\"number\": 2"), 11, "\"number\": 3");
  write_course_file(root.path + "/lock/lesson.json", bad);
  const CliResult r = run_shell(std::string("'") + CUDASYNC_MANIFEST_CHECK + "' '" + root.path + "/lock/lesson.json'");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_TRUE(contains(r.err, "/lock/lesson.json:")) << r.err;
  EXPECT_TRUE(contains(r.err, ": exercises[1].number: 3 where 2 comes next")) << r.err;
  // A manifest in the folder of another lesson.
  std::filesystem::create_directories(root.path + "/lack");
  kernels("lack");
  write_course_file(root.path + "/lack/lesson.json", lock);
  const CliResult moved = run_shell(std::string("'") + CUDASYNC_MANIFEST_CHECK + "' '" + root.path + "/lack/lesson.json'");
  EXPECT_EQ(moved.exit_code, 1) << shown(moved);
  EXPECT_TRUE(contains(moved.err, "lesson: 'lock' in the folder of lack")) << moved.err;
}

// A lesson's parts are rows of its manifest: each reads only declared options, has its title and
// summary in the lesson's catalog, and the manifest has at least one; its compute-sanitizer runs
// name its parts and its --predict questions' other words its answers.
TEST(ManifestCheck, TheBuildRefusesPartsSanitizerRunsAndQuestionsThatNameNothing) {
  const TempDir root;
  std::filesystem::create_directories(root.path + "/lock");
  std::filesystem::copy(source_dir() + "/lessons/lock/kernels", root.path + "/lock/kernels");
  std::filesystem::copy(source_dir() + "/lessons/lock/words.json", root.path + "/lock/words.json");
  const std::string lock = read_file(source_dir() + "/lessons/lock/lesson.json");
  const std::string file = root.path + "/lock/lesson.json";
  const auto check = [&](const std::string& text) {
    write_course_file(file, text);
    return run_shell(std::string("'") + CUDASYNC_MANIFEST_CHECK + "' '" + file + "'");
  };
  EXPECT_EQ(check(lock).exit_code, 0) << check(lock).err;
  // The manifest with `from` written as `to` is refused, and the build says `says`.
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& says) {
    std::string text = lock;
    text.replace(text.find(from), from.size(), to);
    const CliResult r = check(text);
    EXPECT_EQ(r.exit_code, 1) << shown(r);
    EXPECT_TRUE(contains(r.err, says)) << r.err;
  };
  refused("\"reads\": [\"--blocks\"", "\"reads\": [\"--blokcs\"", "parts[0].reads: --blokcs is not one of \"options\"");
  // A compute-sanitizer run (scripts/gpu.sh runs them) names the lesson's parts, and a known tool.
  refused("\"--part\", \"lock-class,thread-lock\"", "\"--part\", \"lock-class,thread-lok\"",
          "sanitize[0].args: --part names 'thread-lok', which is no part of \"parts\"");
  refused("\"tool\": \"memcheck\"", "\"tool\": \"memchek\"",
          "sanitize[0].tool: 'memchek' is not one; accepted: memcheck, racecheck, synccheck, memcheck-kernels");
  // A --predict question's other words each stand for one of its answers.
  refused("\"hangs\": \"deadlocks\"", "\"hangs\": \"hung\"",
          "predictions[0].aliases.hangs: 'hung' is not one of its choices; accepted: completes, deadlocks");
  // The catalog without one part's title.
  std::string words = read_file(source_dir() + "/lessons/lock/words.json");
  const std::string title_key = "\"part.combining.title\"";
  words.replace(words.find(title_key), title_key.size(), "\"part.combining.heading\"");
  write_course_file(root.path + "/lock/words.json", words);
  const CliResult w = check(lock);
  EXPECT_EQ(w.exit_code, 1) << shown(w);
  EXPECT_TRUE(contains(w.err, "/lock/lesson.json:")) << w.err;
  EXPECT_TRUE(contains(w.err, ": parts.combining: 'part.combining.title' is no key of ")) << w.err;
  std::string none = lock;
  const std::size_t from = none.find("  \"parts\": [");
  none.erase(from, none.find("  \"exercises\"") - from);
  const CliResult n = check(none);
  EXPECT_EQ(n.exit_code, 1) << shown(n);
  EXPECT_TRUE(contains(n.err, "lesson.json:1: parts: is missing")) << n.err;
}

TEST(ManifestCheck, TheBuildRefusesAWordCatalogWithAKeyInOneLanguage) {
  const TempDir root;
  std::filesystem::create_directories(root.path + "/warp-primitives");
  const std::string words = read_file(source_dir() + "/lessons/warp-primitives/words.json");
  const std::string file = root.path + "/warp-primitives/words.json";
  write_course_file(file, words);
  EXPECT_EQ(run_shell(std::string("'") + CUDASYNC_MANIFEST_CHECK + "' '" + file + "'").exit_code, 0);
  std::string bad = words;
  bad.replace(bad.find("\"zh\""), 4, "\"fr\"");  // the first key's Chinese becomes French
  write_course_file(file, bad);
  const CliResult r = run_shell(std::string("'") + CUDASYNC_MANIFEST_CHECK + "' '" + file + "'");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_TRUE(contains(r.err, "/warp-primitives/words.json:2: lane-31-left: 'fr' is no language; accepted: en, zh"))
      << r.err;
}

// The lessons are found from lessons/*/lesson.json alone (cmake/lessons.cmake): the command line's
// lessons are the manifests' lessons, in the order they give.
TEST(LessonRegistry, TheToolsLessonsAreTheManifestsInTheirOrder) {
  std::vector<std::pair<int, std::string>> manifests;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() + "/lessons")) {
    if (!entry.is_directory()) continue;
    const auto m = json::parse(read_file(entry.path().string() + "/lesson.json"));
    manifests.emplace_back(m["order"].get<int>(), m["lesson"].get<std::string>());
  }
  std::sort(manifests.begin(), manifests.end());
  std::vector<std::string> expected;
  for (const auto& [order, id] : manifests) expected.push_back(id);
  const CliResult spec = run_cli("--cli-spec");
  ASSERT_EQ(spec.exit_code, 0) << shown(spec);
  std::vector<std::string> lessons;
  const json doc = json::parse(spec.out);
  for (const auto& c : doc["commands"])
    if (c.value("lesson", false)) lessons.push_back(c["name"].get<std::string>());
  EXPECT_EQ(lessons, expected);
}
