#pragma once
// own-cluster, as device functions: cudasync's own barrier on thread-block clusters (sm_90).
//
// The same arrival from every block, but only one block per cluster (its rank 0, the leader) polls;
// the others wait at the cluster's hardware barrier (barrier.cluster), which the leader joins once
// it has seen every arrival. N / cluster size pollers instead of N.
//
// Why the data is safe (PTX ISA, "Memory Consistency Model"): a block's writes precede its thread 0's
// red.release through __syncthreads() (morally strong at CTA scope, and release is cumulative);
// the leader's ld.relaxed + fence.acquire.gpu that sees the counter at its goal forms an acquire
// pattern that synchronizes with every red.release before it in the counter's chain of atomics
// (observation order runs through read-modify-writes); the leader's barrier.cluster.arrive.release
// synchronizes with each peer's barrier.cluster.wait.acquire ("A barrier.cluster.arrive operation
// synchronizes with a barrier.cluster.wait operation"); and causality order is transitive across
// scopes, so every write before barrier k in any block happens before every read after it. The
// peers' own arrival at the cluster barrier can be .relaxed: their data went out with their red.
//
// What it costs (H200 probe, docs/measurements.md): barrier.cluster.arrive.release compiles to the
// same MEMBAR.ALL.GPU as a gpu-scope release, and one cluster barrier takes about 230-330 ns, about
// one L2 round trip, so the hop it adds costs more than the pollers it saves.
//
// A leader that gives up (deadline) or stops (another block gave up) writes its result into every
// block of its cluster (distributed shared memory) before its release arrival; on the good path
// nothing is written, and a peer reads its own shared word after the wait. The peers' wait has no
// deadline of its own, but it ends when the leader arrives, and the leader's spin has one.
#include <cooperative_groups.h>

#include "core/cuda/cluster.cuh"
#include "techniques/lockfree_barrier/lockfree_barrier_protocols.cuh"

namespace cudasync::lockfree_barrier::gpu {

namespace cg = cooperative_groups;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
enum : int { kClusterPassed = 0, kClusterStopped = 1, kClusterGaveUp = 2 };

__device__ __forceinline__ int& cluster_word() {
  __shared__ int s_cluster;
  return s_cluster;
}

using cuda::cluster_arrive_relaxed;
using cuda::cluster_arrive_release;
using cuda::cluster_block_rank;
using cuda::cluster_wait_acquire;

// Thread 0 of the leader: `code` into the shared word of every block of the cluster (its own too).
__device__ inline void tell_cluster(int code) {
  cg::cluster_group cluster = cg::this_cluster();
  for (unsigned rank = 0; rank < cluster.num_blocks(); ++rank) *cluster.map_shared_rank(&cluster_word(), rank) = code;
}

// The whole cluster meets; the leader's warp arrives with release, the others relaxed (`.aligned`:
// every warp arrives converged). Returns what the leader told the cluster.
__device__ inline int cluster_meet(bool leader) {
  __syncwarp();
  if (leader) cluster_arrive_release();
  else cluster_arrive_relaxed();
  cluster_wait_acquire();
  const int w = cluster_word();
  return w == kClusterPassed ? kPassed : w == kClusterStopped ? kStopped : kGaveUp;
}
#endif

__device__ inline int own_cluster(const PhaseArgs& a, int k) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __syncthreads();
  const bool leader = cluster_block_rank() == 0;
  if (threadIdx.x == 0) own_arrive(a);
  if (leader && threadIdx.x < own_waiters(a)) {
    const int r = own_wait(a, k);
    if (threadIdx.x == 0 && r != kPassed) tell_cluster(r == kStopped ? kClusterStopped : kClusterGaveUp);
  }
  return cluster_meet(leader);
#else
  (void)a;
  (void)k;
  return kGaveUp;  // never launched: the host waives own-cluster where the kernel has no sm_90 code
#endif
}

// own-cluster's start: every block zeroes its shared word before the cluster first meets (so no
// leader's word can come before the zero), then the leader looks at the grid's abort word for the
// whole cluster: a cluster that starts after some block gave up stops as one, before phase 1.
__device__ inline bool cluster_start_stopped(const PhaseArgs& a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (threadIdx.x == 0) cluster_word() = kClusterPassed;
  const bool leader = cluster_block_rank() == 0;
  __syncwarp();
  cluster_arrive_release();
  cluster_wait_acquire();
  if (leader && threadIdx.x == 0 && ld_relaxed_gpu(a.watch.timed_out) != 0) tell_cluster(kClusterStopped);
  return cluster_meet(leader) != kPassed;
#else
  (void)a;
  return true;
#endif
}

}  // namespace cudasync::lockfree_barrier::gpu
