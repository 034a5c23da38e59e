// Exam mode (core/course/exam.hpp): set by CUDASYNC_EXAM=1, by the file `exam` in the teacher's course
// folder, or by the lab machine's system-wide file; each refuses every answer path (exercise
// --answer, explain --answers) with exit 2 naming what set it, and a wrong answer hears only that
// it is wrong. And --answer outside exam mode is recorded: a later right answer counts as solved
// after the answer was shown.
#include <gtest/gtest.h>

#include <fstream>

#include "support/cli_expect.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync::test;

TEST(ExamMode, EveryWayOfSettingItRefusesEveryAnswerPath) {
  const TempDir dir;
  std::ofstream(dir.path + "/exam") << "";
  for (const std::string& set : {std::string("CUDASYNC_EXAM=1"), "CUDASYNC_EXAM_FILE='" + dir.path + "/exam'",
                                 "CUDASYNC_COURSE_DIR='" + dir.path + "'"}) {
    SCOPED_TRACE(set);
    const CliResult answer = run_shell(set + " '" + binary_path() + "' exercise warp-primitives 2 --answer --backend model");
    EXPECT_EQ(answer.exit_code, 2) << shown(answer);
    EXPECT_TRUE(contains(answer.err, "refused in exam mode")) << answer.err;
    EXPECT_FALSE(contains(answer.out, "answer")) << answer.out;
    const CliResult answers = run_shell(set + " '" + binary_path() + "' explain lock --answers");
    EXPECT_EQ(answers.exit_code, 2);
    EXPECT_TRUE(contains(answers.err, "refused in exam mode")) << answers.err;
    const CliResult wrong = run_shell(set + " '" + binary_path() + "' check warp-primitives 2 5 --backend model --color never");
    EXPECT_EQ(wrong.exit_code, 1);
    EXPECT_TRUE(contains(wrong.out, "exam mode: no reasons")) << wrong.out;
    EXPECT_FALSE(contains(wrong.out, "The rule")) << wrong.out;
  }
  // Off: CUDASYNC_EXAM=0, and no file.
  const CliResult off = run_shell("CUDASYNC_EXAM=0 CUDASYNC_EXAM_FILE=/nonexistent '" + binary_path() +
                                  "' exercise warp-primitives 2 --answer --backend model");
  EXPECT_EQ(off.exit_code, 0) << shown(off);
}

TEST(Progress, AnAnswerShownIsRecordedAndASolveAfterItCountsApart) {
  const TempDir state;
  const std::string env = "XDG_STATE_HOME='" + state.path + "' CUDASYNC_EXAM_FILE=/nonexistent '" + binary_path() + "' ";
  const CliResult shown_answer = run_shell(env + "exercise warp-primitives 9 --answer --backend model --json");
  ASSERT_EQ(shown_answer.exit_code, 0) << shown(shown_answer);
  const std::string right =
      nlohmann::json::parse(shown_answer.out)["report"]["sections"]["answer"]["facts"]["answer"]["value"].get<std::string>();
  EXPECT_EQ(run_shell(env + "check warp-primitives 9 " + right + " --backend model").exit_code, 0);
  EXPECT_EQ(run_shell(env + "check warp-primitives 10000 1 --backend model").exit_code, 2);
  const auto doc = nlohmann::json::parse(run_shell(env + "progress --json").out);
  const auto& facts = doc["report"]["sections"]["progress"]["facts"];
  EXPECT_EQ(facts["exercises-solved"]["value"], 1);
  EXPECT_EQ(facts["solved-after-answer"]["value"], 1);
  EXPECT_EQ(facts["lessons-done"]["value"], 0);
  EXPECT_EQ(doc["report"]["sections"]["progress"]["tables"]["lessons"]["rows"][0]["shown"], 1);
}

// --reset off a terminal does not ask and does not remove: it needs --yes.
TEST(Progress, ResetOffATerminalNeedsYes) {
  const TempDir state;
  const std::string env = "XDG_STATE_HOME='" + state.path + "' '" + binary_path() + "' ";
  ASSERT_EQ(run_shell(env + "check warp-primitives 9 0x0000001f --backend model").exit_code, 0);
  const CliResult refused = run_shell(env + "progress --reset < /dev/null");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(contains(refused.err, "cudasync progress --reset --yes")) << refused.err;
  EXPECT_EQ(nlohmann::json::parse(run_shell(env + "progress --json").out)["report"]["sections"]["progress"]["facts"]
                ["exercises-solved"]["value"], 1);
  EXPECT_EQ(run_shell(env + "progress --reset --yes").exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(run_shell(env + "progress --json").out)["report"]["sections"]["progress"]["facts"]
                ["exercises-solved"]["value"], 0);
  EXPECT_EQ(run_shell(env + "progress --yes").exit_code, 2);
}
