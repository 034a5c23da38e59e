#pragma once
// The cost of one lock handoff (lock's --bench), term by term. Under contention a handoff is: the
// release reaches the lock word, the next taker's atomic gets through the queue of waiters'
// atomics there (take), the taker's acquire (acquire), the critical section's load of the counter
// from the L2 (load), and the release, which waits for the counter's store (release). A lock whose
// waiters poll with loads first (detect) or that serves many requests per handoff (serve) adds its
// own terms. Each primitive is measured under the same waiters as the lock it explains
// (core/cost/probe.hpp, Background), at the same <<<blocks, threads>>>:
//
//   the CAS lock at <<<132, 1>>> (waiters: 131 threads spinning with atomicCAS):
//     take     cas-round-under-cas(132x1)        one CAS on the lock word behind the waiters'
//     fence    fence-sc-under-cas(132x1)         __threadfence() after taking
//     load     load-under-cas(132x1)             *cnt from the L2 (the fence dropped the L1)
//     release  store-fence-sc-under-cas(132x1)   *cnt = ..., __threadfence() waits for it, atomicExch
#include "core/cost/model.hpp"

namespace cudasync::cost {

enum class LockDesign : int {
  book = 0,         // atomicCAS / atomicExch, no fence: the critical section hits the L1 (not correct)
  fenced,           // the CAS lock: __threadfence() after taking and before releasing
  acq_rel,          // compare_exchange(acquire), store(release)
  ttas,             // relaxed polls, compare_exchange(acquire) when the word reads 0, store(release)
  ttas_same_line,   // the same, the counter in the lock word's line
  backoff,          // acq_rel with __nanosleep back-off after a failed try
  ticket,           // fetch_add a ticket, acquire polls of `serving`, sleeping by distance
  warp_aggregated,  // one lane per warp takes the lock for the warp's updates
  combining,        // flat combining: the holder serves every published request
};

// The waiters a lock's primitives are measured under.
Background lock_background(LockDesign d, int blocks, int threads);
std::vector<Need> lock_needs(LockDesign d, int blocks, int threads);
// ns per update (for most locks one handoff; warp-aggregated and combining divide a handoff among
// the updates it carries).
Prediction predict_lock(LockDesign d, int blocks, int threads, const Primitives& p);

}  // namespace cudasync::cost
