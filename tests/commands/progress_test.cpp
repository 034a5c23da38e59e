// A student's progress (core/course/progress.hpp) through the real binary, each test in a state
// folder of its own: recorded by check, shown by progress and list, read back through
// progress --export, cleared by --reset; never written into the working directory; the JSON state
// of cudasync before the database brought in; a corrupt, unreadable, unwritable or newer state
// warns and starts afresh, and the run still completes with its own exit code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "support/sqlite_file.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync::test;

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// `cudasync <args>` with XDG_STATE_HOME=state, run in the folder `cwd`.
CliResult run_in(const std::string& state, const std::string& args, const std::string& cwd = "/tmp") {
  return run_shell("cd '" + cwd + "' && XDG_STATE_HOME='" + state + "' '" + binary_path() + "' " + args);
}

std::string state_file(const std::string& state) { return state + "/cudasync/progress.db"; }
// The file cudasync kept the progress in before the database.
std::string legacy_file(const std::string& state) { return state + "/cudasync/progress.json"; }

std::string right_answer(const std::string& state, const std::string& lesson, int n) {
  const CliResult r = run_in(state, "exercise " + lesson + " " + std::to_string(n) + " --answer --backend model --json");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  return json::parse(r.out)["report"]["sections"]["answer"]["facts"]["answer"]["value"].get<std::string>();
}

json progress_doc(const std::string& state) {
  const CliResult r = run_in(state, "progress --json");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  return json::parse(r.out);
}

std::string tally(const std::string& state) {
  return progress_doc(state)["report"]["sections"]["progress"]["facts"]["progress"]["value"].get<std::string>();
}

// One exercise's record as progress --export gives it (every exercise is there, tried or not).
// The export is written inside this test's own folder: tests run in parallel, and two exporting
// the same exercise to one shared path read each other's file.
json record(const std::string& state, const std::string& lesson, const std::string& id) {
  const std::string out = state + "/export-" + lesson + "-" + id + ".json";
  const CliResult r = run_in(state, "progress --export '" + out + "'");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  const json doc = json::parse(read_file(out));
  std::filesystem::remove(out);
  for (const auto& e : doc["exercises"])
    if (e["lesson"] == lesson && e["id"] == id) return e;
  ADD_FAILURE() << lesson << "/" << id << " is not in the export";
  return json::object();
}

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// The copies of corrupt states set aside beside the state (progress.db.corrupt-..., or
// progress.json.corrupt-... for the legacy file).
std::vector<std::string> corrupt_copies(const std::string& state, const std::string& of = "progress.db") {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(state + "/cudasync"))
    if (e.path().filename().string().rfind(of + ".corrupt-", 0) == 0) out.push_back(e.path().string());
  return out;
}

std::string newest_corrupt_copy(const std::string& state) {
  std::string newest;
  for (const auto& c : corrupt_copies(state))
    if (newest.empty() || fs::last_write_time(c) > fs::last_write_time(newest)) newest = c;
  return newest;
}

TEST(Progress, CheckRecordsItProgressAndListShowItResetClearsIt) {
  TempDir state, cwd;
  EXPECT_EQ(tally(state.path).rfind("0/", 0), 0u) << tally(state.path);
  const std::string right = right_answer(state.path, "warp-primitives", 2);
  EXPECT_EQ(run_in(state.path, "check warp-primitives 2 '" + right + "' --backend model", cwd.path).exit_code, 0);
  EXPECT_EQ(run_in(state.path, "check warp-primitives 1 12345 --backend model", cwd.path).exit_code, 1);
  ASSERT_TRUE(fs::exists(state_file(state.path)));
  EXPECT_TRUE(fs::is_empty(cwd.path)) << "nothing is written into the working directory";

  EXPECT_EQ(sqlite_value(state_file(state.path), "PRAGMA application_id"), "1668637811") << "\"cuds\"";
  const json solved = record(state.path, "warp-primitives", "shfl-xor-lane");
  EXPECT_TRUE(solved["solved"].get<bool>()) << solved;
  EXPECT_EQ(solved["solved_on"], "model") << solved;
  EXPECT_EQ(solved["answer_shown"], true) << "the answer was asked for first";
  EXPECT_FALSE(record(state.path, "warp-primitives", "shfl-src-lane-modulo")["solved"].get<bool>());

  EXPECT_TRUE(contains(tally(state.path), "1/")) << tally(state.path);
  const json p = progress_doc(state.path);
  const auto& rows = p["report"]["sections"]["progress"]["tables"]["lessons"]["rows"];
  EXPECT_EQ(rows[0]["lesson"], "warp-primitives");
  EXPECT_EQ(rows[0]["solved"], 1);
  EXPECT_EQ(rows[0]["attempts"], 2);

  const CliResult list = run_in(state.path, "list --json");
  const json l = json::parse(list.out);
  EXPECT_EQ(l["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"][0]["solved"], 1);
  EXPECT_TRUE(contains(l["report"]["sections"]["lessons"]["facts"]["progress"]["value"].get<std::string>(),
                       " exercises"));

  EXPECT_EQ(run_in(state.path, "progress --reset --yes").exit_code, 0);
  EXPECT_EQ(sqlite_value(state_file(state.path), "SELECT count(*) FROM exercise"), "0");
  EXPECT_EQ(tally(state.path).find("/"), 1u);
  EXPECT_EQ(tally(state.path)[0], '0');
}

TEST(Progress, EachStudentsStateIsTheirOwn) {
  TempDir alice, bob;
  const std::string right = right_answer(alice.path, "lock", 1);
  EXPECT_EQ(run_in(alice.path, "check lock 1 " + right + " --backend model").exit_code, 0);
  EXPECT_TRUE(fs::exists(state_file(alice.path)));
  EXPECT_FALSE(fs::exists(state_file(bob.path)));
  EXPECT_EQ(tally(bob.path)[0], '0');
}

TEST(Progress, WithoutXdgStateHomeItLivesUnderHome) {
  TempDir home;
  const CliResult r = run_shell("cd /tmp && unset XDG_STATE_HOME; HOME='" + home.path + "' '" + binary_path() +
                                "' check warp-primitives 1 12345 --backend model");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_TRUE(fs::exists(home.path + "/.local/state/cudasync/progress.db"));
  // A relative XDG_STATE_HOME is not one (XDG Base Directory Specification): HOME's is used.
  const CliResult rel = run_shell("cd '" + home.path + "' && XDG_STATE_HOME=relative HOME='" + home.path + "' '" +
                                  binary_path() + "' check warp-primitives 1 12345 --backend model");
  EXPECT_EQ(rel.exit_code, 1) << shown(rel);
  EXPECT_FALSE(fs::exists(home.path + "/relative"));
}

TEST(Progress, CorruptStateWarnsStartsAfreshAndKeepsTheOldFile) {
  TempDir state, elsewhere;
  // The answer, asked for in a state of its own: --answer is recorded too (as shown).
  const std::string right = right_answer(elsewhere.path, "warp-primitives", 2);
  for (const std::string& corrupt : {std::string("{not json"), std::string("SQLite format 3"),
                                     std::string(4096, '\0'), std::string("\xff\xfe garbage")}) {
    SCOPED_TRACE(corrupt.substr(0, 16));
    write(state_file(state.path), corrupt);
    const CliResult shown_progress = run_in(state.path, "progress");
    EXPECT_EQ(shown_progress.exit_code, 0) << shown(shown_progress);
    EXPECT_TRUE(contains(shown_progress.err, "warning")) << shown_progress.err;
    EXPECT_TRUE(contains(shown_progress.err, "corrupt")) << shown_progress.err;

    const CliResult r = run_in(state.path, "check warp-primitives 2 '" + right + "' --backend model");
    EXPECT_EQ(r.exit_code, 0) << shown(r);
    EXPECT_TRUE(contains(r.err, "corrupt"));
    EXPECT_EQ(read_file(newest_corrupt_copy(state.path)), corrupt) << "the corrupt state is kept";
    EXPECT_TRUE(record(state.path, "warp-primitives", "shfl-xor-lane")["solved"].get<bool>());
    EXPECT_EQ(sqlite_value(state_file(state.path), "SELECT count(*) FROM exercise"), "1") << "a fresh start";
  }
}

// The progress file of cudasync before the database: brought in by the first run of any course
// command, then kept as progress.json.migrated.
TEST(Progress, TheJsonStateOfAnEarlierCudasyncIsBroughtIn) {
  TempDir state;
  const std::string earlier =
      R"({"format": "cudasync-progress", "version": 1, "lessons": {"lock": {"stale-read-count": )"
      R"({"solved": true, "last_right": true, "attempts": 3, "last_answer": "5", "when": "2026-01-01T00:00:00Z",)"
      R"( "hints": 1}}}})";
  write(legacy_file(state.path), earlier);
  const CliResult r = run_in(state.path, "list");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_FALSE(fs::exists(legacy_file(state.path)));
  EXPECT_EQ(read_file(legacy_file(state.path) + ".migrated"), earlier);
  const json rec = record(state.path, "lock", "stale-read-count");
  EXPECT_TRUE(rec["solved"].get<bool>()) << rec;
  EXPECT_EQ(rec["attempts"], 3);
  EXPECT_EQ(rec["hints"], 1);
  EXPECT_EQ(rec["when"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(rec["solved_on"], "") << "not known for an answer recorded before";
  EXPECT_TRUE(contains(tally(state.path), "1/")) << tally(state.path);
}

TEST(Progress, UnwritableOrUnreadableStateWarnsAndTheRunStillCompletes) {
  TempDir dir;
  // A folder that cannot be created (its parent is a file): root cannot write there either.
  write(dir.path + "/file", "x");
  const std::string state = dir.path + "/file/state";
  const std::string right = right_answer(state, "warp-primitives", 2);
  const CliResult r = run_in(state, "check warp-primitives 2 '" + right + "' --backend model");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.err, "warning")) << r.err;
  EXPECT_TRUE(contains(r.err, "not saved")) << r.err;
  const CliResult wrong = run_in(state, "check warp-primitives 2 12345 --backend model --json");
  EXPECT_EQ(wrong.exit_code, 1) << shown(wrong);
  EXPECT_TRUE(nlohmann::json::accept(wrong.out)) << "the run still gives its one document";
  EXPECT_EQ(run_in(state, "progress").exit_code, 0);
  EXPECT_EQ(run_in(state, "list").exit_code, 0);

  // The state file is a folder: cannot be read, cannot be replaced.
  TempDir other;
  fs::create_directories(state_file(other.path));
  const CliResult folder = run_in(other.path, "check warp-primitives 2 '" + right + "' --backend model");
  EXPECT_EQ(folder.exit_code, 0) << shown(folder);
  EXPECT_TRUE(contains(folder.err, "warning")) << folder.err;
  EXPECT_EQ(run_in(other.path, "progress").exit_code, 0);
}

// Found by fuzzing the state: a field of the wrong type was an internal error in every course
// command, for good. Each command meeting it first warns, keeps it aside and goes on.
TEST(Progress, AWronglyTypedFieldWarnsInEveryCourseCommandAndTheNextAnswerIsRecorded) {
  const std::string typed_wrong =
      "{\"format\":\"cudasync-progress\",\"version\":1,\"lessons\":{\"lock\":{\"x\":{\"solved\":\"yes\"}}}}";
  for (const std::string args : {"", "progress", "list", "exercise", "exercise lock", "check warp-primitives 1 12345"}) {
    SCOPED_TRACE(args);
    TempDir state;
    write(legacy_file(state.path), typed_wrong);
    const CliResult r = run_in(state.path, args + (args.rfind("check", 0) == 0 ? " --backend model" : ""));
    EXPECT_EQ(r.exit_code, args.rfind("check", 0) == 0 ? 1 : 0) << "the run's own exit code\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "corrupt")) << r.err;
    EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
    const auto copies = corrupt_copies(state.path, "progress.json");
    ASSERT_EQ(copies.size(), 1u);
    EXPECT_EQ(read_file(copies[0]), typed_wrong);
    EXPECT_EQ(run_in(state.path, "check warp-primitives 1 12345 --backend model").exit_code, 1);
    EXPECT_EQ(record(state.path, "warp-primitives", "shfl-src-lane-modulo")["attempts"], args.empty() || args[0] != 'c' ? 1 : 2)
        << "the answer is recorded";
  }
}

// Found by UBSan: one more answer to an exercise answered INT_MAX times overflowed, and progress
// showed -2,147,483,648 answers.
TEST(Progress, AnAnswerCountAtItsLargestStaysThere) {
  TempDir state;
  write(legacy_file(state.path),
        "{\"format\":\"cudasync-progress\",\"version\":1,\"lessons\":{\"warp-primitives\":{\"shfl-src-lane-modulo\":"
        "{\"solved\":false,\"last_right\":false,\"attempts\":2147483647,\"last_answer\":\"1\",\"when\":\"\"}}}}");
  const CliResult r = run_in(state.path, "check warp-primitives 1 0 --backend model");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_FALSE(contains(r.err, "runtime error")) << r.err;
  EXPECT_EQ(record(state.path, "warp-primitives", "shfl-src-lane-modulo")["attempts"], 2147483647);
  EXPECT_EQ(progress_doc(state.path)["report"]["sections"]["progress"]["tables"]["lessons"]["rows"][0]["attempts"],
            2147483647);
}

// A reset of a state not yet brought in brings it in first: the old file cannot bring the old
// progress back on the next run.
TEST(Progress, AResetClearsAJsonStateNotYetBroughtIn) {
  TempDir state;
  write(legacy_file(state.path),
        R"({"format":"cudasync-progress","version":1,"lessons":{"lock":{"stale-read-count":{"solved":true}}}})");
  const CliResult r = run_in(state.path, "progress --reset --yes");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_EQ(tally(state.path)[0], '0');
  EXPECT_FALSE(record(state.path, "lock", "stale-read-count")["solved"].get<bool>());
  EXPECT_FALSE(fs::exists(legacy_file(state.path)));
  EXPECT_TRUE(fs::exists(legacy_file(state.path) + ".migrated")) << "kept, never deleted";
}

TEST(Progress, StateOfANewerCudasyncIsLeftAsItIs) {
  TempDir state;
  EXPECT_EQ(run_in(state.path, "check warp-primitives 1 12345 --backend model").exit_code, 1);
  ASSERT_EQ(sqlite_exec(state_file(state.path), "PRAGMA user_version = 99;"), "");
  const std::string newer = read_file(state_file(state.path));
  const CliResult r = run_in(state.path, "check warp-primitives 1 12345 --backend model");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_TRUE(contains(r.err, "newer")) << r.err;
  EXPECT_TRUE(contains(r.err, "not saved")) << r.err;
  EXPECT_EQ(read_file(state_file(state.path)), newer);
}

}  // namespace

namespace {

TEST(Progress, TwentyChecksAtOnceLoseNoAttempt) {
  TempDir state, cwd;
  const std::string right = right_answer(state.path, "warp-primitives", 2);
  // Twenty students' worth of answers to one state at the same moment: half right, half wrong,
  // and three hints beside them. Every one is counted.
  std::string script = "cd '" + cwd.path + "' && export XDG_STATE_HOME='" + state.path + "'; ";
  for (int i = 0; i < 20; ++i)
    script += "'" + binary_path() + "' check warp-primitives 2 " + (i % 2 ? "'" + right + "'" : std::string("12345")) +
              " --backend model >/dev/null 2>>'" + cwd.path + "/err' & ";
  for (int i = 0; i < 3; ++i)
    script += "'" + binary_path() + "' exercise cg-reduce 6 --hint --backend model >/dev/null 2>>'" + cwd.path +
              "/err' & ";
  script += "wait";
  const CliResult r = run_shell(script);
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  const std::string err = read_file(cwd.path + "/err");
  EXPECT_FALSE(contains(err, "warning") || contains(err, "progress")) << "the runs waited for each other:\n" << err;
  const json shfl = record(state.path, "warp-primitives", "shfl-xor-lane");
  EXPECT_EQ(shfl["attempts"], 20) << shfl;
  EXPECT_TRUE(shfl["solved"].get<bool>());
  EXPECT_EQ(record(state.path, "cg-reduce", "block-sum-kernel")["hints"], 2)
      << "the three hints asked for at the same time climb the ladder of two rungs to its top";
}

}  // namespace

namespace {

// Ten runs at once meet one corrupt database: one of them sets it aside and makes a new one, and
// the others record their answers in that one rather than setting it aside again. (Without the
// lock around setting aside, about one run in six of this test moved the new state too, and
// the runs that had it open lost their answers: "disk I/O error", "readonly database".)
TEST(Progress, TenChecksAtOnceOnACorruptStateLoseNoAttemptAndKeepOneCopy) {
  TempDir state, cwd;
  write(state_file(state.path), "not SQLite's, not anyone's");
  std::string script = "cd '" + cwd.path + "' && export XDG_STATE_HOME='" + state.path + "'; ";
  for (int i = 0; i < 10; ++i)
    script += "'" + binary_path() + "' check warp-primitives 2 12345 --backend model >/dev/null 2>>'" + cwd.path +
              "/err' & ";
  script += "wait";
  EXPECT_EQ(run_shell(script).exit_code, 0);
  const std::string err = read_file(cwd.path + "/err");
  EXPECT_FALSE(contains(err, "not saved")) << err;
  EXPECT_EQ(corrupt_copies(state.path).size(), 1u) << err;
  EXPECT_EQ(read_file(corrupt_copies(state.path).front()), "not SQLite's, not anyone's");
  EXPECT_EQ(record(state.path, "warp-primitives", "shfl-xor-lane")["attempts"], 10) << err;
}

}  // namespace
