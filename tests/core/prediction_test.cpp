// Predict, then run: the answer read from the terminal or --prediction, the truth read from a part's
// section, and the score against the GPU where there is one, else against the model.
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/parts/prediction.hpp"
#include "core/words/words.hpp"

namespace cudasync::parts {
namespace {

Prediction yes_no() { return {"litmus", "will it show?", {"yes", "no"}, {}}; }

report::Section litmus_section(const std::string& verdict) {
  report::Section s("litmus", "litmus");
  report::Table t("outcomes", "outcomes");
  t.column("test", "test").column("verdict", "verdict");
  t.row({{"test", std::string("mp")}, {"verdict", verdict}});
  s.add(std::move(t));
  return s;
}

TEST(Prediction, AChoiceIsReadWhateverItsCaseAndBlanks) {
  EXPECT_EQ(choice_of(yes_no(), "  YES \n"), std::optional<std::string>("yes"));
  EXPECT_EQ(choice_of(yes_no(), "maybe"), std::nullopt);
  EXPECT_EQ(choices_text(yes_no()), "yes, no");
}

TEST(Prediction, TheWeakOutcomeIsReadFromTheVerdictColumnInEitherLanguage) {
  // The verdicts are threadfence's catalog sentences, in the run's language.
  for (const auto lang : {words::Lang::en, words::Lang::zh}) {
    const words::LanguageScope scope(lang);
    const auto verdict = [](std::string_view key, const words::Args& args = {}) {
      return litmus_section(words::say("threadfence", key, args));
    };
    const Truth model_only = weak_outcome_truth(verdict("verdict.allowed"), "outcomes", "threadfence");
    EXPECT_EQ(model_only.model, std::optional<std::string>("yes"));
    EXPECT_EQ(model_only.gpu, std::nullopt);
    const Truth forbidden =
        weak_outcome_truth(verdict("verdict.forbidden", {{"reason", "fence.sc.gpu"}}), "outcomes", "threadfence");
    EXPECT_EQ(forbidden.model, std::optional<std::string>("no"));
    const Truth seen = weak_outcome_truth(verdict("verdict.allowed-seen"), "outcomes", "threadfence");
    EXPECT_EQ(seen.gpu, std::optional<std::string>("yes"));
    const Truth not_seen = weak_outcome_truth(verdict("verdict.allowed-not-seen"), "outcomes", "threadfence");
    EXPECT_EQ(not_seen.gpu, std::optional<std::string>("no"));
    EXPECT_EQ(not_seen.model, std::optional<std::string>("yes"));
    const Truth finding = weak_outcome_truth(verdict("verdict.forbidden-seen"), "outcomes", "threadfence");
    EXPECT_EQ(finding.gpu, std::optional<std::string>("yes"));
    EXPECT_EQ(finding.model, std::optional<std::string>("no"));
    EXPECT_EQ(weak_outcome_truth(litmus_section("x"), "no-such-table", "threadfence").model, std::nullopt);
    EXPECT_EQ(weak_outcome_truth(litmus_section("x"), "outcomes", "threadfence").model, std::nullopt);
  }
}

std::string score_of(const report::Section& s) {
  for (const auto& f : s.facts)
    if (f.id == "score") return std::get<std::string>(f.value);
  return "";
}

TEST(Prediction, OnAGpuTheGpuScoresItOnTheModelTheModel) {
  const Truth gpu_no_model_yes{std::string("no"), std::string("yes"), ""};
  EXPECT_EQ(score_of(prediction_section(yes_no(), "no", gpu_no_model_yes, true)), "right");
  EXPECT_EQ(score_of(prediction_section(yes_no(), "yes", gpu_no_model_yes, true)), "wrong");
  EXPECT_EQ(score_of(prediction_section(yes_no(), "yes", Truth{std::nullopt, std::string("yes"), ""}, false)), "right");
  // A GPU run that gave no answer is not scored by the model: the question was about the GPU.
  EXPECT_EQ(score_of(prediction_section(yes_no(), "yes", Truth{std::nullopt, std::string("yes"), ""}, true)), "no score");
  EXPECT_EQ(score_of(prediction_section(yes_no(), "yes", Truth{std::nullopt, std::nullopt, ""}, false)), "no score");
}

TEST(Prediction, TheModelIsAskedItsOwnQuestionAndTheScoreComesFirst) {
  Prediction p = yes_no();
  p.model_question = "may a GPU show it?";
  EXPECT_EQ(question_for(p, true), p.question);
  EXPECT_EQ(question_for(p, false), "may a GPU show it?");
  const report::Section s = prediction_section(p, "yes", Truth{std::nullopt, std::string("yes"), ""}, false);
  ASSERT_FALSE(s.facts.empty());
  EXPECT_EQ(s.facts.front().id, "score");
  ASSERT_FALSE(s.paragraphs.empty());
  EXPECT_NE(s.paragraphs.front().find("may a GPU show it?"), std::string::npos);
}

TEST(Prediction, NaturalAnswersAreTheirChoices) {
  Prediction either{"warp-deadlock", "q?", {"completes", "deadlocks"}, {}, "", {{"hangs", "deadlocks"}}};
  EXPECT_EQ(choice_of(either, " Hangs "), std::optional<std::string>("deadlocks"));
  EXPECT_EQ(choice_of(either, "completes"), std::optional<std::string>("completes"));
  EXPECT_EQ(choice_of(either, "yes"), std::nullopt) << "an either/or question is not answered yes";
  EXPECT_EQ(choice_of(yes_no(), "Y"), std::optional<std::string>("yes"));
  EXPECT_EQ(choice_of(yes_no(), "不会"), std::optional<std::string>("no"));
}

TEST(Prediction, TheChoiceFollowsPredictPartAndTheWayToAnswer) {
  const std::vector<Prediction> ps{yes_no(), {"scope", "q?", {"yes", "no"}, {}}};
  EXPECT_FALSE(choose_prediction(ps, "threadfence", {}, false, false, "", false).index);
  const PredictionChoice first = choose_prediction(ps, "threadfence", {}, false, true, " No", false);
  EXPECT_EQ(first.index, std::optional<std::size_t>(0));
  EXPECT_EQ(first.answer, "no");
  EXPECT_EQ(choose_prediction(ps, "threadfence", {"scope"}, false, true, "", true).index,
            std::optional<std::size_t>(1));
  EXPECT_THROW(choose_prediction(ps, "threadfence", {}, false, false, "yes", true), UsageError);
  EXPECT_THROW(choose_prediction(ps, "threadfence", {}, true, true, "yes", true), UsageError);
  EXPECT_THROW(choose_prediction(ps, "threadfence", {"ptx"}, false, true, "yes", true), UsageError);
  EXPECT_THROW(choose_prediction(ps, "threadfence", {}, false, true, "maybe", true), UsageError);
  EXPECT_THROW(choose_prediction(ps, "threadfence", {}, false, true, "", false), UsageError);
  EXPECT_EQ(prediction_parts(ps), "litmus, scope");
}

}  // namespace
}  // namespace cudasync::parts
