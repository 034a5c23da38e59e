// The progress state file (core/course/progress.hpp) against what a disk, a text editor or an
// interrupted run can leave there: every field of the wrong type, counts past what fits, a file
// too large to read, corrupt states one after another, an interrupted write, a reset beside a
// running answer. Each is a warning and a fresh start, never an error, and nothing is overwritten.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/course/progress.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync;

namespace {

namespace fs = std::filesystem;

std::string state_text(const std::string& record) {
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

TEST(ProgressState, AWronglyTypedFieldIsSetAsideAndTheCourseGoesOn) {
  for (const std::string record :
       {"{\"solved\":\"yes\"}", "{\"last_right\":1}", "{\"last_answer\":null}", "{\"when\":5}",
        "{\"attempts\":\"many\"}", "{\"attempts\":1e20}", "{\"attempts\":1.5}", "{\"attempts\":-1}",
        "{\"attempts\":3000000000}", "{\"attempts\":true}"}) {
    SCOPED_TRACE(record);
    cudasync::test::TempDir d;
    const std::string file = d.path + "/progress.json";
    put_file(file, state_text(record));

    const course::Loaded loaded = course::load_progress(file);
    EXPECT_TRUE(any_warning_has(loaded.warnings, "corrupt")) << "a warning, never an exception";
    EXPECT_TRUE(loaded.progress.lessons.empty()) << "a fresh start";

    const auto warnings = course::record_answer(file, "lock", "y", true, "4");
    EXPECT_TRUE(any_warning_has(warnings, "corrupt"));
    const auto kept = files_starting(d.path, "progress.json.corrupt-");
    ASSERT_EQ(kept.size(), 1u) << "the corrupt state is set aside";
    EXPECT_EQ(text_of(kept[0]), state_text(record));
    const course::Loaded after = course::load_progress(file);
    EXPECT_TRUE(after.warnings.empty());
    EXPECT_TRUE(after.progress.solved("lock", "y")) << "the answer is recorded";
  }
}

TEST(ProgressState, AttemptsStopAtTheLargestCountInsteadOfWrapping) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/progress.json";
  put_file(file, state_text("{\"solved\":false,\"last_right\":false,\"attempts\":2147483647,\"last_answer\":\"1\","
                            "\"when\":\"2025-06-01T12:00:00Z\"}"));
  EXPECT_TRUE(course::record_answer(file, "lock", "x", false, "2").empty());
  const course::Loaded l = course::load_progress(file);
  ASSERT_TRUE(l.warnings.empty());
  const course::ExerciseRecord* r = l.progress.find("lock", "x");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->attempts, INT_MAX);
  EXPECT_EQ(r->last_answer, "2");
}

TEST(ProgressState, EachCorruptStateIsKeptUnderANameOfItsOwn) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/progress.json";
  put_file(file, "{first corrupt state");
  course::record_answer(file, "lock", "a", true, "1");
  put_file(file, "{second corrupt state");
  course::record_answer(file, "lock", "a", true, "1");
  const auto kept = files_starting(d.path, "progress.json.corrupt-");
  ASSERT_EQ(kept.size(), 2u);
  std::vector<std::string> texts{text_of(kept[0]), text_of(kept[1])};
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(texts, (std::vector<std::string>{"{first corrupt state", "{second corrupt state"}));
}

TEST(ProgressState, AStateFileLargerThanTheBoundIsSetAsideUnread) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/progress.json";
  put_file(file, state_text("{\"solved\":true}"));
  // Sparse: the bound is passed without writing it.
  fs::resize_file(file, course::kMaxStateBytes + 1);
  const course::Loaded l = course::load_progress(file);
  EXPECT_TRUE(any_warning_has(l.warnings, "16 MiB")) << (l.warnings.empty() ? "" : l.warnings[0]);
  EXPECT_TRUE(l.progress.lessons.empty());
  course::record_answer(file, "lock", "a", true, "1");
  const auto kept = files_starting(d.path, "progress.json.corrupt-");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(fs::file_size(kept[0]), course::kMaxStateBytes + 1);
  EXPECT_TRUE(course::load_progress(file).progress.solved("lock", "a"));
}

TEST(ProgressState, AStateThatIsNotARegularFileIsNotWaitedOn) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/progress.json";
  ASSERT_EQ(mkfifo(file.c_str(), 0600), 0);
  // Opened for reading without a writer a FIFO would block for ever.
  const course::Loaded l = course::load_progress(file);
  EXPECT_FALSE(l.warnings.empty());
  EXPECT_TRUE(l.progress.lessons.empty());
}

TEST(ProgressState, ATemporaryFileIsRemovedWhenTheRunIsInterrupted) {
  for (const int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(strsignal(sig));
    cudasync::test::TempDir d;
    const std::string tmp = d.path + "/progress.json.Ab12Cd";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // the run: a temporary being written when the signal comes
      put_file(tmp, "half a state");
      const course::RemovedOnInterrupt pending(tmp);
      raise(sig);
      _exit(0);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "the signal still ends the run";
    EXPECT_FALSE(fs::exists(tmp)) << "no temporary is left behind";
  }
}

TEST(ProgressState, AFinishedWriteLeavesTheSignalsAsTheyWere) {
  struct sigaction before {}, after {};
  sigaction(SIGTERM, nullptr, &before);
  {
    cudasync::test::TempDir d;
    const course::RemovedOnInterrupt pending(d.path + "/progress.json.Ab12Cd");
  }
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(before.sa_handler, after.sa_handler);
}

TEST(ProgressState, StaleTemporariesAreSweptAndNothingElse) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/progress.json";
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  const std::vector<std::string> stale{"progress.json.Ab12Cd", "progress.json.zzzzzz"};
  const std::vector<std::string> kept{"progress.json.Fresh1",  "progress.json.lock",   "progress.json.Ab12Cde",
                                      "progress.json.Ab-2Cd",  "progress.json.corrupt-20250101T000000Z-1",
                                      "other.json.Ab12Cd",     "progress.json.notes"};
  for (const auto& name : stale) put_file(d.path + "/" + name, "x");
  for (const auto& name : kept) put_file(d.path + "/" + name, "x");
  for (const auto& name : stale) fs::last_write_time(d.path + "/" + name, two_hours_ago);
  for (const auto& name : kept)
    if (name != "progress.json.Fresh1") fs::last_write_time(d.path + "/" + name, two_hours_ago);

  EXPECT_TRUE(course::record_answer(file, "lock", "a", true, "1").empty());
  for (const auto& name : stale) EXPECT_FALSE(fs::exists(d.path + "/" + name)) << name;
  for (const auto& name : kept) EXPECT_TRUE(fs::exists(d.path + "/" + name)) << name;
}

// Whether process `pid` is blocked waiting for a lock (a "->" line of /proc/locks).
bool waits_for_a_lock(pid_t pid) {
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    std::istringstream words(line);
    std::string number, arrow, kind, advisory, mode, owner;
    words >> number >> arrow >> kind >> advisory >> mode >> owner;
    if (arrow == "->" && owner == std::to_string(pid)) return true;
  }
  return false;
}

TEST(ProgressState, ResetTakesTheLockAndKeepsTheLockFile) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/progress.json";
  ASSERT_TRUE(course::record_answer(file, "lock", "a", true, "1").empty());
  ASSERT_TRUE(fs::exists(file + ".lock"));

  // Another run holds the lock (a check between reading and writing the state).
  const int held = open((file + ".lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(held);
    _exit(course::reset_progress(file) ? 1 : 0);
  }
  // The reset must queue behind the lock; one that does not finishes without ever waiting.
  bool waited = false, reaped = false;
  int status = 0;
  for (int i = 0; i < 1000 && !waited && !reaped; ++i) {
    reaped = waitpid(pid, &status, WNOHANG) == pid;
    waited = !reaped && waits_for_a_lock(pid);
    if (!waited && !reaped) usleep(10000);
  }
  EXPECT_TRUE(waited) << "the reset did not wait for the lock";
  EXPECT_TRUE(fs::exists(file)) << "nothing is removed while another run holds the lock";
  close(held);
  if (!reaped) {
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_FALSE(fs::exists(file)) << "cleared";
  EXPECT_TRUE(fs::exists(file + ".lock")) << "the lock file stays: a run waiting on it keeps its lock";
}

}  // namespace
