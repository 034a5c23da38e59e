#pragma once
// Bounded spins. Every loop in a cudasync kernel that waits for another thread goes through
// spin_until(), which gives up after a budget measured on %globaltimer (nanoseconds, shared by all
// SMs), raises a flag the host reads after the kernel, and returns false. No lesson, under any
// option, can hang the terminal or the GPU (the pattern of nvbench's blocking_kernel).
//
//   SpinDeadline d{budget_ns, flag};
//   if (!spin_until([&] { return volatile_load(x) == 1; }, d)) { record who was stuck; return; }
#include <cuda_runtime.h>

namespace cudasync::cuda {

__device__ __forceinline__ unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct SpinDeadline {
  unsigned long long budget_ns;  // how long one spinner may wait, from its first check
  unsigned int* timed_out;       // device flag: set to 1 by any spinner that gave up
};

// Spins until ready() is true (returns true) or the budget has passed (sets *timed_out, returns
// false). The clock starts at the call, so every spinner waits at most budget_ns.
template <typename Ready>
__device__ bool spin_until(Ready ready, const SpinDeadline& d) {
  const unsigned long long start = globaltimer_ns();
  while (!ready()) {
    if (globaltimer_ns() - start > d.budget_ns) {
      atomicExch(d.timed_out, 1u);
      return false;
    }
  }
  return true;
}

}  // namespace cudasync::cuda
