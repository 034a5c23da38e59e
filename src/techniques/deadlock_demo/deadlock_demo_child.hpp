#pragma once
// The barrier parts (divergent-syncthreads, syncwarp-mask) run in a child process: a hardware
// barrier has no deadline, and what it does when only part of a block (or warp) reaches it is
// undefined, so whatever it does happens to the child's CUDA context, never this one's. This binary,
// started by core (core/parts/child.hpp) as `deadlock-demo --child <part> --child-out FILE ...`,
// runs the kernels and its own health check and writes what it saw into FILE; the parent waits with
// a host timeout. The same child runs under `compute-sanitizer --tool synccheck` for --sanitize.
// Host-only code, no CUDA.
//
//   ok
//   case
//   threads 64
//   present 32
//   variant 0
//   deadline_ns 50000000
//   hung 0
//   watched_ms 51
//   arrive_ns 1520,1533,...
//   leave_ns 50001200,...
//   progress_ns -1,...,49990100
//   state 1,1,...,3
//   case
//   ...
//   health ok health_kernel<<<4, 256>>> ...      ("health fail ..." or "health none ..." when hung)
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/child_process.hpp"
#include "core/run_context.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"

namespace cudasync::deadlock_demo {

// `health` is the child's own check after its kernels; not run (ran == false) when one hung.
std::string format_observations(const std::vector<BarrierObservation>& cases, const Health& health);
std::string format_child_error(const std::string& message);  // "cuda_error <message>"

struct ChildOutcome {
  enum class Status { ok, cuda_error, timeout, no_answer };
  Status status = Status::no_answer;
  std::vector<BarrierObservation> seen;  // ok: one per case run, the last one possibly hung
  Health health;                         // ok: the child's health check after its kernels
  std::string message;      // cuda_error: the error; timeout / no_answer: what happened to the child
  double seconds = 0.0;     // the child's wall time, CUDA start-up included
};
const char* to_string(ChildOutcome::Status s);
// Reads the child's file into `out` (status ok or cuda_error); false when it is neither.
bool parse_child_output(const std::string& text, ChildOutcome& out);
ChildOutcome child_outcome(const ChildResult& r);

// How long the parent waits for a child: CUDA start-up, the deadline, and room for a slow machine.
std::chrono::milliseconds child_timeout(int deadline_ms, bool sanitized);
// How long past the deadline the child's own watchdog waits for a kernel before it calls it hung:
// the rescue takes microseconds (a kernel that is not hung ends within 0.01 ms of the deadline on
// the H100, the times in each case's table), so 150 ms leaves room for a GPU shared by other
// processes; under compute-sanitizer everything is slower.
inline constexpr int kChildGraceMs = 150;
inline constexpr int kSanitizedGraceMs = 5000;

// The lesson's options a barrier child gets (core adds the rest: parts::child_args):
// "--deadline-ms N --child-grace-ms G".
std::vector<std::string> barrier_child_options(int deadline_ms, bool sanitized);

// compute-sanitizer: on PATH, else under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda (bin/ and
// compute-sanitizer/). nullopt when none is found; `looked` then says where it looked.
std::optional<std::string> find_compute_sanitizer(std::string& looked);
// The command a student can type: "compute-sanitizer --tool synccheck cudasync deadlock-demo --child ..."
std::string synccheck_command_text();

// The divergent-syncthreads child under synccheck: its output (the sanitizer's log) and exit.
struct SanitizerRun {
  bool found = false;
  std::string tool;       // the compute-sanitizer that ran
  std::string looked;     // where it looked, when not found
  std::string command;    // what was run
  ChildResult result;     // exit status of compute-sanitizer
  std::string log;        // its report (--log-file)
  std::string summary;    // its "ERROR SUMMARY: N errors" line, "" if none
};

// Starts the sanitizer run of the divergent-syncthreads child; finish() waits for it. Starting
// throws std::runtime_error when the process cannot be started.
class SanitizerChild {
 public:
  SanitizerChild(const std::string& sanitizer, const RunContext& ctx, int deadline_ms);
  ~SanitizerChild();
  SanitizerChild(const SanitizerChild&) = delete;
  SanitizerChild& operator=(const SanitizerChild&) = delete;
  SanitizerRun finish();

 private:
  std::string tool_, command_, log_path_;
  std::unique_ptr<ChildProcess> child_;
};

}  // namespace cudasync::deadlock_demo
