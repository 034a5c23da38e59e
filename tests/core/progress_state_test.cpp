// The progress state (core/course/progress.hpp) against what a disk, a text editor, another
// program or an interrupted run can leave there: the JSON file of cudasync before the database,
// brought in once with every field it had; a legacy field of the wrong type; a database that is not
// SQLite's, is another program's, holds a value out of range or a trigger, is too large or is not a
// file; one of a newer cudasync; a change killed half-way; a reset beside a running answer. Each
// is a warning and a fresh start, never an error, and nothing is overwritten.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/course/progress.hpp"
#include "support/sqlite_file.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync;
using cudasync::test::sqlite_exec;
using cudasync::test::sqlite_value;

namespace {

namespace fs = std::filesystem;

std::string legacy_text(const std::string& record) {
  return "{\"format\":\"cudasync-progress\",\"version\":1,\"lessons\":{\"lock\":{\"x\":" + record + "}}}";
}

void put_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The files of `dir` whose names start with `prefix`.
std::vector<std::string> files_starting(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(e.path().string());
  }
  return out;
}

bool any_warning_has(const std::vector<std::string>& warnings, const std::string& words) {
  for (const auto& w : warnings)
    if (w.find(words) != std::string::npos) return true;
  return false;
}

// A folder holding the database's place and the legacy file's beside it.
struct State {
  cudasync::test::TempDir d;
  std::string db = d.path + "/progress.db";
  std::string legacy = d.path + "/progress.json";
};

TEST(ProgressState, TheJsonStateIsBroughtInOnceWithEveryFieldAndKept) {
  State s;
  const std::string legacy =
      "{\"format\":\"cudasync-progress\",\"version\":1,\"lessons\":{\"lock\":{"
      "\"x\":{\"solved\":true,\"last_right\":false,\"attempts\":3,\"last_answer\":\"4\",\"when\":\"2026-01-01T00:00:00Z\","
      "\"hints\":2,\"answer_shown\":\"2025-12-31T00:00:00Z\",\"after_answer\":true},"
      "\"y\":{\"solved\":false,\"last_right\":false,\"attempts\":1,\"last_answer\":\"no\",\"when\":\"\"}}}}";
  put_file(s.legacy, legacy);
  const course::Loaded l = course::load_progress(s.db);
  EXPECT_TRUE(l.warnings.empty()) << l.warnings.front();
  const course::ExerciseRecord* x = l.progress.find("lock", "x");
  ASSERT_NE(x, nullptr);
  EXPECT_TRUE(x->solved);
  EXPECT_FALSE(x->last_right);
  EXPECT_EQ(x->attempts, 3);
  EXPECT_EQ(x->last_answer, "4");
  EXPECT_EQ(x->when, "2026-01-01T00:00:00Z");
  EXPECT_EQ(x->hints, 2);
  EXPECT_EQ(x->answer_shown, "2025-12-31T00:00:00Z");
  EXPECT_TRUE(x->after_answer);
  ASSERT_NE(l.progress.find("lock", "y"), nullptr);
  EXPECT_EQ(l.progress.find("lock", "y")->attempts, 1);

  EXPECT_TRUE(fs::exists(s.db));
  EXPECT_FALSE(fs::exists(s.legacy)) << "brought in once: a later run does not bring it in again";
  EXPECT_EQ(text_of(s.legacy + ".migrated"), legacy) << "the old file is kept as it was";
  // A reset clears what was brought in, and nothing brings it back.
  ASSERT_TRUE(course::reset_progress(s.db).saved);
  EXPECT_TRUE(course::load_progress(s.db).progress.lessons.empty());
}

TEST(ProgressState, ALegacyFieldOfTheWrongTypeIsSetAsideAndTheCourseGoesOn) {
  for (const std::string record :
       {"{\"solved\":\"yes\"}", "{\"last_right\":1}", "{\"last_answer\":null}", "{\"when\":5}",
        "{\"attempts\":\"many\"}", "{\"attempts\":1e20}", "{\"attempts\":1.5}", "{\"attempts\":-1}",
        "{\"attempts\":3000000000}", "{\"attempts\":true}", "{\"hints\":17}"}) {
    SCOPED_TRACE(record);
    State s;
    put_file(s.legacy, legacy_text(record));
    const course::Loaded loaded = course::load_progress(s.db);
    EXPECT_TRUE(any_warning_has(loaded.warnings, "corrupt")) << "a warning, never an exception";
    EXPECT_TRUE(loaded.progress.lessons.empty()) << "a fresh start";
    const auto kept = files_starting(s.d.path, "progress.json.corrupt-");
    ASSERT_EQ(kept.size(), 1u) << "the corrupt state is set aside";
    EXPECT_EQ(text_of(kept[0]), legacy_text(record));

    EXPECT_TRUE(course::record_answer(s.db, "lock", "y", true, "4", "model").warnings.empty());
    EXPECT_TRUE(course::load_progress(s.db).progress.solved("lock", "y")) << "the answer is recorded";
  }
}

TEST(ProgressState, AttemptsStopAtTheLargestCountInsteadOfWrapping) {
  State s;
  put_file(s.legacy, legacy_text("{\"solved\":false,\"last_right\":false,\"attempts\":2147483647,"
                                 "\"last_answer\":\"1\",\"when\":\"2025-06-01T12:00:00Z\"}"));
  EXPECT_TRUE(course::record_answer(s.db, "lock", "x", false, "2", "model").warnings.empty());
  const course::Loaded l = course::load_progress(s.db);
  ASSERT_TRUE(l.warnings.empty());
  const course::ExerciseRecord* r = l.progress.find("lock", "x");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->attempts, INT_MAX);
  EXPECT_EQ(r->last_answer, "2");
}

TEST(ProgressState, EachCorruptDatabaseIsKeptUnderANameOfItsOwn) {
  State s;
  put_file(s.db, "first corrupt state, not SQLite's");
  EXPECT_TRUE(any_warning_has(course::load_progress(s.db).warnings, "corrupt"));
  EXPECT_TRUE(course::record_answer(s.db, "lock", "a", true, "1", "model").saved);
  put_file(s.db, "second corrupt state");
  EXPECT_TRUE(course::record_answer(s.db, "lock", "a", true, "1", "model").saved);
  const auto kept = files_starting(s.d.path, "progress.db.corrupt-");
  ASSERT_EQ(kept.size(), 2u);
  std::vector<std::string> texts{text_of(kept[0]), text_of(kept[1])};
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(texts, (std::vector<std::string>{"first corrupt state, not SQLite's", "second corrupt state"}));
  EXPECT_TRUE(course::load_progress(s.db).progress.solved("lock", "a"));
}

TEST(ProgressState, AnotherProgramsDatabaseAValueOutOfRangeOrATriggerIsCorrupt) {
  struct Case {
    const char* name;
    std::string sql;  // run on the database after one answer was recorded ("" none)
    bool fresh;       // the file is made by the test alone
  };
  const std::vector<Case> cases{
      {"another program's", "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');", true},
      {"hints out of range", "PRAGMA ignore_check_constraints = ON; UPDATE exercise SET hints = 99;", false},
      {"a trigger", "CREATE TRIGGER t AFTER INSERT ON exercise BEGIN DELETE FROM exercise; END;", false},
      {"a second table", "CREATE TABLE extra (x INTEGER);", false},
      {"version 0", "PRAGMA user_version = 0;", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    State s;
    if (!c.fresh) {
      ASSERT_TRUE(course::record_answer(s.db, "lock", "a", true, "1", "model").saved);
    }
    ASSERT_EQ(sqlite_exec(s.db, c.sql), "");
    const course::Loaded l = course::load_progress(s.db);
    EXPECT_TRUE(any_warning_has(l.warnings, "corrupt")) << (l.warnings.empty() ? "no warning" : l.warnings[0]);
    EXPECT_TRUE(l.progress.lessons.empty());
    const course::Changed w = course::record_answer(s.db, "lock", "b", true, "2", "model");
    EXPECT_TRUE(w.saved);
    ASSERT_EQ(files_starting(s.d.path, "progress.db.corrupt-").size(), 1u) << "set aside, not overwritten";
    const course::Loaded after = course::load_progress(s.db);
    EXPECT_TRUE(after.warnings.empty());
    EXPECT_TRUE(after.progress.solved("lock", "b"));
    EXPECT_FALSE(after.progress.solved("lock", "a")) << "a fresh start";
  }
}

TEST(ProgressState, ADatabaseLargerThanTheBoundIsSetAsideUnread) {
  State s;
  ASSERT_TRUE(course::record_answer(s.db, "lock", "a", true, "1", "model").saved);
  // Sparse: the bound is passed without writing it.
  fs::resize_file(s.db, course::kMaxStateBytes + 1);
  const course::Loaded l = course::load_progress(s.db);
  EXPECT_TRUE(any_warning_has(l.warnings, "16 MiB")) << (l.warnings.empty() ? "" : l.warnings[0]);
  EXPECT_TRUE(l.progress.lessons.empty());
  EXPECT_TRUE(course::record_answer(s.db, "lock", "b", true, "1", "model").saved);
  const auto kept = files_starting(s.d.path, "progress.db.corrupt-");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(fs::file_size(kept[0]), course::kMaxStateBytes + 1);
  EXPECT_TRUE(course::load_progress(s.db).progress.solved("lock", "b"));
}

TEST(ProgressState, AStateThatIsNotARegularFileIsNotWaitedOn) {
  for (const bool legacy : {false, true}) {
    SCOPED_TRACE(legacy ? "progress.json" : "progress.db");
    State s;
    // Opened without a writer a FIFO would block for ever.
    ASSERT_EQ(mkfifo((legacy ? s.legacy : s.db).c_str(), 0600), 0);
    const course::Loaded l = course::load_progress(s.db);
    EXPECT_FALSE(l.warnings.empty());
    EXPECT_TRUE(l.progress.lessons.empty());
    const course::Changed w = course::record_answer(s.db, "lock", "a", true, "1", "model");
    EXPECT_EQ(w.saved, legacy) << "a FIFO in the database's place cannot hold an answer";
  }
}

TEST(ProgressState, ADatabaseOfANewerCudasyncIsLeftAsItIs) {
  State s;
  ASSERT_TRUE(course::record_answer(s.db, "lock", "a", true, "1", "model").saved);
  ASSERT_EQ(sqlite_exec(s.db, "PRAGMA user_version = 99;"), "");
  const std::string before = text_of(s.db);
  const course::Loaded l = course::load_progress(s.db);
  EXPECT_TRUE(any_warning_has(l.warnings, "newer"));
  EXPECT_TRUE(l.progress.lessons.empty());
  const course::Changed w = course::record_answer(s.db, "lock", "b", true, "1", "model");
  EXPECT_FALSE(w.saved);
  EXPECT_TRUE(any_warning_has(w.warnings, "not saved"));
  EXPECT_EQ(text_of(s.db), before);
  EXPECT_TRUE(files_starting(s.d.path, "progress.db.corrupt-").empty());
}

// In a child: opens `file`, runs `sql` and returns with the connection still open (a transaction
// in it still open too, when `sql` began one).
sqlite3* open_and_run(const std::string& file, const char* sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(file.c_str(), &db) != SQLITE_OK || sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
    _exit(3);
  return db;
}

TEST(ProgressState, AChangeKilledHalfWayLeavesTheStateAsItWas) {
  State s;
  ASSERT_TRUE(course::record_answer(s.db, "lock", "a", false, "1", "model").saved);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // a run killed in the middle of its change: rows written to the file, never committed
    open_and_run(s.db, "PRAGMA cache_size = 1; BEGIN IMMEDIATE; UPDATE exercise SET attempts = 99, solved = 1; "
                       "WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 200) "
                       "INSERT INTO exercise SELECT lesson, 'b' || v, attempts, solved, last_right, "
                       "printf('%.2000c', 'x'), first_tried, last_tried, solved_at, solved_on, hints, answer_shown, "
                       "after_answer FROM exercise, n;");
    raise(SIGKILL);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_TRUE(fs::exists(s.db + "-journal")) << "the killed change left its journal (the pages it wrote)";
  const course::Loaded l = course::load_progress(s.db);
  EXPECT_TRUE(l.warnings.empty()) << l.warnings.front();
  ASSERT_NE(l.progress.find("lock", "a"), nullptr);
  EXPECT_EQ(l.progress.find("lock", "a")->attempts, 1);
  EXPECT_FALSE(l.progress.solved("lock", "a"));
  EXPECT_EQ(l.progress.lessons.at("lock").size(), 1u);
  EXPECT_TRUE(course::record_answer(s.db, "lock", "a", true, "2", "model").saved);
  EXPECT_EQ(course::load_progress(s.db).progress.find("lock", "a")->attempts, 2);
}

TEST(ProgressState, AResetWaitsForAnAnswerBeingSaved) {
  State s;
  ASSERT_TRUE(course::record_answer(s.db, "lock", "a", true, "1", "model").saved);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  // Another run in the middle of its change: it holds the write lock for 300 ms.
  const pid_t holder = fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    sqlite3* db = open_and_run(s.db, "BEGIN IMMEDIATE; UPDATE exercise SET attempts = 7;");
    (void)!write(ready[1], "x", 1);
    usleep(300000);
    _exit(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK ? 0 : 1);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  const course::Changed reset = course::reset_progress(s.db);
  int status = 0;
  ASSERT_EQ(waitpid(holder, &status, 0), holder);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the other run's answer went in";
  EXPECT_TRUE(reset.saved) << (reset.warnings.empty() ? "" : reset.warnings[0]);
  EXPECT_TRUE(course::load_progress(s.db).progress.lessons.empty())
      << "the reset waited for the other run's answer and came after it, so nothing is left";
  close(ready[0]);
  close(ready[1]);
}

TEST(ProgressState, RecordsWhenAndOnWhatAnExerciseWasSolved) {
  State s;
  ASSERT_TRUE(course::record_answer(s.db, "lock", "a", false, "1", "gpu").saved);
  const course::Loaded first = course::load_progress(s.db);
  const course::ExerciseRecord* r = first.progress.find("lock", "a");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->first_when.empty());
  EXPECT_TRUE(r->solved_when.empty());
  EXPECT_TRUE(r->solved_on.empty()) << "a wrong answer solves nothing";
  ASSERT_TRUE(course::record_answer(s.db, "lock", "a", true, "2", "gpu").saved);
  ASSERT_TRUE(course::record_answer(s.db, "lock", "a", true, "2", "model").saved);
  const course::Loaded later = course::load_progress(s.db);
  r = later.progress.find("lock", "a");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->solved_on, "gpu") << "the answer that first solved it";
  EXPECT_FALSE(r->solved_when.empty());
  EXPECT_EQ(r->first_when, first.progress.find("lock", "a")->first_when);
  EXPECT_EQ(sqlite_value(s.db, "SELECT attempts FROM exercise WHERE exercise = 'a'"), "3");
}

}  // namespace
