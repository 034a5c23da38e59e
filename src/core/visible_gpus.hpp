#pragma once
// CUDA starts every GPU a process can see when it first runs (cuInit): on the H100 machine 130 ms
// for one GPU and 335 ms for two (bench/cuda_startup.cu, docs/measurements.md). A process that uses
// one GPU therefore sees only that one, through CUDA_VISIBLE_DEVICES, set before its first CUDA call.
//
//   visible_device_entry(1, nullptr)       -> "1"   (unset: GPUs are numbered as the runtime does)
//   visible_device_entry(1, "3,GPU-8a2f")  -> "GPU-8a2f"
//   visible_device_entry(2, "3,1")         -> nullopt (no such entry: leave the variable alone)
#include <optional>
#include <string>

namespace cudasync {

// The CUDA_VISIBLE_DEVICES entry that names the GPU this process numbers `index`, given the
// variable's value (nullptr: unset).
std::optional<std::string> visible_device_entry(int index, const char* cuda_visible_devices);

// "CUDA_VISIBLE_DEVICES=<entry>" for a child process that uses GPU `index` of this one (it then
// knows that GPU as 0), or nullopt where the entry cannot be named.
std::optional<std::string> child_visible_devices(int index);

}  // namespace cudasync
