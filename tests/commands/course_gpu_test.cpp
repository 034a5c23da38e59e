// The course on a GPU: the tour in one document (under 3 s on an H100: the whole course in one
// process, one CUDA context), and every exercise's answer as the GPU computes it, checked right.
// Skipped, with the reason, without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "core/sanitizer_path.hpp"
#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"

using namespace cudasync::test;

namespace {

using json = nlohmann::ordered_json;

TEST(CourseGpu, TheTourIsOneDocumentAndFastOnAnH100) {
  CUDASYNC_REQUIRE_GPU();
  const auto start = std::chrono::steady_clock::now();
  const json doc = valid_document("tour --backend gpu --json");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  const std::string gpu = doc["device"].is_null() ? "" : doc["device"]["name"].get<std::string>();
  std::cout << "tour on " << gpu << ": " << seconds << " s (process), "
            << doc["report"]["sections"]["tour-end"]["facts"]["time"]["value"] << " ms (stops)\n";
  if (gpu.find("H100") != std::string::npos) {
    EXPECT_LT(seconds, 3.0) << "the tour must stay under 3 s on an H100";
  }
}

TEST(CourseGpu, EveryExercisesAnswerFromTheGpuChecksRight) {
  CUDASYNC_REQUIRE_GPU();
  const json overview = valid_document("exercise --backend gpu --json");
  for (const auto& row : overview["report"]["sections"]["exercises"]["tables"]["lessons"]["rows"]) {
    const std::string lesson = row["lesson"].get<std::string>();
    for (int i = 1; i <= row["exercises"].get<int>(); ++i) {
      const std::string n = std::to_string(i);
      SCOPED_TRACE(lesson + " " + n);
      const CliResult a = run_cli("exercise " + lesson + " " + n + " --answer --backend gpu --json");
      if (a.exit_code == 77) continue;  // a part this GPU waives
      ASSERT_EQ(a.exit_code, 0) << shown(a);
      const json doc = json::parse(a.out);
      if (doc["report"]["sections"]["exercise"]["facts"].contains("starter")) continue;  // a kernel: below
      const auto& answer = doc["report"]["sections"]["answer"]["facts"];
      EXPECT_TRUE(contains(answer["computed-on"]["value"].get<std::string>(), "the GPU"));
      const std::string value = answer["answer"]["value"].get<std::string>();
      const CliResult c = run_cli("check " + lesson + " " + n + " '" + value + "' --backend gpu");
      EXPECT_EQ(c.exit_code, 0) << "the GPU's own answer, checked again: " << shown(c);
    }
  }
}

// The kernel exercises on the GPU: a student's file compiled at run time (NVRTC), run, and judged.
std::string student_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const char* kWarpSumRight =
    "__device__ int warp_sum(int v) {\n"
    "  for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);\n"
    "  return v;\n}\n";
const char* kWarpSumDown =
    "__device__ int warp_sum(int v) {\n"
    "  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);\n"
    "  return v;\n}\n";
const char* kBlockSumRight =
    "__device__ int block_sum(int v) {\n"
    "  __shared__ int warp_sums[32];\n"
    "  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);\n"
    "  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;\n"
    "  __syncthreads();\n"
    "  int s = 0;\n"
    "  if (threadIdx.x == 0)\n"
    "    for (int w = 0; w < blockDim.x / 32; ++w) s += warp_sums[w];\n"
    "  return s;\n}\n";
// A spin the PTX model cannot run (its printf is a call), so only the GPU's deadline ends it.
const char* kBlockSumSpins =
    "__device__ int block_sum(int v) {\n"
    "  __shared__ volatile int never;\n"
    "  never = 0;\n"
    "  while (never == 0) { if (never == 2) printf(\"never\\n\"); }\n"
    "  return v;\n}\n";
// The same spin without the printf: the PTX model finds it never ends, and the GPU is not asked.
const char* kBlockSumSpinsSeen =
    "__device__ int block_sum(int v) {\n"
    "  __shared__ volatile int never;\n"
    "  never = 0;\n"
    "  while (never == 0) {}\n"
    "  return v;\n}\n";

TEST(KernelExerciseGpu, ARightWarpSumPassesAndIsRecorded) {
  CUDASYNC_REQUIRE_GPU();
  const std::string f = student_file("warp_sum_right.cu", kWarpSumRight);
  const json doc = valid_document("exercise warp-primitives 10 --kernel '" + f + "' --backend gpu --json", 0);
  EXPECT_TRUE(doc["report"]["sections"]["check"]["checks"]["answer-right"]["passed"].get<bool>());
  const auto& facts = doc["report"]["sections"]["kernel"]["facts"];
  EXPECT_EQ(facts["wrong-launches"]["value"], 0) << facts;
  EXPECT_EQ(facts["gpu-launches"]["value"], 27) << facts;  // 3 shapes x 3 seeds x 3 delay patterns
  EXPECT_GE(facts["model-launches"]["value"].get<int>(), 1) << facts;  // and the PTX model beside the GPU
  EXPECT_EQ(facts["model-agrees"]["value"], "yes") << facts;          // with the GPU's values
  EXPECT_TRUE(contains(doc["report"]["sections"]["check"]["facts"]["computed-on"]["value"].get<std::string>(),
                       "PTX model"));
}

TEST(KernelExerciseGpu, ShflDownLeavesTheSumInLaneZeroAndTheToolSaysWhichLanes) {
  CUDASYNC_REQUIRE_GPU();
  const std::string f = student_file("warp_sum_down.cu", kWarpSumDown);
  const json doc = valid_document("exercise warp-primitives 10 --kernel '" + f + "' --backend gpu --json", 1);
  const auto& verdict = doc["report"]["sections"]["check"]["checks"]["answer-right"];
  EXPECT_FALSE(verdict["passed"].get<bool>());
  EXPECT_TRUE(contains(verdict["detail"].get<std::string>(), "Only the first thread of each group")) << verdict["detail"];
  EXPECT_TRUE(contains(verdict["detail"].get<std::string>(), "wrong on the GPU in launch 1")) << verdict["detail"];
  EXPECT_EQ(doc["report"]["sections"]["kernel"]["tables"]["launches"]["rows"][0]["wrong"], 62);
}

TEST(KernelExerciseGpu, ACompileErrorKeepsTheStudentsLine) {
  CUDASYNC_REQUIRE_GPU();
  const std::string f = student_file("warp_sum_typo.cu", "__device__ int warp_sum(int v) {\n  return v +;\n}\n");
  const CliResult r = run_cli("exercise warp-primitives 10 --kernel '" + f + "' --backend gpu --color never");
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_TRUE(contains(r.out, "warp_sum_typo.cu(2)")) << r.out;
  EXPECT_TRUE(contains(r.out, "does not compile")) << r.out;
}

TEST(KernelExerciseGpu, ARightBlockSumPassesAndASpinIsEndedByTheDeadline) {
  CUDASYNC_REQUIRE_GPU();
  const std::string right = student_file("block_sum_right.cu", kBlockSumRight);
  const json ok = valid_document("exercise cg-reduce 6 --kernel '" + right + "' --backend gpu --json", 0);
  EXPECT_EQ(ok["report"]["sections"]["kernel"]["facts"]["wrong-launches"]["value"], 0);
  // Where compute-sanitizer is, its three tools ran on the first launch and found nothing.
  std::string looked;
  if (cudasync::find_compute_sanitizer(looked)) {
    const auto& rows = ok["report"]["sections"]["kernel"]["tables"]["sanitizer"]["rows"];
    ASSERT_EQ(rows.size(), 3u) << ok["report"]["sections"]["kernel"];
    for (const auto& row : rows) {
      EXPECT_EQ(row["errors"], 0) << row;
      EXPECT_EQ(row["report"].get<std::string>().find("did not run"), std::string::npos) << row;  // each read its summary
    }
  }
  const std::string spins = student_file("block_sum_spins.cu", kBlockSumSpins);
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = run_cli("exercise cg-reduce 6 --kernel '" + spins + "' --backend gpu --color never");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_TRUE(contains(r.out, "did not return")) << r.out;
  EXPECT_LT(seconds, 30.0) << "the child is ended at its deadline";
  const CliResult seen = run_cli("exercise cg-reduce 6 --kernel '" + student_file("block_sum_spins_seen.cu", kBlockSumSpinsSeen) +
                                 "' --backend gpu --color never");
  EXPECT_EQ(seen.exit_code, 1) << shown(seen);
  EXPECT_TRUE(contains(seen.out, "step-limit")) << seen.out;
}

// The block_sum of the issue: each warp's sum to shared memory, thread 0 reads them with no
// __syncthreads() between. The GPU may well return the right sums; the checker still fails it,
// naming the race and both lines.
TEST(KernelExerciseGpu, TheBlockSumWithoutItsBarrierFailsOnTheGpuRunToo) {
  CUDASYNC_REQUIRE_GPU();
  std::string racy = kBlockSumRight;
  racy.erase(racy.find("  __syncthreads();\n"), std::string("  __syncthreads();\n").size());
  const std::string f = student_file("block_sum_racy.cu", racy);
  for (const char* seed : {"1", "2", "3", "4", "5"}) {
    const json doc = valid_document("exercise cg-reduce 6 --kernel '" + f + "' --backend gpu --json --seed " + seed, 1);
    const auto& kernel = doc["report"]["sections"]["kernel"];
    EXPECT_EQ(kernel["facts"]["finding"]["value"], "data-race") << kernel;
    EXPECT_EQ(kernel["facts"]["gpu-launches"]["value"], 27) << kernel;
  }
}

}  // namespace
