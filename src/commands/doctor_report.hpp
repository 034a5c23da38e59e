#pragma once
// `cudasync doctor` as a pure function: what a machine has (DoctorFacts, gathered by doctor.cpp)
// becomes the report: each piece the lessons use, whether it is here, which lessons need it and
// what to install when it is missing; then lesson by lesson, where it runs and what it lacks.
// Tests feed it made-up machines (no driver, an old driver, an H100, a model-only build).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/device_info.hpp"
#include "core/report/report.hpp"

namespace cudasync::commands {

// The CUDA toolkit this source needs to build its GPU backend, and that the README states.
inline constexpr const char* kMinimumToolkit = "13.0";

struct DoctorFacts {
  bool cuda_built_in = false;
  std::string toolkit_version;     // the nvcc that built this binary ("13.0.88"); "" model-only
  std::string cuda_architectures;  // CMAKE_CUDA_ARCHITECTURES of this build ("75-real;...;90-virtual")
  bool driver_found = false;       // libcuda.so.1 loads
  std::string driver_release;      // "580.65.06" (/proc/driver/nvidia/version); "" unknown
  GpuProbe probe;                  // driver and runtime versions, the GPUs, why none
  bool listing_embedded = false;   // the PTX/SASS of the lessons' kernels, read at build time
  std::string listing_reason;      // why not
  std::optional<std::string> cuobjdump, nvdisasm, compute_sanitizer;  // where each was found
  std::optional<std::string> nvrtc, nccl;                             // the library that loaded
  std::string nvrtc_missing;       // why NVRTC is not here ("libnvrtc.so.13 cannot be loaded (tried ...)")
  bool nccl_built_in = false;      // multi-gpu's NCCL rows are in this build (nccl.h found; loaded with dlopen)
  bool md4c = false;                 // libmd4c.so.0 and libmd4c-html.so.0 load (explain renders)
  std::vector<std::string> lessons;  // this build's lessons, in course order
  // Each lesson's write-your-own-kernel exercises (by number): compiled at run time with NVRTC.
  std::vector<std::pair<std::string, std::vector<int>>> kernel_exercises;
  // Each lesson's needs, from its manifest: {"cg-reduce", "cooperative-launch", "the grid.sync() rung"}.
  struct LessonNeed {
    std::string lesson, need, part;
  };
  std::vector<LessonNeed> lesson_needs;
};

// The code this build carries for a GPU of `compute_capability` (90 for 9.0), from CMake's
// architecture list: "sm_90 SASS", "sm_80 SASS (binary compatible)", "compute_90 PTX, compiled by
// the driver", or "" when it has none (the kernels cannot run there).
std::string gpu_code_for(int compute_capability, const std::string& cuda_architectures);

// The lessons run on the GPU: a CUDA build, a driver new enough, a GPU with code for it.
bool gpu_usable(const DoctorFacts& f);

// "the GPU (GPU 0, NVIDIA H100 80GB HBM3, cc 9.0), ..." or "the CPU reference model (why)".
std::string lessons_run_on(const DoctorFacts& f);

// Sections "summary", "machine" (table "pieces") and "lessons" (table "lessons").
report::Report doctor_report(const DoctorFacts& f);

}  // namespace cudasync::commands
