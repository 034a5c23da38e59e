#pragma once
// The NVIDIA driver as cudasync needs it: is libcuda.so.1 there, which release is loaded, and is
// it new enough for the CUDA runtime linked into this binary. Host-only code (no CUDA headers), so
// the model-only build and `cudasync doctor` can ask too.
//
// Minimum driver: CUDA 11 and later use minor version compatibility; a runtime of CUDA major M
// runs on any driver of the major release family that supports CUDA M.0 or newer. NVIDIA's
// "CUDA Compatibility" guide, Minor Version Compatibility, table 1: CUDA 13.x needs a driver
// >= 580, CUDA 12.x >= 525, CUDA 11.x >= 450 (Linux).
#include <optional>
#include <string>

#include "core/words/catalog.hpp"

namespace cudasync {

// libcuda.so.1 (the driver's user-mode library, loaded by the CUDA runtime at run time) can be
// loaded by this process.
bool libcuda_loadable();

// The loaded kernel module's release ("580.65.06") from /proc/driver/nvidia/version; "" when the
// file is absent (no driver, or not Linux).
std::string driver_release();
// The release in the text of /proc/driver/nvidia/version; "" when it has none.
std::string parse_driver_release(const std::string& proc_version_text);

// The oldest driver branch for a runtime version (13000 -> "580"); "" when unknown.
std::string minimum_driver_branch(int runtime_version);
// The oldest driver's CUDA version for a runtime version (13020 -> 13000): minor version
// compatibility within the major release.
int minimum_driver_cuda(int runtime_version);
// The driver (its CUDA version, cudaDriverGetVersion) runs this runtime.
bool driver_new_enough(int driver_version, int runtime_version);

// "no NVIDIA driver found (libcuda.so.1 cannot be loaded)", in English and Chinese
words::Entry no_driver_message();
// "the NVIDIA driver supports CUDA 12.4, older than this cudasync's CUDA 13.0 runtime: it needs a
// driver for CUDA 13.0 or newer (R580 or newer)", in English and Chinese
words::Entry old_driver_message(int driver_version, int runtime_version);
// "CUDA 13.x: NVIDIA driver R580 or newer", in the run's language
std::string minimum_driver_text(int runtime_version);

}  // namespace cudasync
