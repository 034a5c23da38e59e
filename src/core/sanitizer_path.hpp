#pragma once
// Where compute-sanitizer is: on PATH, else under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda (bin/
// and compute-sanitizer/). nullopt when none is found; `looked` then says where it looked. Used by
// deadlock-demo's synccheck part and by the kernel exercises' checker.
#include <optional>
#include <string>
#include <vector>

namespace cudasync {

std::optional<std::string> find_compute_sanitizer(std::string& looked);

// Any of the CUDA toolkit's programs by name ("nvdisasm"): PATH, $CUDA_HOME/bin, $CUDA_PATH/bin,
// /usr/local/cuda/bin, then `extra` (full paths).
std::optional<std::string> find_cuda_tool(const std::string& name, std::string& looked,
                                          const std::vector<std::string>& extra = {});

}  // namespace cudasync
