// --predict: Xiao & Feng's lock-based barrier as a widely shared transcription has it.
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"

namespace cudasync::lockfree_barrier {

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
               t.model = m.rfind("completed", 0) == 0 && m.find("before every block") == std::string::npos ? "yes"
                                                                                                         : "no";
               t.detail = "the model's step simulation: " + m;
             }
             return t;
           }}};
}

}  // namespace cudasync::lockfree_barrier
