// `cudasync <lesson> --predict` on the model, for every lesson that asks for a prediction (found in
// `cudasync --cli-spec`, so a new one is tested without an edit here): --prediction gives one valid
// document with the scored prediction; without a terminal and without --prediction the run stops at
// once with the reason (exit 2), never waiting; a wrong value or a part without a question is a
// usage error. The GPU runs are in predict_gpu_test.cpp.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"

using namespace cudasync::test;

namespace {

using json = nlohmann::ordered_json;

std::vector<std::string> lessons_that_predict() {
  const CliResult r = run_cli("--cli-spec");
  const json spec = json::parse(r.out);
  std::vector<std::string> out;
  for (const auto& c : spec["commands"]) {
    if (!c.value("lesson", false)) continue;
    for (const auto& o : c["options"])
      if (!o["long"].empty() && o["long"][0] == "predict") out.push_back(c["name"].get<std::string>());
  }
  return out;
}

TEST(Predict, EveryLessonButOneAsksAQuestionSomewhere) {
  EXPECT_GE(lessons_that_predict().size(), 7u);
}

// An answer each lesson's question takes, typed as a student might.
std::pair<std::string, std::string> typed_and_taken(const std::string& lesson) {
  if (lesson == "lock") return {"Hangs", "deadlocks"};  // an either/or question
  return {"YES", "yes"};
}

TEST(Predict, APredictionFromTheCommandLineIsScoredBesideTheModel) {
  for (const std::string& lesson : lessons_that_predict()) {
    SCOPED_TRACE(lesson);
    const auto [typed, taken] = typed_and_taken(lesson);
    const json doc = valid_document(lesson + " --predict --prediction " + typed + " --backend model --json");
    const auto& p = doc["report"]["sections"]["prediction"];
    EXPECT_EQ(p["facts"]["yours"]["value"], taken);
    EXPECT_TRUE(p["facts"]["gpu"]["value"].is_null()) << "no GPU on the model";
    const std::string score = p["facts"]["score"]["value"].get<std::string>();
    EXPECT_TRUE(score == "right" || score == "wrong" || score == "no score") << score;
    EXPECT_FALSE(p["paragraphs"].empty()) << "the question is in the report";
    EXPECT_EQ(doc["report"]["sections"].size(), 3u) << "setup, the one part, the prediction";
  }
}

TEST(Predict, WithoutATerminalAndWithoutAPredictionItStopsAtOnce) {
  for (const std::string& lesson : lessons_that_predict()) {
    SCOPED_TRACE(lesson);
    const CliResult r = run_shell("'" + binary_path() + "' " + lesson + " --predict --backend model </dev/null");
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "stdin is not one")) << r.err;
    EXPECT_TRUE(contains(r.err, "accepted: --prediction VALUE")) << r.err;
  }
}

TEST(Predict, AnAnswerOnStdinIsReadWhenItIsATerminalOnly) {
  // A pipe is not a terminal: the answer in it is not read, and the run says how to give one.
  const CliResult r = run_shell("echo no | '" + binary_path() + "' lock --predict --backend model");
  EXPECT_EQ(r.exit_code, 2) << shown(r);
}

TEST(Predict, BadInputExits2SayingWhatIsAccepted) {
  for (const UsageCase& c : std::vector<UsageCase>{
           {"lock --predict --prediction maybe", {"--prediction maybe", "accepted: one of completes, deadlocks"}},
           {"lock --predict --prediction yes", {"--prediction yes", "accepted: one of completes, deadlocks"}},
           {"lock --prediction yes", {"--prediction yes", "accepted: --predict --prediction VALUE"}},
           {"lock --predict --part stale-reads --prediction yes", {"--part stale-reads", "warp-deadlock"}},
           {"lock --predict --bench --prediction yes", {"--predict", "accepted"}},
           {"threadfence --predict --part litmus,scope --prediction no", {"--part litmus", "accepted"}},
           {"cg-reduce --predict", {"--predict"}},
       }) {
    SCOPED_TRACE(c.args);
    expect_usage_error(c);
  }
}

}  // namespace
