#pragma once
// Candidates for cudasync's own barrier, timed by --bench beside it (not parts of the lesson): the
// same arrival on the same counters (own_arrive), another wait. Each is checked against the
// model's values at every grid size of the sweep before its time counts.
//
// What the cost model says about own (core/cost/barrier_model.hpp): after the fences and the queue
// of arrivals, the largest term is the poll, from the last arrival landing in the L2 to the last
// block seeing it. A poller loads the counter once per L2 round trip, so the news waits up to one
// round trip for the next load to pass by; and every load it sends competes with the arrivals at
// the counter's L2 slice.
//   own-stagger  K poller threads per block (lane 0 of warps 0..K-1) start K apart, so some load
//                passes about K times sooner; K falls as the grid grows (4 x SMs pollers in all),
//                so the traffic on the counter stays that of 4 blocks per SM.
//   own-paced    thread 0 loads every counter, and while many arrivals are missing it sleeps about
//                1 ns for each (no arrival lands sooner than the L2 performs the ones before it):
//                fewer loads in the way of the arrivals, the last ones polled at full speed.
// Both poll every counter from one thread (the loads in flight together), where own at C > 1
// uses lanes 0..C-1 of warp 0 and a vote.
#include "techniques/lockfree_barrier/lockfree_barrier_protocols.cuh"

namespace cudasync::lockfree_barrier::gpu {

inline constexpr unsigned long long kStaggerNs = 48;  // own-stagger: poller w starts w x this later
inline constexpr unsigned kPaceFrom = 32;             // own-paced: sleep only while more are missing
inline constexpr unsigned kPaceNsPerArrival = 1;

// The arrivals still missing at barrier k, over every counter (two counters: both loads first).
__device__ __forceinline__ unsigned own_missing(const PhaseArgs& a, int k) {
  const int C = a.own_counters, N = static_cast<int>(gridDim.x);
  const u32* counters = a.words + word_layout(N).own;
  const auto short_of = [&](u32 v, int l) {
    const u32 goal = static_cast<u32>(k) * static_cast<u32>((N - l + C - 1) / C);
    const int by = static_cast<int>(goal - v);
    return by > 0 ? static_cast<unsigned>(by) : 0u;
  };
  if (C == 1) return short_of(ld_relaxed_gpu(counters), 0);
  if (C == 2) {
    const u32 v0 = ld_relaxed_gpu(counters), v1 = ld_relaxed_gpu(counters + kOwnStride);
    return short_of(v0, 0) + short_of(v1, 1);
  }
  unsigned missing = 0;
  for (int l = 0; l < C; ++l) missing += short_of(ld_relaxed_gpu(counters + l * kOwnStride), l);
  return missing;
}

__device__ inline int own_stagger(const PhaseArgs& a, int k) {
  // By parity (slot k % 2 is cleared before barrier k's opening __syncthreads(), when nobody reads
  // it: barrier k - 2 has closed): which barrier some poller of this block saw complete, and the
  // worst result of the block's pollers (2: one gave up, 1: one stopped).
  __shared__ int s_seen[2], s_result[2];
  volatile int* seen = &s_seen[k & 1];
  if (threadIdx.x == 0) {
    *seen = -1;
    s_result[k & 1] = 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) own_arrive(a);
  int r = kPassed;
  const unsigned warp = threadIdx.x / kWarpSize;
  if (threadIdx.x % kWarpSize == 0 && warp < static_cast<unsigned>(a.own_pollers)) {
    const unsigned long long from = globaltimer_ns();
    while (globaltimer_ns() - from < warp * kStaggerNs) {
    }
    bool mine = false;
    r = wait_for(
        [&] {
          if (*seen == k) return true;
          mine = own_missing(a, k) == 0;
          return mine;
        },
        a.watch);
    if (mine) {
      fence_acquire_gpu();  // the acquire pattern: the poller that saw the counters is the one that orders
      *seen = k;
    }
  }
  if (r != kPassed) atomicMax(&s_result[k & 1], r == kGaveUp ? 2 : 1);
  __syncthreads();
  const int worst = s_result[k & 1];
  return worst == 2 ? kGaveUp : worst == 1 ? kStopped : kPassed;
}

__device__ inline int own_paced(const PhaseArgs& a, int k) {
  __syncthreads();
  int r = kPassed;
  if (threadIdx.x == 0) {
    own_arrive(a);
    r = wait_for(
        [&] {
          const unsigned missing = own_missing(a, k);
          if (missing > kPaceFrom) __nanosleep(missing * kPaceNsPerArrival);
          return missing == 0;
        },
        a.watch);
    fence_acquire_gpu();
  }
  return block_result(r, k);
}

}  // namespace cudasync::lockfree_barrier::gpu
