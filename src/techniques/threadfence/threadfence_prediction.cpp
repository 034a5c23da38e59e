// --predict: the litmus test, where intuition about fences fails most often.
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

std::vector<parts::Prediction> predictions() {
  return {{"litmus",
           "The litmus test of this run (its first row: --test and --fence, by default mp with no fence, the "
           "writer and the reader in two blocks): will this GPU show the weak outcome at least once (for mp: "
           "the reader sees the flag and still reads the old data)?",
           {"yes", "no"},
           [](const report::Section& s) { return parts::weak_outcome_truth(s, "outcomes", "threadfence"); }}};
}

}  // namespace cudasync::threadfence
