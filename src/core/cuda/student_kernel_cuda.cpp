// The GPU half of core/course/student_kernel.hpp: NVRTC loaded with dlopen (the binary links only
// the C++ runtime, tests/package), the machine code loaded and launched through the runtime's
// library API (cudaLibraryLoadData, cudaLibraryGetKernel: CUDA 12.0 and later), so no driver API
// call is needed either.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <nvrtc.h>

#include <string>
#include <vector>

#include "core/course/student_kernel.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/memory_stress.hpp"

#ifndef CUDASYNC_NVRTC_FALLBACK
#define CUDASYNC_NVRTC_FALLBACK ""
#endif
#ifndef CUDASYNC_CUDA_INCLUDE_DIR
#define CUDASYNC_CUDA_INCLUDE_DIR ""
#endif

namespace cudasync::course {

namespace {

// NVRTC's entry points, resolved once.
struct Nvrtc {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetPTXSize) ptx_size = nullptr;
  decltype(&nvrtcGetPTX) ptx = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  std::string missing;  // why it could not be loaded; empty when it could
};

template <typename F>
void resolve(void* lib, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (f == nullptr && missing.empty()) missing = std::string("no symbol ") + name + " in libnvrtc";
}

const Nvrtc& nvrtc() {
  static const Nvrtc n = [] {
    Nvrtc r;
    const std::string soname = "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000);
    void* lib = nullptr;
    std::string tried;
    // CUDASYNC_NVRTC names the one library to load (NVRTC installed somewhere the loader does not
    // look); otherwise the soname, the unversioned name, and the toolkit's own copy found at build time.
    std::vector<std::string> names = {soname, "libnvrtc.so", CUDASYNC_NVRTC_FALLBACK};
    if (const char* given = std::getenv("CUDASYNC_NVRTC"); given != nullptr && *given != '\0') names = {given};
    for (const std::string& name : names) {
      if (name.empty()) continue;
      if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
      tried += (tried.empty() ? "" : ", ") + name;
    }
    if (lib == nullptr) {
      r.missing = soname + " cannot be loaded (tried " + tried + ")";
      return r;
    }
    resolve(lib, "nvrtcCreateProgram", r.create, r.missing);
    resolve(lib, "nvrtcCompileProgram", r.compile, r.missing);
    resolve(lib, "nvrtcGetProgramLogSize", r.log_size, r.missing);
    resolve(lib, "nvrtcGetProgramLog", r.log, r.missing);
    resolve(lib, "nvrtcGetCUBINSize", r.cubin_size, r.missing);
    resolve(lib, "nvrtcGetCUBIN", r.cubin, r.missing);
    resolve(lib, "nvrtcGetPTXSize", r.ptx_size, r.missing);
    resolve(lib, "nvrtcGetPTX", r.ptx, r.missing);
    resolve(lib, "nvrtcDestroyProgram", r.destroy, r.missing);
    resolve(lib, "nvrtcGetErrorString", r.error_string, r.missing);
    return r;
  }();
  return n;
}

std::string program_log(const Nvrtc& n, nvrtcProgram p) {
  std::size_t size = 0;
  if (n.log_size(p, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (n.log(p, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::string nvrtc_missing() { return nvrtc().missing; }

NvrtcOutput nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  const Nvrtc& n = nvrtc();
  NvrtcOutput out;
  if (!n.missing.empty()) {
    out.log = n.missing;
    return out;
  }
  nvrtcProgram p = nullptr;
  if (const nvrtcResult e = n.create(&p, source.c_str(), name.c_str(), 0, nullptr, nullptr); e != NVRTC_SUCCESS) {
    out.log = std::string("nvrtcCreateProgram: ") + n.error_string(e);
    return out;
  }
  // Cooperative groups and cuda:: headers come from the toolkit the binary was built with, where
  // it is still there; the intrinsics (__shfl_xor_sync...) are built into NVRTC.
  // -lineinfo: the PTX's .loc lines name the student's file and lines (the PTX model reports by them).
  std::vector<std::string> options{"--gpu-architecture=" + arch, "-std=c++17", "-lineinfo"};
  if (std::string(CUDASYNC_CUDA_INCLUDE_DIR).size() > 0) {
    options.push_back("-I" CUDASYNC_CUDA_INCLUDE_DIR);
    // CUDA 13 keeps libcu++ (<cuda/atomic>, cuda::atomic_ref) under include/cccl.
    std::error_code ec;
    if (std::filesystem::is_directory(CUDASYNC_CUDA_INCLUDE_DIR "/cccl", ec))
      options.push_back("-I" CUDASYNC_CUDA_INCLUDE_DIR "/cccl");
  }
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const nvrtcResult compiled = n.compile(p, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(n, p);
  if (compiled == NVRTC_SUCCESS) {
    std::size_t size = 0;
    if (n.cubin_size(p, &size) == NVRTC_SUCCESS && size > 0) {
      out.cubin.assign(size, '\0');
      out.ok = n.cubin(p, out.cubin.data()) == NVRTC_SUCCESS;
    }
    if (!out.ok) out.log += (out.log.empty() ? "" : "\n") + std::string("NVRTC gave no machine code for ") + arch;
    std::size_t ptx_size = 0;
    if (n.ptx_size(p, &ptx_size) == NVRTC_SUCCESS && ptx_size > 1) {
      out.ptx.assign(ptx_size, '\0');
      if (n.ptx(p, out.ptx.data()) != NVRTC_SUCCESS) out.ptx.clear();
      while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
    }
  } else if (out.log.empty()) {
    out.log = std::string("nvrtcCompileProgram: ") + n.error_string(compiled);
  }
  n.destroy(&p);
  return out;
}

std::vector<std::vector<std::int32_t>> gpu_run_cubin(const std::string& cubin, const std::vector<KernelLaunch>& runs,
                                                     int scratch, bool memory_stress, int device) {
  CUDA_CHECK(cudaSetDevice(device));
  cudaLibrary_t lib = nullptr;
  CUDA_CHECK(cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  std::vector<std::vector<std::int32_t>> outs;
  int at = 0;
  try {
    cudaKernel_t kernel = nullptr;
    CUDA_CHECK(cudaLibraryGetKernel(&kernel, lib, kHarnessEntry));
    cuda::DeviceBuffer<std::int32_t> d_scratch(static_cast<std::size_t>(scratch));
    std::optional<cuda::MemoryStress> stress;
    if (memory_stress) stress.emplace();
    for (const KernelLaunch& run : runs) {
      const std::size_t delay_count = 2 * static_cast<std::size_t>(run.grid) * static_cast<std::size_t>((run.block + 31) / 32);
      std::vector<std::int32_t> delays = run.delays;
      delays.resize(delay_count, 0);
      cuda::DeviceBuffer<std::int32_t> d_in(run.in.size()), d_out(run.in.size()), d_delays(delay_count);
      d_in.upload(run.in);
      d_out.fill_bytes(0);
      d_scratch.fill_bytes(0);
      d_delays.upload(delays);
      const std::int32_t* in_ptr = d_in.get();
      std::int32_t* out_ptr = d_out.get();
      std::int32_t* scratch_ptr = d_scratch.get();
      const std::int32_t* delays_ptr = d_delays.get();
      void* args[] = {&in_ptr, &out_ptr, &scratch_ptr, &delays_ptr};
      // The stress kernel first, on its own non-blocking stream, so that it is running when the
      // student's kernel starts on stream 0; it stops when the student's kernel has ended.
      CUDA_CHECK(cudaDeviceSynchronize());
      if (stress) stress->start();
      CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(run.grid)),
                                  dim3(static_cast<unsigned>(run.block)), args, 0, nullptr));
      CUDA_CHECK(cudaStreamSynchronize(nullptr));
      if (stress) stress->stop();
      outs.push_back(d_out.download());
      ++at;
    }
  } catch (const std::exception& e) {
    CUDA_CHECK_NOTHROW(cudaLibraryUnload(lib));
    // After a trap the context is lost: the launches after it cannot run in this process.
    throw KernelLaunchError(at, e.what());
  }
  CUDA_CHECK(cudaLibraryUnload(lib));
  return outs;
}

}  // namespace cudasync::course
