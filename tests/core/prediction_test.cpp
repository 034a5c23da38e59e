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

TEST(Prediction, TheScoreIsAgainstTheGpuWhenThereIsOneElseTheModel) {
  EXPECT_EQ(score_of(prediction_section(yes_no(), "no", Truth{std::string("no"), std::string("yes"), ""})), "right");
  EXPECT_EQ(score_of(prediction_section(yes_no(), "yes", Truth{std::string("no"), std::string("yes"), ""})), "wrong");
  EXPECT_EQ(score_of(prediction_section(yes_no(), "yes", Truth{std::nullopt, std::string("yes"), ""})), "right");
  EXPECT_EQ(score_of(prediction_section(yes_no(), "yes", Truth{std::nullopt, std::nullopt, ""})), "no score");
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
