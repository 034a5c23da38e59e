#pragma once
// Parts copy-destructor and shared-mutex: who frees the lock's mutex, and when. What the kernels
// (ownership.cu) and the host (ownership.cpp) share; nvcc compiles it too, so plain C++.
//
// copy-destructor runs the blog's by-value lock in a child process (core/parts/child.hpp): this
// binary, started as `lock --child copy --child-out FILE`, runs gpu_copy_bug() and writes what it
// saw into FILE in the text form below; the parent reads it back. A freed mutex can fault the GPU,
// and a fault makes a CUDA context unusable: it must be the child's, never the parent's.
//
//   step<TAB>launch 1: ...<TAB>cudaSuccess<TAB>~CudaKernelLock() ran 2 times ...
//   destructor_calls 3
//   frees_ok 1
//   ...
//   end
#include <string>
#include <vector>

#include "core/gpu_entry.hpp"

namespace cudasync {
struct ChildResult;
}

namespace cudasync::lock {

// The grid of the child's two launches: small, so the child is quick.
inline constexpr int kCopyBlocks = 32;
inline constexpr int kCopyIters = 10;
inline constexpr unsigned long long kCopyDeadlineNs = 100000000ull;  // 100 ms per spin

// One step of a run of the blog's callKernel(): what was called and what CUDA answered.
struct CopyStep {
  std::string what;     // "launch 1: GtThrCntKernel<<<132,1>>>(..., lock_)"
  std::string error;    // "cudaSuccess", "cudaErrorInvalidValue", ... ("" when no call)
  std::string detail;   // count, pointer type, destructor calls
};
struct CopyObservation {
  std::vector<CopyStep> steps;
  int destructor_calls = 0;   // ~CudaKernelLock() calls, all of them host-side
  int frees_ok = 0;           // cudaFree(mutex) calls that returned cudaSuccess
  int frees_failed = 0;       // and that failed (a pointer freed before)
  long long count1 = -1, count2 = -1, expected = 0;
  bool reused = false;        // the next cudaMalloc returned the freed mutex's address
  bool second_timed_out = false;
};

// A fix of the blog's, run twice in this process: count of each launch and cudaFree calls.
struct FixRun {
  std::string name;
  long long expected = 0;
  long long count1 = -1, count2 = -1;
  int frees = 0;          // cudaFree(mutex) calls
  int frees_failed = 0;
  int copies_made = 0;    // copy constructor calls the launches made (shared_ptr: use_count went up)
  bool ok() const { return count1 == expected && count2 == expected && frees == 1 && frees_failed == 0; }
};

// The blog's fix 2: its callKernel() with a Mutex (cudaMalloc in the constructor, cudaFree in the
// destructor) owned by a shared_ptr in every CudaKernelLock: two launches by value, then the
// original destroyed while a copy keeps the mutex and runs a third launch.
struct SharedMutexRun {
  std::vector<CopyStep> steps;
  long long expected = 0;        // per launch
  std::vector<long long> counts; // per launch (-1: not read)
  std::vector<int> copies;       // CudaKernelLock copies each launch statement made
  std::vector<bool> alive;       // after each launch: the mutex is still a device allocation
  long long use_count_max = 0;   // the most owners the shared_ptr had at once (seen on the host)
  int mutex_destructor_calls = 0;
  int frees_ok = 0, frees_failed = 0;
  int owners_at_free = -1;       // CudaKernelLock objects alive when ~Mutex ran (-1: it never ran)
  int gave_up = 0;               // blocks whose wait passed its deadline
};

// The child process only: the blog's CudaKernelLock passed by value to two launches of `blocks` x 1
// threads, `iters` acquisitions each, exactly as the blog's callKernel() does. Faults are expected
// here: never call it in the parent.
CUDASYNC_GPU_ENTRY(CopyObservation, gpu_copy_bug, (int blocks, int iters, unsigned long long deadline_ns))
// In this process: the blog's fixes 1 and 3 (the object copied to the device; shared_ptr with
// cudaFree as its deleter) and an owner with its copy deleted, each launched twice.
CUDASYNC_GPU_ENTRY(std::vector<FixRun>, gpu_copy_fixes, (int blocks, int iters, unsigned long long deadline_ns))
CUDASYNC_GPU_ENTRY(SharedMutexRun, gpu_shared_mutex, (int blocks, int iters, unsigned long long deadline_ns))

// The child's answer file, and what the parent makes of it.
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
CopyOutcome copy_outcome(const ChildResult& r);

// The reference model: the blog's callKernel() replayed in plain C++ on a pretend device heap that
// counts allocations and frees, with the two ways of holding the mutex: the blog's CudaKernelLock
// (a raw pointer, cudaFree in its destructor) and its fix 2 (a Mutex class owned by a
// std::shared_ptr in every copy of the lock).
//
// A launch statement copies a by-value argument into compiler-generated stubs "one or more times"
// and destroys those copies on the host as it returns, possibly before the kernel has finished
// (CUDA C++ Programming Guide, "__global__ Function Argument Processing"): the model makes
// `copies_per_launch` copies and destroys them when the launch returns, and counts a launch whose
// kernel may still be running when its mutex is freed. The copies and destructors are real C++
// (std::shared_ptr's own use count decides when the Mutex goes); only the heap is pretend.
enum class Holding { by_value, shared_mutex };
const char* holding_name(Holding h);  // "the blog's CudaKernelLock, by value", ...

struct OwnershipConfig {
  Holding holding = Holding::by_value;
  int launches = 2;           // by value, as callKernel() does
  int copies_per_launch = 1;  // what one launch statement copies (the CUDA guide: one or more)
  // shared_mutex: then a copy outlives the original: the original is destroyed and the copy runs
  // one more launch before it goes too
  bool copy_outlives = true;
};

struct OwnershipRun {
  OwnershipConfig config;
  std::vector<std::string> steps;  // "launch 1: 1 copy made and destroyed, use_count 1, mutex alive"
  int launches = 0;
  int destructor_calls = 0;   // of the object that frees (CudaKernelLock by value, Mutex when shared)
  int frees = 0;              // cudaFree calls on the mutex
  int frees_of_freed = 0;     // of them, on a pointer already freed (cudaErrorInvalidValue)
  int launches_on_freed = 0;  // launches whose mutex was freed before their kernel could finish
  long long use_count_max = 0;  // shared_mutex: the most owners at once
  bool freed_at_end = false;  // the mutex is freed once every lock object is gone
  // What the fix must give: one free, of a live pointer, and no kernel ever on a freed mutex.
  bool frees_once() const { return frees == 1 && frees_of_freed == 0 && launches_on_freed == 0 && freed_at_end; }
};

OwnershipRun replay(const OwnershipConfig& c);

}  // namespace cudasync::lock
