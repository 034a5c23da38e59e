#pragma once
// A student's __device__ function, compiled at run time with NVRTC and run on the GPU: the engine of
// the "write your own kernel" exercises (core/course/kernel_exercise.hpp). The lesson gives the
// harness, a __global__ function that calls the student's function; the tool compiles the two as one
// program whose first lines are the student's file, so the compiler's messages keep the student's
// file name and line numbers:
//
//   #line 1 "my_warp_sum.cu"
//   <the student's file>
//   #line 1 "cudasync-harness"
//   extern "C" __global__ void cudasync_exercise(const int* in, int* out) { ... }
//
// The kernel runs in a child process (this binary: `cudasync exercise --child kernel ...`) under a
// host-side deadline: a function that never returns (a spin, a __syncthreads() that not every
// thread reaches) cannot stop the GPU in the process the student is waiting on; the parent ends the
// child and says so, as deadlock-demo does with its hung kernels.
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/gpu_entry.hpp"
#include "core/run_context.hpp"

namespace cudasync::course {

inline constexpr const char* kHarnessName = "cudasync-harness";
inline constexpr const char* kHarnessEntry = "cudasync_exercise";

// One launch of the harness: cudasync_exercise<<<grid, block>>>(in, out, scratch, delays), with one
// int in and one out per thread, `scratch` ints zeroed before it, and two delays per warp (ns before
// and after the student's code: cudasync_pause, the prelude).
struct KernelLaunch {
  int grid = 1;
  int block = 32;
  std::vector<std::int32_t> in;      // grid x block values
  std::vector<std::int32_t> delays;  // 2 x grid x warps-per-block; empty: none
};

// What the child is asked to do: compile `source` and run every launch.
struct StudentKernel {
  std::string file;    // the student's file name as typed: the name in the compiler's messages
  std::string source;  // the whole program (program_source below)
  std::vector<KernelLaunch> runs;
  int scratch = 1;  // ints of global scratch per launch
  // The launches the PTX model runs too (indices into runs), and over how many GPUs it spreads a
  // grid's blocks (.gpu scope then reaches only the blocks of one).
  std::vector<int> model_runs;
  int model_gpus = 1;
  // A kernel that loads L2 and memory runs beside every GPU launch (core/cuda/memory_stress.hpp).
  bool memory_stress = false;
  // Only compile, for `arch`, and run the PTX model: what a run without a GPU can still tell a
  // student (NVRTC needs no driver).
  bool compile_only = false;
  std::string arch;  // "sm_90"; empty: the run's GPU
};

// The architecture a run without a GPU compiles for: the course's GPU, the H100.
inline constexpr const char* kCompileOnlyArch = "sm_90";

struct StudentKernelResult {
  enum class Status {
    ran,            // `outs` holds what every thread returned, run by run
    compiled,       // compile_only: it compiles, and the PTX model could not run it (`log` says why)
    model_finding,  // the PTX model found a race, a deadlock... (`finding`, `log`): without a GPU any
                    // finding; with one a hang (deadlock, barrier-divergence, step-limit), which the
                    // GPU is then not asked to repeat
    compile_error,  // `log` holds the compiler's messages
    timeout,        // the kernel did not return before the deadline: the child was ended
    failed,         // the launch or the child failed: `log` says how (an illegal address, a trap...)
  };
  Status status = Status::failed;
  std::string log;
  // ran: one per launch on the GPU; without a GPU, one per model run (on_model).
  std::vector<std::vector<std::int32_t>> outs;
  bool on_model = false;
  // The PTX model's finding, with or without a GPU (with one, the GPU runs as well): its kind
  // (data-race, deadlock...), what it says, and the launch it was found in (an index into runs).
  std::string finding;
  std::string finding_log;
  int finding_run = -1;
  // With a GPU: why the PTX model did not run the program (an instruction it lacks), or "".
  std::string model_skipped;
  int model_schedules = 0;  // schedules the model tried, over every model run
  // With a GPU: the PTX model's outputs of the model runs (one per StudentKernel::model_runs), when it
  // ran them clean, to set beside the GPU's.
  std::vector<std::vector<std::int32_t>> model_outs;
  int failed_run = -1;      // failed: the launch that failed
};

// The program NVRTC compiles: the student's text under its own name, then the harness.
std::string program_source(const std::string& file, const std::string& student, const std::string& harness);

// The student's file, read whole. Throws UsageError naming --kernel when it cannot be read, is
// empty, is not text, or is larger than 256 KiB (a __device__ function is a few lines).
std::string read_student_file(const std::string& path);

// Parent side: runs `k` in a child process on the run's GPU, ended after `deadline`. Without a GPU
// the child compiles it for kCompileOnlyArch and runs its PTX on the PTX model (core/ptx) under
// schedules that hunt for races: a compile error is returned as on a GPU, a finding as
// model_finding, a clean run as `ran` with the model's output. Throws WaivedError without NVRTC,
// naming what to install, and where the model cannot run the program (an instruction it lacks).
StudentKernelResult run_student_kernel(const RunContext& ctx, const StudentKernel& k,
                                       std::chrono::milliseconds deadline);

// With a GPU and compute-sanitizer: `k` run again in a child under the sanitizer's `tool`
// (racecheck, synccheck, memcheck), its report read back. The student's program is compiled with
// -lineinfo, so a report names the student's file and line.
struct SanitizerOutcome {
  std::string tool;
  bool ran = false;        // the sanitizer ran to its summary
  int errors = 0;          // its "ERROR SUMMARY: N errors"
  std::string first;       // the first report line naming the student's file, else the first error line
  std::string why_not;     // why it did not run to its summary (a timeout, a start that failed)
};
SanitizerOutcome sanitize_student_kernel(const RunContext& ctx, const StudentKernel& k, const std::string& sanitizer,
                                         const std::string& tool, std::chrono::milliseconds deadline);

// Child side (`cudasync exercise --child kernel --kernel-request FILE --child-out OUT`): reads the
// request, compiles and runs it on the run's GPU, and returns the answer the parent reads.
std::string student_kernel_child(const RunContext& ctx, const std::string& request_path);

// The request and the answer as text (JSON), for the two sides and the tests.
std::string request_text(const StudentKernel& k);
StudentKernel parse_request(const std::string& text);  // UsageError for a malformed request
std::string answer_text(const StudentKernelResult& r);
StudentKernelResult parse_answer(const std::string& text);  // Status::failed for a malformed answer

// NVRTC, loaded with dlopen (the binary does not link it): compiles `source` for `arch` ("sm_90").
struct NvrtcOutput {
  bool ok = false;
  std::string log;    // the compiler's messages
  std::string cubin;  // the machine code, when ok
  std::string ptx;    // the PTX it was made from, with .loc line information, when ok
};
// Empty when NVRTC can be loaded, else why not ("libnvrtc.so.13 cannot be loaded: ...").
CUDASYNC_GPU_ENTRY(std::string, nvrtc_missing, ())
CUDASYNC_GPU_ENTRY(NvrtcOutput, nvrtc_compile, (const std::string& source, const std::string& name,
                                                const std::string& arch))
// Loads `cubin` on GPU `device`, launches kHarnessEntry once per launch, its scratch zeroed before
// each (with `memory_stress`, the stress kernel running beside each), and returns each launch's out. Throws KernelLaunchError when a launch fails (a trap, an
// illegal address), naming it.
struct KernelLaunchError : std::runtime_error {
  KernelLaunchError(int launch, const std::string& what) : std::runtime_error(what), run(launch) {}
  int run;
};
CUDASYNC_GPU_ENTRY(std::vector<std::vector<std::int32_t>>, gpu_run_cubin,
                   (const std::string& cubin, const std::vector<KernelLaunch>& runs, int scratch, bool memory_stress,
                    int device))

}  // namespace cudasync::course
