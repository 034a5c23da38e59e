#pragma once
// Where compute-sanitizer is: on PATH, else under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda (bin/
// and compute-sanitizer/). nullopt when none is found; `looked` then says where it looked. Used by
// deadlock-demo's synccheck part and by the kernel exercises' checker.
#include <optional>
#include <string>

namespace cudasync {

std::optional<std::string> find_compute_sanitizer(std::string& looked);

}  // namespace cudasync
