// --predict: CUDA by Example's lock taken by the lanes of one warp.
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {

namespace {

// "completes..." / "stuck..." / "deadlock..." as an answer to "does it complete?".
std::optional<std::string> completes(const report::Value& v) {
  const std::string t = parts::text_of(v);
  if (t.rfind("completes", 0) == 0) return std::string("yes");
  if (t.rfind("stuck", 0) == 0 || t.rfind("deadlock", 0) == 0) return std::string("no");
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
             t.detail = "the model with independent thread scheduling, as on this GPU; in lockstep (before Volta): " +
                        (lockstep.empty() ? std::string("not run (--model)") : lockstep);
             return t;
           }}};
}

}  // namespace cudasync::lock
