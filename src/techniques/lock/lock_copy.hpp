#pragma once
// Part copy-destructor runs the blog's by-value lock in a child process (core/parts/child.hpp): this
// binary, started as `lock --child copy --child-out FILE`, runs gpu_copy_bug() and writes what it
// saw into FILE in the text form below; the parent reads it back. A freed mutex can fault the GPU,
// and a fault makes a CUDA context unusable: it must be the child's, never the parent's. Host-only
// code, no CUDA.
//
//   step<TAB>launch 1: ...<TAB>cudaSuccess<TAB>~CudaKernelLock() ran 2 times ...
//   destructor_calls 3
//   frees_ok 1
//   ...
//   end
#include <string>

#include "core/child_process.hpp"
#include "techniques/lock/lock.hpp"

namespace cudasync::lock {

// The grid of the child's two launches: small, so the child is quick.
inline constexpr int kCopyBlocks = 32;
inline constexpr int kCopyIters = 10;
inline constexpr unsigned long long kCopyDeadlineNs = 100000000ull;  // 100 ms per spin

std::string format_copy_observation(const CopyObservation& o);
std::string format_copy_error(const std::string& message);  // "cuda_error <message>"

struct CopyOutcome {
  enum class Status { ok, cuda_error, no_answer };
  Status status = Status::no_answer;
  CopyObservation seen;  // ok
  std::string message;   // cuda_error: the error; no_answer: what happened to the child
  double seconds = 0.0;  // the child's wall time, CUDA start-up included
};
// Reads the child's file; false when it is neither an observation nor a CUDA error line.
bool parse_copy_output(const std::string& text, CopyOutcome& out);
// What the parent makes of a finished child.
CopyOutcome copy_outcome(const ChildResult& r);

}  // namespace cudasync::lock
