// --predict: Fan's reduction loop without the __syncwarp between a read and a write.
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

std::vector<parts::Prediction> predictions() {
  return {{"syncwarp",
           "Fan's warp reduction in shared memory without a __syncwarp() between each read and write (the racy "
           "variant): on this GPU, will s[0] end with the right sum (496)?",
           {"yes", "no"},
           [](const report::Section& s) {
             parts::Truth t;
             const report::Value* right = parts::find_fact(s, "right-sum");
             const report::Value* gpu = parts::find_fact(s, "racy-s0-gpu");
             const auto* r = right ? std::get_if<std::int64_t>(right) : nullptr;
             const auto* g = gpu ? std::get_if<std::int64_t>(gpu) : nullptr;
             if (r != nullptr && g != nullptr) t.gpu = *g == *r ? "yes" : "no";
             t.detail = "the model cannot say: it is a data race; in lockstep s[0] ends at 496, with the lanes "
                        "one at a time (31 down to 0) at another value (facts racy-s0-lockstep, racy-s0-descending)";
             return t;
           }}};
}

}  // namespace cudasync::warp_primitives
