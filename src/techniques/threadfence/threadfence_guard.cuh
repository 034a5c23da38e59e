#pragma once
// What the lastBlock kernels share (last-block, last-block-partial): a warp sum and the SO Docs
// guard 1 with the acquire half it lacks.
#include "techniques/threadfence/threadfence.hpp"

namespace cudasync::threadfence {

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
  return v;
}

// SO Docs guard 1, and the acquire half it lacks: a thread 0 that learns it is last fences before its
// block reads the others' partials. `fences` false: the broken variant without any fence. Every
// thread of the block must call it: __syncthreads_or is a barrier.
__device__ __forceinline__ bool guard_or(unsigned* counter, bool fences) {
  if (fences) __threadfence();  // release: this thread's partial before its atomicAdd
  unsigned last = 0;
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u);
    if (fences) __threadfence();  // acquire: the atomicAdd before the reads of the partials
  }
  return __syncthreads_or(last == gridDim.x - 1) != 0;
}

}  // namespace cudasync::threadfence
