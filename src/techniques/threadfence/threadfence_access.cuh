#pragma once
// The memory accesses of the threadfence kernels (litmus, cost, probes), in one place. The plain
// and volatile ones are inline PTX, so the order and kind of every access is exactly what the
// model reasons about (the compiler may not merge, move or cache them):
//   ld.global / st.global                  weak ("plain"): may be served by the SM's L1
//   ld.volatile.global / st.volatile.global relaxed at system scope (what C++ volatile compiles to)
// The fences are the CUDA intrinsics themselves (__threadfence_block / __threadfence /
// __threadfence_system) and release/acquire is cuda::atomic_ref, as a student would write them.
#include <cuda/atomic>

#include "techniques/threadfence/threadfence.hpp"

namespace cudasync::threadfence {

using Ref = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;

__device__ __forceinline__ size_t gaddr(const void* p) { return __cvta_generic_to_global(p); }

__device__ __forceinline__ unsigned ld_plain(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
  return v;
}
__device__ __forceinline__ void st_plain(unsigned* p, unsigned v) {
  asm volatile("st.global.u32 [%0], %1;" ::"l"(gaddr(p)), "r"(v) : "memory");
}
__device__ __forceinline__ void st_volatile(unsigned* p, unsigned v) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(gaddr(p)), "r"(v) : "memory");
}

// k: 0 plain, 1 volatile, 2 release (stores) / acquire (loads)
constexpr int kPlain = 0, kVolatile = 1, kRelAcq = 2;

__device__ __forceinline__ unsigned load(unsigned* p, int k) {
  if (k == kRelAcq) return Ref(*p).load(::cuda::memory_order_acquire);
  return k == kVolatile ? ld_volatile(p) : ld_plain(p);
}
__device__ __forceinline__ void store(unsigned* p, unsigned v, int k) {
  if (k == kRelAcq) Ref(*p).store(v, ::cuda::memory_order_release);
  else if (k == kVolatile) st_volatile(p, v);
  else st_plain(p, v);
}
__device__ __forceinline__ void fence(int f) {
  switch (static_cast<Fence>(f)) {
    case Fence::block: __threadfence_block(); break;
    case Fence::device: __threadfence(); break;
    case Fence::system: __threadfence_system(); break;
    default: break;  // none; rel_acq puts its ordering in the accesses
  }
}

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

}  // namespace cudasync::threadfence
