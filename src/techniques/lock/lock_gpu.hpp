#pragma once
// The GPU side of the lock lesson: each function launches kernels, copies back what they recorded,
// and returns the plain structs of lock.hpp. Every spin in every kernel goes through spin_until
// (core/cuda/deadline.cuh): a thread that waits longer than its deadline gives up, and the run
// says which blocks were stuck.
#include <vector>

#include "core/gpu_entry.hpp"
#include "techniques/lock/lock.hpp"

namespace cudasync::lock {

// Launches `spec` `reps` times (after one warm-up launch when `warmup`), the counter and the lock
// reset before each; one LockRun per launch, each timed with events.
CUDASYNC_GPU_ENTRY(std::vector<LockRun>, gpu_runs, (const RunSpec& spec, int reps, bool warmup))

// Part copy-destructor, the child process only: the blog's CudaKernelLock passed by value to two
// launches of `blocks` x 1 threads, `iters` acquisitions each, exactly as the blog's callKernel()
// does. What its destructor and CUDA did, step by step. Faults are expected here: never call it
// in the parent.
CUDASYNC_GPU_ENTRY(CopyObservation, gpu_copy_bug, (int blocks, int iters, unsigned long long deadline_ns))

// Part copy-destructor, in this process: the blog's fixes 1 and 3 (the object copied to the device;
// shared_ptr with cudaFree as its deleter) and an owner with its copy deleted, each launched twice.
CUDASYNC_GPU_ENTRY(std::vector<FixRun>, gpu_copy_fixes, (int blocks, int iters, unsigned long long deadline_ns))

// Part shared-mutex: the blog's fix 2, a Mutex class held by std::shared_ptr in CudaKernelLock,
// passed by value to two launches and then, the original destroyed, a copy to a third.
CUDASYNC_GPU_ENTRY(SharedMutexRun, gpu_shared_mutex, (int blocks, int iters, unsigned long long deadline_ns))

}  // namespace cudasync::lock
