// --predict: a clock read right after bar.sync, while the last warp arrives late.
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

std::vector<parts::Prediction> predictions() {
  return {{"early-stamp",
           "Three warps read the clock right after a barrier while the fourth arrives 20,000 cycles late: will any "
           "of those clock reads be earlier than the late warp's arrival?",
           {"yes", "no"},
           [](const report::Section& s) {
             parts::Truth t;
             t.detail = "the PTX ISA does not say when an instruction after bar.sync may execute, so the model "
                        "cannot answer; the guarded stamp is the one it makes wait";
             const report::Table* table = parts::find_table(s, "stamps");
             if (table == nullptr) return t;
             bool any_gpu = false, early = false;
             for (std::size_t r = 0; r < table->rows.size(); ++r) {
               const auto* n = std::get_if<std::int64_t>(&table->cell(r, "naive-before"));
               if (n == nullptr) continue;
               any_gpu = true;
               early = early || *n > 0;
             }
             if (any_gpu) t.gpu = early ? "yes" : "no";
             return t;
           }}};
}

}  // namespace cudasync::named_barriers
