// --predict: a GPU hands data to a host thread through a flag, with or without a fence.
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

namespace {

bool is(const std::string& text, std::string_view key) { return words::is_sentence("multi-gpu", key, text); }

// The first row's verdict (flag_verdict) as the answer: the model says "yes" where it allows the
// stale read (it may show; whether it does is the hardware's), the GPU whether it showed.
parts::Truth verdict_truth(const report::Section& s) {
  parts::Truth t;
  const report::Table* table = parts::find_table(s, "outcomes");
  if (table == nullptr || table->rows.empty()) return t;
  const std::string v = parts::text_of(table->cell(0, "verdict"));
  if (is(v, "verdict.allowed") || is(v, "verdict.allowed-seen") || is(v, "verdict.allowed-not-seen")) t.model = "yes";
  else if (is(v, "verdict.forbidden") || is(v, "verdict.forbidden-seen") || is(v, "verdict.forbidden-not-seen"))
    t.model = "no";
  if (is(v, "verdict.allowed-seen") || is(v, "verdict.forbidden-seen")) t.gpu = "yes";
  else if (is(v, "verdict.allowed-not-seen") || is(v, "verdict.forbidden-not-seen")) t.gpu = "no";
  t.detail = say(t.model == std::optional<std::string>("yes") ? "prediction.detail-allowed" : "prediction.detail",
                 {{"verdict", v}});
  return t;
}

}  // namespace

std::vector<parts::Prediction> predictions() {
  return {{"host-flag",
           "A kernel thread stores data, then (per --fence; the first row of this run, by default no fence) a "
           "flag, into pinned host memory, and a host thread waits for the flag and reads the data: will the host "
           "read stale data at least once?",
           {"yes", "no"},
           verdict_truth}};
}

}  // namespace cudasync::multi_gpu
