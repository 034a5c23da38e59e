// --predict: the litmus test, where intuition about fences fails most often.
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

namespace {

bool is_sentence(const std::string& text, std::string_view key) { return words::is_sentence("threadfence", key, text); }

// The first row's verdict (litmus_verdict) as the answer: the model says "yes" where it allows the
// weak outcome (it may show; whether it does is the hardware's), the GPU whether it showed.
parts::Truth verdict_truth(const report::Section& s) {
  parts::Truth t;
  const report::Table* table = parts::find_table(s, "outcomes");
  if (table == nullptr || table->rows.empty()) return t;
  const std::string v = parts::text_of(table->cell(0, "verdict"));
  if (is_sentence(v, "verdict.allowed") || is_sentence(v, "verdict.allowed-seen") ||
      is_sentence(v, "verdict.allowed-not-seen"))
    t.model = "yes";
  else if (is_sentence(v, "verdict.forbidden") || is_sentence(v, "verdict.forbidden-seen") ||
           is_sentence(v, "verdict.forbidden-not-seen"))
    t.model = "no";
  if (is_sentence(v, "verdict.allowed-seen") || is_sentence(v, "verdict.forbidden-seen")) t.gpu = "yes";
  else if (is_sentence(v, "verdict.allowed-not-seen") || is_sentence(v, "verdict.forbidden-not-seen")) t.gpu = "no";
  t.detail = say(t.model == std::optional<std::string>("yes") ? "prediction.detail-allowed" : "prediction.detail",
                 {{"verdict", v}});
  return t;
}

}  // namespace

std::vector<parts::Prediction> predictions() {
  return {{"litmus",
           "The litmus test of this run (its first row: --test and --fence, by default mp with no fence, the "
           "writer and the reader in two blocks): will this GPU show the weak outcome at least once (for mp: "
           "the reader sees the flag and still reads the old data)?",
           {"yes", "no"},
           verdict_truth}};
}

}  // namespace cudasync::threadfence
