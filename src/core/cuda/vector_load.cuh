#pragma once
// Four consecutive 32-bit words in one 16-byte load at gpu scope, for scanning arrays of slots
// (one per thread or per block) with a quarter of the loads. Each element is its own relaxed or
// acquire access (PTX ISA, memory consistency model: vector accesses are element-wise); `p` must
// be 16-byte aligned.
#include <cuda_runtime.h>

namespace cudasync::cuda {

__device__ __forceinline__ uint4 load4_relaxed(const unsigned* p) {
  uint4 v;
  asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ uint4 load4_acquire(const unsigned* p) {
  uint4 v;
  asm volatile("ld.acquire.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

}  // namespace cudasync::cuda
