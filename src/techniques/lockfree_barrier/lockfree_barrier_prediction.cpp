// --predict: Xiao & Feng's lock-based barrier as a widely shared transcription has it.
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"

namespace cudasync::lockfree_barrier {

namespace {

// The words a sentence of the catalog starts with, before its first placeholder, in the run's
// language: the model's outcome is read in whichever language the run printed it.
std::string opening(std::string_view key) {
  const auto entry = words::catalog("lockfree-barrier").find(key);
  if (entry == words::catalog("lockfree-barrier").end()) return std::string(key);
  const std::string& text = entry->second.in(words::language());
  return text.substr(0, text.find('{'));
}

}  // namespace

std::vector<parts::Prediction> predictions() {
  return {{"xf-lock-unrepaired",
           "Xiao & Feng's lock-based barrier as a widely shared transcription writes it (xf-lock-unrepaired): does "
           "every block pass every barrier, with the right values at the end?",
           {"yes", "no"},
           [](const report::Section& s) {
             parts::Truth t;
             const report::Value* deadline = parts::find_fact(s, "gpu-deadline");
             const report::Value* wrong = parts::find_fact(s, "gpu-wrong-values");
             if (deadline != nullptr && wrong != nullptr) {
               const auto* hit = std::get_if<bool>(deadline);
               const auto* n = std::get_if<std::int64_t>(wrong);
               if (hit != nullptr && n != nullptr) t.gpu = !*hit && *n == 0 ? "yes" : "no";
             }
             if (const report::Value* sim = parts::find_fact(s, "model-sim")) {
               const std::string m = parts::text_of(*sim);
               // "completed in 7 steps", without "; block 0 passed barrier 1 before every block had arrived"
               t.model = m.rfind(opening("sim.completed"), 0) == 0 && m.find(opening("sim.early")) == std::string::npos
                             ? "yes"
                             : "no";
               t.detail = "the model's step simulation: " + m;
             }
             return t;
           }}};
}

}  // namespace cudasync::lockfree_barrier
