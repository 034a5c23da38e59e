#pragma once
// What the by-value parts' kernels share (lock_copy_kernels.cu, lock_shared_mutex_kernels.cu): the
// critical section every lock class runs, the scratch buffers of one launch, and CUDA's answers as
// text.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"

namespace cudasync::lock {

// The blog's fixed lock() and unlock(): the spin on atomicCAS with __threadfence() after taking the
// lock, and __threadfence() before atomicExch gives it back. Every lock class of parts 5 and 6
// that is meant to be correct calls these.
__device__ inline bool fenced_take(int* mutex, const cuda::SpinDeadline& d) {
  const bool ok = cuda::spin_until([&] { return atomicCAS(mutex, 0, 1) == 0; }, d);
  __threadfence();
  return ok;
}
__device__ inline void fenced_give(int* mutex) {
  __threadfence();
  atomicExch(mutex, 0);
}

// `iters` acquisitions of `lock` around atomicAdd(cnt, 1); a wait past its deadline adds one to
// *gave_up and stops.
template <typename L>
__device__ void count_under(L& lock, int* cnt, int iters, const cuda::SpinDeadline& d, int* gave_up) {
  for (int i = 0; i < iters; ++i) {
    if (!lock.lock(d)) {
      atomicAdd(gave_up, 1);
      return;
    }
    atomicAdd(cnt, 1);
    lock.unlock();
  }
}

// Scratch for one launch: the counter, the give-up count and the deadline flag.
struct Scratch {
  int* cnt = nullptr;
  int* gave_up = nullptr;
  unsigned* timed_out = nullptr;
  Scratch() {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&cnt), sizeof(int)));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&gave_up), sizeof(int)));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&timed_out), sizeof(unsigned)));
    reset();
  }
  ~Scratch() {
    CUDA_CHECK_NOTHROW(cudaFree(cnt));
    CUDA_CHECK_NOTHROW(cudaFree(gave_up));
    CUDA_CHECK_NOTHROW(cudaFree(timed_out));
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void reset() {
    CUDA_CHECK(cudaMemset(cnt, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(gave_up, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(timed_out, 0, sizeof(unsigned)));
  }
  long long count() const {
    int c = 0;
    CUDA_CHECK(cudaMemcpy(&c, cnt, sizeof(int), cudaMemcpyDeviceToHost));
    return c;
  }
};

inline std::string name_of(cudaError_t e) { return cudaGetErrorName(e); }
inline std::string with_text(cudaError_t e) {
  return e == cudaSuccess ? name_of(e) : name_of(e) + " (" + cudaGetErrorString(e) + ")";
}
inline std::string hex(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

}  // namespace cudasync::lock
