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

// ---- one deadline for a whole grid -----------------------------------------------------------
// A relative budget restarts for every spinner: when a grid has more blocks than fit on the GPU,
// the blocks that start only after the first wave gave up would each wait a full budget again,
// wave after wave. A grid that shares one absolute end time instead ends within one budget of its
// first block's start, and a block that starts after the end can tell at once that it came late.
//
//   __shared__ unsigned long long end;
//   if (threadIdx.x == 0) end = grid_start_ns(start_slot) + budget_ns;   // start_slot zeroed by the host
//   __syncthreads();
//   if (past(end)) { record "started after the deadline"; return; }
//   if (!spin_until(ready, AbsoluteDeadline{end, flag})) { record who was stuck; return; }

// The start time of the grid: the first caller publishes its %globaltimer in *slot (which the host
// zeroed before the launch), every later caller gets that same value back.
__device__ __forceinline__ unsigned long long grid_start_ns(unsigned long long* slot) {
  const unsigned long long now = globaltimer_ns();
  const unsigned long long seen = atomicCAS(slot, 0ull, now);
  return seen == 0ull ? now : seen;
}

__device__ __forceinline__ bool past(unsigned long long end_ns) { return globaltimer_ns() > end_ns; }

struct AbsoluteDeadline {
  unsigned long long end_ns;  // %globaltimer value after which every spinner gives up
  unsigned int* timed_out;    // device flag: set to 1 by any spinner that gave up
};

// Spins until ready() is true (returns true) or %globaltimer has passed end_ns (sets *timed_out,
// returns false). ready() is asked at least once, so a condition already true at a late start
// still counts as ready.
template <typename Ready>
__device__ bool spin_until(Ready ready, const AbsoluteDeadline& d) {
  while (!ready()) {
    if (past(d.end_ns)) {
      atomicExch(d.timed_out, 1u);
      return false;
    }
  }
  return true;
}

}  // namespace cudasync::cuda
