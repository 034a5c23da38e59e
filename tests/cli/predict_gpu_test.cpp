// --predict on a GPU, one run per lesson that asks: the GPU's answer is there (or the part is
// waived on this GPU), and the prediction is scored against it. Skipped, with the reason, without a GPU.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"

using namespace cudasync::test;

namespace {

using json = nlohmann::ordered_json;

TEST(PredictGpu, EachLessonsQuestionIsScoredAgainstTheGpu) {
  CUDASYNC_REQUIRE_GPU();
  const json spec = json::parse(run_cli("--cli-spec").out);
  int asked = 0;
  for (const auto& c : spec["commands"]) {
    bool predicts = false;
    for (const auto& o : c["options"]) predicts = predicts || (!o["long"].empty() && o["long"][0] == "predict");
    if (!c.value("lesson", false) || !predicts) continue;
    const std::string lesson = c["name"].get<std::string>();
    SCOPED_TRACE(lesson);
    const std::string yes = lesson == "lock" ? "completes" : "yes";  // lock's is an either/or question
    const CliResult r = run_cli(lesson + " --predict --prediction " + yes + " --backend gpu --json");
    if (r.exit_code == 77) continue;  // this GPU waives the part
    ASSERT_EQ(r.exit_code, 0) << shown(r);
    const json doc = json::parse(r.out);
    const auto& p = doc["report"]["sections"]["prediction"]["facts"];
    const std::string gpu = p["gpu"]["value"].is_string() ? p["gpu"]["value"].get<std::string>() : "";
    std::cout << lesson << ": the GPU says " << (gpu.empty() ? "nothing" : gpu) << ", the model "
              << p["model"]["value"] << ", a prediction of " << yes << " is " << p["score"]["value"] << "\n";
    EXPECT_TRUE(gpu == yes || gpu == "no" || gpu == "deadlocks") << "the GPU's answer: " << p.dump();
    EXPECT_EQ(p["score"]["value"], gpu == yes ? "right" : "wrong");
    ++asked;
  }
  EXPECT_GE(asked, 6);
}

}  // namespace
