// --predict: a GPU hands data to a host thread through a flag, with or without a fence.
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

std::vector<parts::Prediction> predictions() {
  return {{"host-flag",
           "A kernel thread stores data, then (per --fence; the first row of this run, by default no fence) a "
           "flag, into pinned host memory, and a host thread waits for the flag and reads the data: will the host "
           "read stale data at least once?",
           {"yes", "no"},
           [](const report::Section& s) { return parts::weak_outcome_truth(s, "outcomes", "multi-gpu"); }}};
}

}  // namespace cudasync::multi_gpu
