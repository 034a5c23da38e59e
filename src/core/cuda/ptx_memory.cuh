#pragma once
// The PTX memory-model operations at GPU scope (PTX ISA, "Memory Consistency Model"; sm_70+) that
// the grid barriers and the cost probes spell out exactly, one inline-asm instruction each, so that
// the compiler can neither merge, move nor cache them. What nvcc 13.0 makes of them on sm_90
// (docs/measurements.md):
//   ld_relaxed_gpu   LDG.E.STRONG.GPU                       (not served by the L1)
//   ld_acquire_gpu   LDG.E.STRONG.GPU, CCTL.IVALL           (the L1 dropped after the load)
//   ld_volatile      LDG.E.STRONG.SYS
//   red_release_gpu  MEMBAR.ALL.GPU, ..., REDG.E.ADD.STRONG.GPU
//   fence_acquire    CCTL.IVALL
#include <cuda_runtime.h>

namespace cudasync::cuda {

__device__ __forceinline__ unsigned ld_relaxed_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) { return *reinterpret_cast<const volatile unsigned*>(p); }
__device__ __forceinline__ void st_volatile(unsigned* p, unsigned v) { *reinterpret_cast<volatile unsigned*>(p) = v; }
__device__ __forceinline__ void st_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release_gpu(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void red_release_gpu_add(unsigned* p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void red_relaxed_gpu_add(unsigned* p, unsigned v) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// An atomic add that returns the value before it, acquire and release at once: the combining tree's
// arrival, where the last child to arrive at a node must see the others' data and pass it on up.
__device__ __forceinline__ unsigned atom_acq_rel_gpu_add(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
// An atomic add whose release covers what the thread wrote before it, returning the value before it:
// grid.sync()'s arrival (CUDA 13's cooperative groups), which the cost model's probes run.
__device__ __forceinline__ unsigned atom_release_gpu_add(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ void fence_acquire_gpu() { asm volatile("fence.acquire.gpu;" ::: "memory"); }

}  // namespace cudasync::cuda
