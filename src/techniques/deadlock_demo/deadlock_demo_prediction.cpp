// --predict: a grid larger than what fits at once meets at a software barrier.
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"

namespace cudasync::deadlock_demo {

std::vector<parts::Prediction> predictions() {
  return {{"grid-oversubscribed",
           "A grid of --blocks blocks (by default twice as many as fit on the GPU at once) meets at one counter "
           "barrier: does the launch complete?",
           {"yes", "no"},
           [](const report::Section& s) {
             parts::Truth t;
             if (const report::Check* ended = parts::find_check(s, "ended")) t.gpu = ended->passed ? "no" : "yes";
             if (const report::Check* done = parts::find_check(s, "completes")) t.gpu = done->passed ? "yes" : "no";
             const report::Check* deadlocks = parts::find_check(s, "model-deadlocks");
             t.model = deadlocks != nullptr && deadlocks->passed ? "no" : "yes";
             if (const report::Value* w = parts::find_fact(s, "model-cycle")) t.detail = "the model: " + parts::text_of(*w);
             return t;
           }}};
}

}  // namespace cudasync::deadlock_demo
