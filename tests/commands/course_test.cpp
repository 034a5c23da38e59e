// The course on the model: the tour (one valid document, every lesson's stop, 80 columns), every
// exercise's checker with the right answer (taken from the tool's own --answer) and a wrong one, and
// the exit codes of exercise and check. The lessons come from `cudasync exercise --json`, the
// answers from the tool: nothing here knows an answer.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/course/student_kernel.hpp"
#include "core/version.hpp"
#include "support/cli_expect.hpp"
#include "support/sqlite_file.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync::test;

namespace {

using json = nlohmann::ordered_json;

// The lines of `cudasync <args>` (COLUMNS=80) wider than 80 columns.
std::vector<std::string> wide_lines(const std::string& args) {
  const CliResult r = run_shell("COLUMNS=80 '" + binary_path() + "' " + args);
  EXPECT_LT(r.exit_code, 2) << args << "\n" << shown(r);
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (display_columns(line) > 80) out.push_back(line);
  return out;
}

// The course's lessons with exercises, and how many each has, as `exercise --json` lists them.
std::vector<std::pair<std::string, int>> course_exercises() {
  const json doc = valid_document("exercise --backend model --json");
  std::vector<std::pair<std::string, int>> out;
  for (const auto& row : doc["report"]["sections"]["exercises"]["tables"]["lessons"]["rows"])
    out.emplace_back(row["lesson"].get<std::string>(), row["exercises"].get<int>());
  return out;
}

TEST(Tour, OnTheModelIsOneValidDocumentWithEveryLessonsStop) {
  const json doc = valid_document("tour --backend model --json");
  const auto& sections = doc["report"]["sections"];
  EXPECT_EQ(doc["report"]["command"], "tour");
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  const json list = valid_document("list --json");
  int lessons = 0;
  for (const auto& row : list["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"]) {
    const std::string l = row["lesson"].get<std::string>();
    SCOPED_TRACE(l);
    ++lessons;
    ASSERT_TRUE(sections.contains(l)) << "no stop for " << l;
    EXPECT_FALSE(sections[l]["paragraphs"].empty()) << "a stop is headed by the lesson's summary";
    EXPECT_TRUE(sections[l]["facts"].contains("run"));
    ASSERT_TRUE(sections.contains(l + "-remember"));
    ASSERT_FALSE(sections[l + "-remember"]["paragraphs"].empty());
    EXPECT_GT(sections[l + "-remember"]["paragraphs"][0].get<std::string>().size(), 40u);
    // The stop says what its run gave, part by part: its checks and which parts gave what.
    EXPECT_TRUE(sections[l]["facts"].contains("checks-passed")) << "a stop counts its checks";
    int parts = 0;
    for (const auto& [id, f] : sections[l]["facts"].items()) parts += id.rfind("parts-", 0) == 0 ? 1 : 0;
    EXPECT_GT(parts, 0) << "the stop names none of the lesson's parts";
    // The lesson's checks stay checks of the tour: one per stop that has any, so that a GPU
    // disagreeing with the model fails the tour.
    if (sections[l]["facts"]["checks-passed"]["value"].get<int>() > 0) {
      ASSERT_TRUE(sections[l]["checks"].contains("checks")) << l;
      EXPECT_TRUE(sections[l]["checks"]["checks"]["passed"].get<bool>());
    }
  }
  EXPECT_GE(lessons, 7);
}

TEST(Tour, StopsAreInCourseOrderAndTheStopEndsWithItsSentence) {
  const json list = valid_document("list --json");
  std::vector<std::string> lessons;
  for (const auto& row : list["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"])
    lessons.push_back(row["lesson"].get<std::string>());
  const CliResult r = run_cli("tour --backend model --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  std::size_t at = 0;
  for (std::size_t i = 0; i < lessons.size(); ++i) {
    const std::string head = "== " + std::to_string(i + 1) + "/" + std::to_string(lessons.size()) + " " + lessons[i] + " ==";
    const std::size_t found = r.out.find(head, at);
    ASSERT_NE(found, std::string::npos) << head;
    const std::size_t remember = r.out.find("== remember ==", found);
    ASSERT_NE(remember, std::string::npos) << lessons[i];
    at = remember;
  }
}

TEST(Tour, FitsEightyColumnsInBothLanguages) {
  EXPECT_EQ(wide_lines("tour --backend model --color never"), std::vector<std::string>{});
  EXPECT_EQ(wide_lines("tour --backend model --color never --lang zh"), std::vector<std::string>{});
}

TEST(CourseCommands, FitEightyColumns) {
  for (const char* args : {"list", "progress", "exercise", "exercise warp-primitives", "exercise lock --lang zh",
                           "exercise threadfence 5 --hint --answer", "exercise cg-reduce 2 --lang zh --answer",
                           "check warp-primitives 2 5"}) {
    SCOPED_TRACE(args);
    EXPECT_EQ(wide_lines(std::string(args) + " --backend model --color never"), std::vector<std::string>{});
  }
}

// For each lesson: every exercise's --answer, that answer checked right (exit 0), and a wrong answer
// of the same form checked wrong (exit 1) with a reason.
class EveryExercise : public ::testing::TestWithParam<std::string> {};

// `cudasync <args>` parsed, with its exit code checked: for the many runs whose schema one
// valid_document() of the same command already covers (the schema check starts a Python).
json document(const std::string& args, int expected_exit) {
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, expected_exit) << "cudasync " << args << "\n" << shown(r);
  const json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "cudasync " << args << ": not one JSON document\n" << shown(r);
  return doc.is_discarded() ? json::object() : doc;
}

// An answer of the same form as `right` that is not it.
std::string wrong_answer(const std::string& right, const std::string& format) {
  const auto choices = format.find("one of ");
  if (choices != std::string::npos) {
    std::istringstream in(format.substr(choices + 7));
    for (std::string w; std::getline(in, w, ',');) {
      while (!w.empty() && w.front() == ' ') w.erase(0, 1);
      if (w != right) return w;
    }
    return "?";
  }
  if (format.find("mask") != std::string::npos) return right == "0x00000001" ? "0x00000002" : "0x00000001";
  if (format.find("separated by commas") != std::string::npos) return right == "999" ? "998" : "999";
  return std::to_string(std::stoll(right) + 1);
}

TEST_P(EveryExercise, RightAnswerPassesWrongAnswerFailsWithAReason) {
  const std::string lesson = GetParam();
  int count = 0;
  for (const auto& [l, n] : course_exercises())
    if (l == lesson) count = n;
  ASSERT_GE(count, 4) << "at least four exercises per lesson";
  for (int i = 1; i <= count; ++i) {
    const std::string n = std::to_string(i);
    SCOPED_TRACE(lesson + " " + n);
    const std::string answer_args = "exercise " + lesson + " " + n + " --answer --backend model --json";
    const json ex = i == 1 ? valid_document(answer_args) : document(answer_args, 0);
    const auto& s = ex["report"]["sections"];
    if (s["exercise"]["facts"].contains("starter")) {  // a kernel the student writes: KernelExercise below
      EXPECT_FALSE(s.contains("answer"));
      continue;
    }
    ASSERT_TRUE(s.contains("answer"));
    const std::string right = s["answer"]["facts"]["answer"]["value"].get<std::string>();
    const std::string format = s["exercise"]["facts"]["format"]["value"].get<std::string>();
    EXPECT_FALSE(s["answer"]["paragraphs"].empty()) << "the answer comes with its working";
    EXPECT_FALSE(s["exercise"]["paragraphs"].empty());

    const std::string good_args = "check " + lesson + " " + n + " '" + right + "' --backend model --json";
    const json good = i == 1 ? valid_document(good_args, 0) : document(good_args, 0);
    EXPECT_TRUE(good["report"]["sections"]["check"]["checks"]["answer-right"]["passed"].get<bool>());

    const std::string wrong = wrong_answer(right, format);
    const json bad = document("check " + lesson + " " + n + " '" + wrong + "' --backend model --json", 1);
    const auto& verdict = bad["report"]["sections"]["check"]["checks"]["answer-right"];
    EXPECT_FALSE(verdict["passed"].get<bool>()) << "wrong answer " << wrong << " passed";
    const std::string detail = verdict["detail"].get<std::string>();
    EXPECT_GT(detail.size(), 10u) << "a wrong answer gets its reason";
    // The reason is the rule, never the answer's working (the sentence that ends in the value).
    for (const auto& working : s["answer"]["paragraphs"])
      EXPECT_EQ(detail.find(working.get<std::string>()), std::string::npos) << detail;
    EXPECT_EQ(detail.find("= " + right + "."), std::string::npos) << detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Lessons, EveryExercise,
                         ::testing::Values("warp-primitives", "cg-reduce", "named-barriers", "threadfence", "lock",
                                           "lockfree-barrier", "deadlock-demo"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (auto& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

TEST(Exercise, TheQuestionAloneGivesNoAnswer) {
  const json doc = valid_document("exercise warp-primitives 2 --backend model --json");
  EXPECT_FALSE(doc["report"]["sections"].contains("answer"));
  EXPECT_FALSE(doc["report"]["sections"].contains("hint"));
  const json hint = valid_document("exercise warp-primitives 2 --hint --backend model --json");
  EXPECT_TRUE(hint["report"]["sections"].contains("hint"));
  EXPECT_FALSE(hint["report"]["sections"].contains("answer"));
}

TEST(Exercise, QuestionsComeInChinese) {
  const json en = valid_document("exercise named-barriers 1 --backend model --json");
  const json zh = valid_document("exercise named-barriers 1 --lang zh --backend model --json");
  const std::string q_en = en["report"]["sections"]["exercise"]["paragraphs"][0].get<std::string>();
  const std::string q_zh = zh["report"]["sections"]["exercise"]["paragraphs"][0].get<std::string>();
  EXPECT_NE(q_en, q_zh);
  EXPECT_NE(q_zh.find("线程"), std::string::npos) << q_zh;
}

// A wrong answer is told the rule (the first rung of its hints) and where more hints are, never the
// value: the working that ends in it stays behind --answer.
TEST(Check, WrongAnswerSaysTheRuleNotTheAnswer) {
  const CliResult r = run_cli("check warp-primitives 2 5 --backend model --color never");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  const json a = valid_document("exercise warp-primitives 2 --answer --backend model --json");
  const std::string right = a["report"]["sections"]["answer"]["facts"]["answer"]["value"].get<std::string>();
  EXPECT_FALSE(contains(r.out, "lane 5 ^ 3 = lane " + right)) << r.out;
  const json doc = document("check warp-primitives 2 5 --backend model --json", 1);
  const std::string detail = doc["report"]["sections"]["check"]["checks"]["answer-right"]["detail"].get<std::string>();
  EXPECT_TRUE(contains(detail, "The rule:")) << detail;
  EXPECT_TRUE(contains(detail, "cudasync exercise warp-primitives 2 --hint")) << detail;
}

TEST(CourseCommands, BadInputExitsTwoSayingWhatIsAccepted) {
  for (const UsageCase& c : std::vector<UsageCase>{
           {"check no-such-lesson 1 6", {"no-such-lesson", "accepted"}},
           {"check warp-primitives 0 6", {"accepted"}},
           {"check warp-primitives 999 6", {"999", "accepted"}},
           {"check warp-primitives 9 0x1ffffffff", {"accepted: a 32-bit mask"}},
           {"check warp-primitives 2 six", {"six", "accepted: a whole number"}},
           {"check warp-primitives 4 3-", {"accepted"}},
           {"check threadfence 1 maybe", {"maybe", "accepted: one of yes, no"}},
           {"check warp-primitives 2", {"accepted"}},
           {"exercise warp-primitives 999", {"999", "accepted"}},
           {"check warp-primitives", {"accepted"}},
           {"exercise warp-primitives --hint", {"--hint needs an exercise", "accepted"}},
           {"exercise warp-primitives 13", {"accepted: 1..12"}},
           {"exercise warp-primitives 2 --starter", {"--starter", "accepted: --starter with a kernel exercise"}},
           {"exercise warp-primitives --starter", {"--starter needs an exercise", "accepted"}},
           {"exercise warp-primitives 10 --kernel /dev/null", {"--kernel /dev/null", "accepted"}},
           {"check warp-primitives 10 6", {"kernel you write", "accepted: cudasync exercise warp-primitives 10 --kernel"}},
           {"exercise --child kernel", {"--child", "accepted"}},
           {"exercise no-such-lesson", {"no-such-lesson", "accepted"}},
           {"exercise --answer", {"accepted"}},
           {"exercise warp-primitives 1 --kernel /dev/null", {"--kernel", "accepted"}},
           // Found by fuzzing: an empty value read as none, and the run exited 0.
           {"exercise warp-primitives 10 --kernel ''", {"--kernel ''", "accepted"}},
           {"exercise warp-primitives 10 --kernel= --backend model", {"--kernel= gives no value", "accepted"}},
           {"exercise warp-primitives 1 --lang ''", {"--lang ''", "accepted"}},
           {"tour --lang fr", {"accepted"}},
       }) {
    SCOPED_TRACE(c.args);
    expect_usage_error(c);
  }
  // Files that are not there, inside this test's own folder (never a path another process creates).
  const TempDir scratch;
  const std::string missing = scratch.path + "/no/such";
  for (const std::string& args : {"exercise warp-primitives 10 --kernel " + missing + "/file.cu",
                                  "exercise --child kernel --child-out " + scratch.path + "/out --kernel-request " + missing}) {
    SCOPED_TRACE(args);
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "accepted")) << shown(r);
    EXPECT_TRUE(contains(r.err, missing)) << shown(r);
  }
}

// The kernel exercises: the starter prints as a file, its function is there to write, and without
// a GPU the run is waived with the reason (their GPU runs: course_gpu_test.cpp).
TEST(KernelExercise, TheStarterIsTheFileToCopy) {
  for (const auto& [args, function] : std::vector<std::pair<std::string, std::string>>{
           {"exercise warp-primitives 10 --starter", "__device__ int warp_sum(int v)"},
           {"exercise cg-reduce 6 --starter", "__device__ int block_sum(int v)"}}) {
    const CliResult r = run_cli(args + " --color never");
    EXPECT_EQ(r.exit_code, 0) << shown(r);
    EXPECT_EQ(r.out.rfind("// cudasync exercise ", 0), 0u) << "the first line is the file's: " << r.out.substr(0, 80);
    EXPECT_TRUE(contains(r.out, function)) << r.out;
  }
  const json doc = valid_document("exercise warp-primitives 10 --backend model --json");
  const auto& facts = doc["report"]["sections"]["exercise"]["facts"];
  EXPECT_EQ(facts["starter"]["value"], "lessons/warp-primitives/kernels/warp_sum.cu");
  EXPECT_TRUE(std::ifstream(source_dir() + "/lessons/warp-primitives/kernels/warp_sum.cu").good());
  EXPECT_TRUE(std::ifstream(source_dir() + "/lessons/cg-reduce/kernels/block_sum.cu").good());
}

TEST(KernelExercise, WithoutNvrtcTheListingMarksItUnavailableAndSaysWhatToInstall) {
  // CUDASYNC_NVRTC names the one library to try: a file that is not there hides NVRTC. A
  // model-only binary has no NVRTC at all.
  const TempDir dir;
  const CliResult r =
      run_shell("CUDASYNC_NVRTC='" + dir.path + "/libnvrtc.so.13' COLUMNS=200 '" + binary_path() +
                "' exercise cg-reduce --color never --backend model");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "[kernel, unavailable here]")) << r.out;
  EXPECT_TRUE(contains(r.out, cudasync::kCudaBuiltIn ? "install cuda-nvrtc-13-x" : "built without CUDA")) << r.out;
  const json doc = valid_document("exercise cg-reduce 6 --backend model --json");
  const auto& nvrtc = doc["report"]["sections"]["exercise"]["facts"]["nvrtc"];
  const bool here = cudasync::kCudaBuiltIn && cudasync::course::nvrtc_missing().empty();
  EXPECT_EQ(nvrtc["value"], here ? "yes" : "no") << nvrtc;
}

// Found by fuzzing: the note was added to the section after the section had been moved into the
// report, so it was lost.
TEST(KernelExercise, AskedForTheAnswerItSaysThereIsNoneToShow) {
  const json doc = valid_document("exercise warp-primitives 10 --answer --backend model --json");
  const auto& notes = doc["report"]["sections"]["exercise"]["notes"];
  bool said = false;
  for (const auto& n : notes) said = said || contains(n.get<std::string>(), "a kernel exercise has no answer to show");
  EXPECT_TRUE(said) << notes.dump();
  const CliResult text = run_cli("exercise warp-primitives 10 --answer --backend model --color never");
  EXPECT_TRUE(contains(text.out, "no answer to show")) << text.out;
}

bool nvrtc_here() { return cudasync::kCudaBuiltIn && cudasync::course::nvrtc_missing().empty(); }

// Without a GPU (and without NVRTC) a kernel exercise is waived with the reason; where NVRTC is,
// the starter (which returns its own v) runs on the PTX model and is judged wrong as on a GPU.
TEST(KernelExercise, WithoutAGpuTheStarterRunsOnThePtxModelOrIsWaived) {
  const std::string file = source_dir() + "/lessons/cg-reduce/kernels/block_sum.cu";
  const CliResult r = run_cli("exercise cg-reduce 6 --kernel '" + file + "' --backend model --color never");
  if (!nvrtc_here()) {
    EXPECT_EQ(r.exit_code, 77) << shown(r);
    EXPECT_TRUE(contains(r.err, "runs it on a GPU") || contains(r.err, "NVRTC")) << r.err;
    return;
  }
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  const CliResult j = run_cli("exercise cg-reduce 6 --kernel '" + file + "' --backend model --json");
  const json doc = json::parse(j.out);
  const std::string reason = doc["report"]["sections"]["check"]["checks"]["answer-right"]["detail"].get<std::string>();
  EXPECT_TRUE(contains(reason, "Each wrong thread returned its own input")) << reason;
  EXPECT_TRUE(contains(reason, "block 0 thread 0 returned")) << reason;
  EXPECT_TRUE(contains(reason, "Replay: cudasync exercise cg-reduce 6 --kernel")) << reason;
  EXPECT_EQ(doc["report"]["sections"]["kernel"]["tables"]["wrong-threads"]["rows"][0]["thread"], 0) << j.out;
}

// The reference solutions live here, never in the binary: a right block_sum and warp_sum pass on
// the PTX model, and the block_sum without its __syncthreads() fails naming the race and both lines.
constexpr const char* kBlockSum =
    "__device__ int block_sum(int v) {\n"
    "  __shared__ int warp_sums[4];\n"
    "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
    "  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) v = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];\n"
    "  return v;\n"
    "}\n";

TEST(KernelExercise, WithoutAGpuARightKernelPassesOnThePtxModel) {
  if (!nvrtc_here()) GTEST_SKIP() << "this build cannot load NVRTC (built without CUDA, or libnvrtc missing)";
  const TempDir dir;
  std::ofstream(dir.path + "/block_sum.cu") << kBlockSum;
  std::ofstream(dir.path + "/warp_sum.cu")
      << "__device__ int warp_sum(int v) {\n"
         "  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
         "  return v;\n"
         "}\n";
  for (const char* run : {"exercise cg-reduce 6 --kernel block_sum.cu", "exercise warp-primitives 10 --kernel warp_sum.cu"}) {
    SCOPED_TRACE(run);
    const CliResult r = run_shell("cd '" + dir.path + "' && XDG_STATE_HOME='" + dir.path + "' '" + binary_path() +
                                  "' " + run + " --backend model --color never");
    EXPECT_EQ(r.exit_code, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "ran on the PTX model")) << r.out;
    EXPECT_TRUE(contains(r.out, "the PTX model (no GPU in this run)")) << r.out;  // what it was computed on
  }
}

TEST(KernelExercise, WithoutAGpuTheBlockSumWithoutItsBarrierFailsNamingTheRaceAndBothLines) {
  if (!nvrtc_here()) GTEST_SKIP() << "this build cannot load NVRTC (built without CUDA, or libnvrtc missing)";
  const TempDir dir;
  std::string racy = kBlockSum;
  racy.erase(racy.find("  __syncthreads();\n"), std::string("  __syncthreads();\n").size());
  std::ofstream(dir.path + "/racy_sum.cu") << racy;
  const CliResult r = run_shell("cd '" + dir.path + "' && XDG_STATE_HOME='" + dir.path + "' '" + binary_path() +
                                "' exercise cg-reduce 6 --kernel racy_sum.cu --backend model --color never --json");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  const json doc = json::parse(r.out);
  const json& kernel = doc["report"]["sections"]["kernel"];
  EXPECT_EQ(kernel["facts"]["finding"]["value"], "data-race") << kernel;
  const std::string said = kernel["paragraphs"][0].get<std::string>();
  EXPECT_TRUE(contains(said, "racy_sum.cu:4")) << said;  // the store of a warp's sum
  EXPECT_TRUE(contains(said, "racy_sum.cu:5")) << said;  // thread 0's load, with no barrier between
}

// What the PTX model does not run it names, with the student's line, and claims no verdict (exit 77).
TEST(KernelExercise, WithoutAGpuAnInstructionThePtxModelLacksIsNamedWithItsLineAndWaived) {
  if (!nvrtc_here()) GTEST_SKIP() << "this build cannot load NVRTC (built without CUDA, or libnvrtc missing)";
  const TempDir dir;
  std::ofstream(dir.path + "/chatty_sum.cu")
      << "__device__ int warp_sum(int v) {\n"
         "  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
         "  if (threadIdx.x == 0) printf(\"sum %d\\n\", v);\n"
         "  return v;\n"
         "}\n";
  const CliResult r = run_shell("cd '" + dir.path + "' && XDG_STATE_HOME='" + dir.path + "' '" + binary_path() +
                                "' exercise warp-primitives 10 --kernel chatty_sum.cu --backend model -q");
  EXPECT_EQ(r.exit_code, 77) << shown(r);
  EXPECT_TRUE(contains(r.err, "does not implement 'call.uni")) << r.err;
  EXPECT_TRUE(contains(r.err, "chatty_sum.cu:3")) << r.err;
}

// NVRTC needs no GPU: a syntax error is found on any machine that has it, at the student's line.
TEST(KernelExercise, WithoutAGpuACompileErrorIsStillFoundAtTheStudentsLine) {
  if (!nvrtc_here()) GTEST_SKIP() << "this build cannot load NVRTC (built without CUDA, or libnvrtc missing)";
  const TempDir dir;
  const std::string file = dir.path + "/my_warp_sum.cu";
  std::ofstream(file) << "__device__ int warp_sum(int v) {\n"
                         "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o)\n"
                         "  return v;\n"
                         "}\n";
  const CliResult r = run_cli("exercise warp-primitives 10 --kernel '" + file + "' --backend model --color never");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_TRUE(contains(r.out, "does not compile")) << r.out;
  EXPECT_TRUE(contains(r.out, "my_warp_sum.cu(2)") || contains(r.out, "my_warp_sum.cu(3)")) << r.out;
}

// An exercise renamed in this release keeps the answers recorded under its former id: a progress
// file from the release before still counts lockfree-barrier 2 as solved.
TEST(Exercise, AnswersRecordedUnderAFormerIdStillCount) {
  const TempDir state;
  std::filesystem::create_directories(state.path + "/cudasync");
  std::ofstream(state.path + "/cudasync/progress.json")
      << R"({"format": "cudasync-progress", "version": 1, "lessons": {"lockfree-barrier": {)"
         R"("xf-lock-seed-outcome": {"solved": true, "last_right": true, "attempts": 1, "last_answer": "deadlocks",)"
         R"( "when": "2026-01-01T00:00:00Z"}}}})";
  const CliResult r = run_shell("XDG_STATE_HOME='" + state.path + "' '" + binary_path() +
                                "' exercise lockfree-barrier --backend model --json");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  const json doc = json::parse(r.out);
  const json& section = doc["report"]["sections"]["exercises"];
  EXPECT_EQ(section["facts"]["solved"]["value"], 1) << section;
  for (const auto& row : section["tables"]["exercises"]["rows"])
    EXPECT_EQ(row["status"], row["number"] == 2 ? "solved" : "-") << row;
}

// The answers to the questions for class live in docs/teachers/, which is never installed; the
// text explain prints holds none, and the old --answers says where they went.
TEST(Explain, GivesNoAnswersAwayAndSaysWhereTheTeachersAreKept) {
  for (const char* lang : {"en", "zh"}) {
    SCOPED_TRACE(lang);
    const CliResult r = run_cli(std::string("explain warp-primitives --lang ") + lang);
    ASSERT_EQ(r.exit_code, 0) << shown(r);
    const std::string teachers = read_file(source_dir() + "/docs/teachers/warp-primitives." + lang + ".md");
    const std::string heading = std::string(lang) == "zh" ? "\n## 答案\n" : "\n## Answers\n";
    const std::size_t at = teachers.find(heading);
    ASSERT_NE(at, std::string::npos);
    const std::string first_answer = teachers.substr(teachers.find("\n1. ", at) + 4, 40);
    EXPECT_FALSE(contains(r.out, first_answer)) << first_answer;
    EXPECT_FALSE(contains(r.out, heading.substr(1)));
    EXPECT_TRUE(contains(r.out, "cudasync exercise warp-primitives"));
    const CliResult old = run_cli(std::string("explain warp-primitives --answers --lang ") + lang);
    EXPECT_EQ(old.exit_code, 2) << shown(old);
    EXPECT_TRUE(contains(old.err, std::string("docs/teachers/warp-primitives.") + lang + ".md")) << old.err;
  }
  const CliResult help = run_cli("explain --help");
  EXPECT_FALSE(contains(help.out, "--answers")) << help.out;
}

}  // namespace

// The hint ladder: each --hint shows one rung more, never past the last, and the progress state
// counts them; an exercise with one hint shows it every time.
TEST(Exercise, EachHintShowsOneRungMoreAndTheProgressCountsThem) {
  const TempDir state;
  const auto hint = [&](const std::string& args) {
    const CliResult r = run_shell("XDG_STATE_HOME='" + state.path + "' '" + binary_path() + "' exercise " + args +
                                  " --hint --backend model --json");
    EXPECT_EQ(r.exit_code, 0) << shown(r);
    return json::parse(r.out)["report"]["sections"]["hint"];
  };
  const json first = hint("cg-reduce 6");
  EXPECT_EQ(first["facts"]["hints-used"]["value"], 1) << first;
  EXPECT_TRUE(first["facts"].contains("hint-1")) << first;
  EXPECT_FALSE(first["facts"].contains("hint-2")) << first;
  const json second = hint("cg-reduce 6");
  EXPECT_EQ(second["facts"]["hints-used"]["value"], 2) << second;
  EXPECT_TRUE(second["facts"].contains("hint-2")) << second;
  EXPECT_NE(first["facts"]["hint-1"]["value"], second["facts"]["hint-2"]["value"]);
  EXPECT_EQ(hint("cg-reduce 6")["facts"]["hints-used"]["value"], 2);  // the ladder has two rungs
  EXPECT_EQ(cudasync::test::sqlite_value(state.path + "/cudasync/progress.db",
                                         "SELECT hints FROM exercise WHERE exercise = 'block-sum-kernel'"),
            "2");
  const json one = hint("cg-reduce 1");
  EXPECT_EQ(one["facts"]["hints-used"]["value"], 1);
  EXPECT_FALSE(one["paragraphs"].empty()) << one;
}

// A right grid barrier in inline PTX: arrive with red.release, poll with ld.acquire, then
// __syncthreads(). The block that arrives last reads its own add; it still acquires the release
// sequence the others' adds made (the PTX model once called this a race).
TEST(KernelExercise, AGridBarrierOfReleaseAddsAndAcquirePollsIsRightOnThePtxModel) {
  if (!nvrtc_here()) GTEST_SKIP() << "this build cannot load NVRTC (built without CUDA, or libnvrtc missing)";
  const TempDir dir;
  std::ofstream(dir.path + "/barrier.cu")
      << "__device__ void grid_barrier(unsigned int* count, unsigned int goal) {\n"
         "  __syncthreads();\n"
         "  if (threadIdx.x == 0) {\n"
         "    asm volatile(\"red.release.gpu.global.add.u32 [%0], 1;\" ::\"l\"(count) : \"memory\");\n"
         "    unsigned seen = 0;\n"
         "    do {\n"
         "      asm volatile(\"ld.acquire.gpu.global.u32 %0, [%1];\" : \"=r\"(seen) : \"l\"(count) : \"memory\");\n"
         "    } while (seen < goal);\n"
         "  }\n"
         "  __syncthreads();\n"
         "}\n";
  const CliResult r = run_shell("cd '" + dir.path + "' && XDG_STATE_HOME='" + dir.path + "' '" + binary_path() +
                                "' exercise lockfree-barrier 5 --kernel barrier.cu --backend model -q");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
}
