#pragma once
// The combining lock on the device (flat combining: D. Hendler, I. Incze, N. Shavit, M. Tzafrir,
// "Flat Combining and the Synchronization-Parallelism Tradeoff", SPAA 2010).
//
// Each thread owns one 32-bit slot. To run its critical section it publishes a request in the slot
// (the operation is fixed: fetch-and-add; the word carries the argument) and waits for the answer
// to appear in the same word. A waiter that finds the lock free takes it and, while holding it,
// serves every request published in the slot array: it applies each to the protected counter and
// overwrites the slot with the answer. One lock handoff runs many critical sections.
//
//   slot word:  [31:30] state  idle 0 | pending 1 | done 2      [29:0] argument, then answer
//   thread t, request 0 of "+1":  slot[t] = pending|1  ...  a combiner writes slot[t] = done|17:
//   thread t's fetch-and-add returned 17 (the counter went 17 -> 18 in that combiner's pass).
//
// Ordering. The lock word is taken with an acquire compare-and-swap and given back with a release
// store: the counter passes from one combiner to the next exactly as in any lock. The slot words
// are relaxed device-scope atomics: the request's argument and the answer live in the word that
// carries the flag, so reading "done" is reading the answer (one location is always coherent), and
// there is no other memory for a release or acquire on the slot to order. A critical section whose
// caller must read other memory the combiner wrote would need a release before the done marks (one
// fence per pass) and an acquire load of the slot. Coherence also keeps a request from being served
// twice: the next combiner takes the lock after this one wrote "done", so it cannot read the old
// "pending" again.
#include <cuda/atomic>

#include "core/cuda/deadline.cuh"
#include "core/cuda/vector_load.cuh"
#include "techniques/lock/lock.hpp"

namespace cudasync::lock::combining {

inline constexpr unsigned kIdle = 0u, kPending = 1u, kDone = 2u;
inline constexpr unsigned kPayloadMask = (1u << kSlotPayloadBits) - 1u;
// A waiter looks at the lock word on one poll in kLockEvery (its own slot on every poll): the slots
// are spread over L2, the lock word is one address, and a lock word polled by every waiter slows
// the combiner's release and the next taker's compare-and-swap.
inline constexpr int kLockEvery = 4;
// The combiner reads the slots 32 at a time, as 8 vector loads all in flight at once: one L2 round
// trip per 32 slots instead of one per slot. (64 would not fit the 64 registers a thread may use
// in a block of 1024 without spilling.)
inline constexpr int kScanChunk = 32;

__host__ __device__ constexpr unsigned word(unsigned state, unsigned payload) {
  return state << kSlotPayloadBits | (payload & kPayloadMask);
}
__host__ __device__ constexpr unsigned state_of(unsigned w) { return w >> kSlotPayloadBits; }
__host__ __device__ constexpr unsigned payload_of(unsigned w) { return w & kPayloadMask; }

using SlotRef = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;
using LockRef = ::cuda::atomic_ref<int, ::cuda::thread_scope_device>;

// Four slots in one relaxed device-scope load (each element is its own relaxed access).
using ::cudasync::cuda::load4_relaxed;

struct Shared {
  int* mutex;
  int* cnt;            // the protected data
  unsigned* slots;     // one per thread of the grid, padded with idle slots to a multiple of 4
  int slot_count;      // padded
  int* handoffs;       // times the lock was taken (each a pass over the slots), under the lock
};

// Serve one slot word `w` of slot `s`: a pending fetch-and-add gets the counter's value as answer.
__device__ __forceinline__ void serve(const Shared& g, int s, unsigned w, int& counter) {
  if (state_of(w) != kPending) return;
  SlotRef(g.slots[s]).store(word(kDone, static_cast<unsigned>(counter)), ::cuda::memory_order_relaxed);
  counter += static_cast<int>(payload_of(w));
}

// The holder's pass: every published request, in slot order, applied to the counter.
__device__ __forceinline__ void combine(const Shared& g) {
  int counter = *g.cnt;  // a plain load: the acquire that took the lock dropped this SM's L1
  for (int base = 0; base < g.slot_count; base += kScanChunk) {
    uint4 w[kScanChunk / 4];
#pragma unroll
    for (int k = 0; k < kScanChunk / 4; ++k)
      w[k] = base + 4 * k < g.slot_count ? load4_relaxed(g.slots + base + 4 * k) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
    for (int k = 0; k < kScanChunk / 4; ++k) {
      const int s = base + 4 * k;
      serve(g, s, w[k].x, counter);
      serve(g, s + 1, w[k].y, counter);
      serve(g, s + 2, w[k].z, counter);
      serve(g, s + 3, w[k].w, counter);
    }
  }
  *g.cnt = counter;
  *g.handoffs += 1;
}

// One request of thread `tid`: fetch-and-add(arg) on the counter. Returns false when the wait for
// the answer passed the deadline (the request may still be served later; its answer is lost).
__device__ __forceinline__ bool request(const Shared& g, int tid, unsigned arg, unsigned& answer,
                                        const cuda::SpinDeadline& d) {
  SlotRef mine(g.slots[tid]);
  mine.store(word(kPending, arg), ::cuda::memory_order_relaxed);
  LockRef lock(*g.mutex);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(blockIdx.x * ((blockDim.x + 31) / 32) + threadIdx.x / 32);
  int poll = warp;  // waiters of different warps look at the lock word on different polls
  const auto try_once = [&] {
    const unsigned w = mine.load(::cuda::memory_order_relaxed);
    if (state_of(w) == kDone) {
      answer = payload_of(w);
      return true;
    }
    if (poll++ % kLockEvery != 0 || lock.load(::cuda::memory_order_relaxed) != 0) return false;
    // The lanes of a warp that poll together elect one of them to try: one compare-and-swap per
    // warp at the lock word instead of up to 32.
    if (lane != __ffs(__activemask()) - 1) return false;
    int expected = 0;
    if (!lock.compare_exchange_strong(expected, 1, ::cuda::memory_order_acquire, ::cuda::memory_order_relaxed))
      return false;
    combine(g);  // serves this thread's own request too: it was published before the lock was taken
    lock.store(0, ::cuda::memory_order_release);
    return false;  // the next poll reads the answer
  };
  return try_once() || cuda::spin_until(try_once, d);
}

}  // namespace cudasync::lock::combining
