// --predict: CUDA by Example's lock taken by the lanes of one warp.
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {

namespace {

// Whether `text` is the sentence of catalog key `key` in the run's language: it starts with the
// sentence's words before its first placeholder.
bool is_sentence(const std::string& text, std::string_view key) {
  const words::Catalog& c = words::catalog("lock");
  const auto entry = c.find(key);
  if (entry == c.end()) return false;
  const std::string& s = entry->second.in(words::language());
  const std::string head = s.substr(0, s.find('{'));
  return !head.empty() && text.rfind(head, 0) == 0;
}

// A cell of the side-by-side table ("completes..." / "stuck..." / "deadlock...") as an answer to
// "does it complete?".
std::optional<std::string> completes(const report::Value& v) {
  const std::string t = parts::text_of(v);
  if (is_sentence(t, "warp.gpu-completes") || is_sentence(t, "outcome.completes")) return std::string("yes");
  if (is_sentence(t, "warp.gpu-stuck") || is_sentence(t, "outcome.deadlock")) return std::string("no");
  return std::nullopt;
}

}  // namespace

std::vector<parts::Prediction> predictions() {
  return {{"warp-deadlock",
           "The 32 lanes of one warp all take CUDA by Example's spin lock (the first launch of this run): does "
           "the launch complete on this GPU, or do the lanes wait for each other for ever?",
           {"yes", "no"},
           [](const report::Section& s) {
             parts::Truth t;
             const report::Table* table = parts::find_table(s, "side-by-side");
             if (table == nullptr || table->rows.empty()) return t;
             t.gpu = completes(table->cell(0, "gpu"));
             // This GPU schedules the lanes of a warp independently (compute capability 7.0 on).
             std::string lockstep;
             for (const auto& c : table->columns) {
               if (c.key == "independent") t.model = completes(table->cell(0, "independent"));
               if (c.key == "lockstep") lockstep = parts::text_of(table->cell(0, "lockstep"));
             }
             t.detail = say("prediction.detail", {{"lockstep", lockstep.empty() ? say("prediction.not-run") : lockstep}});
             return t;
           }}};
}

}  // namespace cudasync::lock
