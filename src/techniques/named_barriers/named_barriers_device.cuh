#pragma once
// The device helpers of the named-barriers kernels (named_barriers_kernels.cu,
// named_barriers_misuse_kernels.cu).
//
// The barrier instructions are inline PTX, exactly as the PTX ISA writes them ("bar, barrier"):
//   bar.sync a, b      wait until b threads (whole warps) have arrived at barrier a
//   bar.arrive a, b    count this warp's arrival at barrier a and go on without waiting
//   bar.red.popc.u32 / bar.red.and.pred / bar.red.or.pred   wait, and reduce a predicate
// Every one of them takes a "memory" clobber, so the compiler keeps shared-memory accesses on
// their side of the barrier. Every warp reconverges (__syncwarp) before a bar instruction, so that
// the whole warp executes it together. bar.sync is barrier.sync.aligned, and the PTX ISA states
// .aligned for the whole CTA (every thread executes the same barrier instruction); its own
// producer/consumer example has different warps execute different bar instructions, as these
// kernels do, each warp as a whole.
#include "core/cuda/deadline.cuh"
#include "techniques/named_barriers/named_barriers.hpp"

namespace cudasync::named_barriers {

using cuda::globaltimer_ns;

__device__ __forceinline__ void bar_sync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned id, unsigned count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ int bar_red_popc(unsigned id, int predicate) {
  int d;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; bar.red.popc.u32 %0, %1, p; }"
               : "=r"(d) : "r"(id), "r"(predicate) : "memory");
  return d;
}
__device__ __forceinline__ int bar_red_and(unsigned id, int predicate) {
  int d;
  asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %2, 0; bar.red.and.pred q, %1, p; selp.s32 %0, 1, 0, q; }"
               : "=r"(d) : "r"(id), "r"(predicate) : "memory");
  return d;
}
__device__ __forceinline__ int bar_red_or(unsigned id, int predicate) {
  int d;
  asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %2, 0; bar.red.or.pred q, %1, p; selp.s32 %0, 1, 0, q; }"
               : "=r"(d) : "r"(id), "r"(predicate) : "memory");
  return d;
}

// clock64 as a volatile asm, so it stays where it is written relative to the bar instructions.
__device__ __forceinline__ long long stamp() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
// Work of a fixed length: spins on the SM clock (bounded by the clock, waits for nobody).
__device__ __forceinline__ void work(long long cycles) {
  const long long s = stamp();
  while (stamp() - s < cycles) {
  }
}
// A stamp taken right after bar.sync is not a release time: the SASS form is
// BAR.SYNC.DEFER_BLOCKING, and the warp goes on issuing instructions that touch no memory (a clock
// read among them) until its next memory access, which waits for the barrier (the PTX ISA
// promises only that no new memory access is made before the barrier completes). So lane 0 first
// reads and writes a word of its own in shared memory, then takes the stamp: a warp issues in
// order, the store needs the load's value, and the load waits for the barrier.
__device__ __forceinline__ long long stamp_after_barrier(volatile int* own_word) {
  *own_word = *own_word + 1;
  return stamp();
}
// The same for a value loaded from global memory: the store needs it, so the stamp comes after it.
__device__ __forceinline__ long long stamp_after_value(volatile int* own_word, int v) {
  *own_word = v;
  return stamp();
}

// Lane 0's four stamps of one producer/consumer round (layout in named_barriers.hpp).
__device__ __forceinline__ void store_stamps(long long* round, long long t0, long long t1, long long t2, long long t3) {
  round[0] = t0;
  round[1] = t1;
  round[2] = t2;
  round[3] = t3;
}
// How the SM clock ran against %globaltimer since (g0 ns, c0 cycles): calib[0] ns, calib[1] cycles.
__device__ __forceinline__ void store_calibration(long long* calib, long long g0, long long c0) {
  calib[0] = static_cast<long long>(globaltimer_ns()) - g0;
  calib[1] = stamp() - c0;
}

}  // namespace cudasync::named_barriers
