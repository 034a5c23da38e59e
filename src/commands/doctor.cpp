#include "commands/doctor.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "commands/doctor_report.hpp"
#include "core/course/student_kernel.hpp"
#include "core/errors.hpp"
#include "core/kernel_listing.hpp"
#include "core/nvidia_driver.hpp"
#include "core/report/md4c_library.hpp"
#include "core/version.hpp"

namespace cudasync::commands {

namespace {

// A CUDA tool: on PATH, else in $CUDA_HOME/bin, $CUDA_PATH/bin or /usr/local/cuda/bin.
std::optional<std::string> find_tool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');) dirs.push_back(dir.empty() ? "." : dir);
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const auto& d : dirs) {
    const std::string candidate = d + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

// The first of `names` that this process can load. The library stays loaded: unloading it would
// orphan what its initialisers allocated (libnvrtc's exception pool), which LeakSanitizer then
// reports as a leak, and doctor's process ends soon anyway.
std::optional<std::string> loadable(const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (dlopen(n.c_str(), RTLD_LAZY | RTLD_LOCAL) != nullptr) return n;
  return std::nullopt;
}

DoctorFacts gather(const RunContext& ctx) {
  DoctorFacts f;
  f.cuda_built_in = kCudaBuiltIn;
  f.toolkit_version = kCudaToolkitVersion;
  f.cuda_architectures = kCudaArchitectures;
  f.driver_found = libcuda_loadable();
  f.driver_release = driver_release();
  f.probe = ctx.gpus();
  const KernelListing& listing = kernel_listing();
  f.listing_embedded = listing.available;
  f.listing_reason = listing.reason();
  f.cuobjdump = find_tool("cuobjdump");
  f.nvdisasm = find_tool("nvdisasm");
  f.compute_sanitizer = find_tool("compute-sanitizer");
  // NVRTC as the kernel exercises load it (core/course/student_kernel.hpp): the same names, the
  // toolkit's own copy last. A model-only binary compiles no kernel, so it looks for none.
  if (f.cuda_built_in) {
    const std::string toolkit = kCudaToolkitVersion;
    f.nvrtc_missing = course::nvrtc_missing();
    if (f.nvrtc_missing.empty()) f.nvrtc = "libnvrtc.so." + toolkit.substr(0, toolkit.find('.'));
  } else {
    f.nvrtc_missing = "not used: a model-only binary compiles no kernel";
  }
  // NCCL as multi-gpu loads it (its soname, then the file CMake found), else the usual names.
  std::vector<std::string> nccl_names;
  for (const char* n : {kNcclSoname, kNcclLibrary})
    if (*n) nccl_names.emplace_back(n);
  for (const char* n : {"libnccl.so.2", "libnccl.so"}) nccl_names.emplace_back(n);
  f.nccl = loadable(nccl_names);
  f.nccl_built_in = kNcclBuiltIn;
  f.md4c = report::md4c_parse() != nullptr && report::md4c_html() != nullptr;
  for (const auto& c : ctx.commands)
    if (c.is_lesson) {
      f.lessons.push_back(c.name);
      if (!c.kernel_exercises.empty()) f.kernel_exercises.emplace_back(c.name, c.kernel_exercises);
      for (const auto& [need, part] : c.needs) f.lesson_needs.push_back({c.name, need, part});
    }
  return f;
}

}  // namespace

cli::Runner attach_doctor(CLI::App&) {
  return [](const RunContext& ctx) {
    const DoctorFacts f = gather(ctx);
    if (ctx.backend_request == BackendRequest::gpu && !gpu_usable(f))
      throw NoGpuError("doctor: --backend gpu, but the lessons run on " + lessons_run_on(f) +
                       "; `cudasync doctor` without --backend gpu shows what is missing");
    return doctor_report(f);
  };
}

}  // namespace cudasync::commands
