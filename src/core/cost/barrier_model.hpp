#pragma once
// The cost of one grid barrier, term by term (lockfree-barrier's --bench). The time between two
// barriers in a loop is the critical path of the last block to be released: it passes its block's
// __syncthreads(), pays its release fence, sends its arrival to the L2, where it may wait behind
// the other arrivals to the same word, and the news that the last arrival has landed must reach
// every poller; then the acquire and the closing __syncthreads(). Each step is a primitive the GPU
// measures in the same run (core/cost/probe.hpp):
//
//   own at 132 blocks of 256, one counter:
//     sync     2 x sync(256)                      the opening and the closing __syncthreads()
//     fence    fence-rel(132)                     red.release's MEMBAR, 132 blocks fencing at once
//     queue    queue-atomic(132) - rt-atomic      132 same-address atomics beyond one alone
//     poll     poll-relaxed(132)                  the last arrival sent until 132 pollers have seen it
//     acquire  fence-acquire                      one fence.acquire.gpu after the poll loop
#include "core/cost/model.hpp"

namespace cudasync::cost {

enum class BarrierDesign : int {
  xf_lock = 0,  // Xiao & Feng lock-based, repaired: __threadfence, atomicAdd, volatile polls, __threadfence
  xf_lockfree,  // Xiao & Feng lock-free, repaired: Arrayin, a master block, Arrayout
  grid_sync,    // cooperative groups: atom.add.release, ld.acquire polls of the same word
  own,          // red.release on C counters, ld.relaxed polls, one fence.acquire.gpu
  own_cluster,  // own's arrival; one poller per thread-block cluster, the cluster barrier for the rest
  own_stagger,  // own with K pollers per block, started apart: the next poll comes K times sooner
  own_paced,    // own whose pollers sleep while many arrivals are missing (less traffic on the word)
};

struct BarrierShape {
  int blocks = 132;
  int threads = 256;
  int counters = 1;  // own: C
  int cluster = 1;   // own-cluster: blocks per cluster
  int pollers = 1;   // own-stagger: K pollers per block
};

// The primitives the design's formula reads, at this shape.
std::vector<Need> barrier_needs(BarrierDesign d, const BarrierShape& s);
// ns per barrier, as a sum of terms (sync, fence, queue, poll, acquire, scan, cluster).
Prediction predict_barrier(BarrierDesign d, const BarrierShape& s, const Primitives& p);

}  // namespace cudasync::cost
