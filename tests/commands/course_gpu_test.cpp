// The course on a GPU: the tour in one document (under 3 s on an H100: the whole course in one
// process, one CUDA context), and every exercise's answer as the GPU computes it, checked right.
// Skipped, with the reason, without a GPU.
#include <gtest/gtest.h>

#include <chrono>

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
      const auto& answer = doc["report"]["sections"]["answer"]["facts"];
      EXPECT_TRUE(contains(answer["computed-on"]["value"].get<std::string>(), "the GPU"));
      const std::string value = answer["answer"]["value"].get<std::string>();
      const CliResult c = run_cli("check " + lesson + " " + n + " '" + value + "' --backend gpu");
      EXPECT_EQ(c.exit_code, 0) << "the GPU's own answer, checked again: " << shown(c);
    }
  }
}

}  // namespace
