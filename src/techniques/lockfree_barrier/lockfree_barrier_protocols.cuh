#pragma once
// The grid barriers that spin inside one kernel, as device functions: Xiao & Feng's two (repaired,
// and the widely copied transcription's code as written) and cudasync's own. Each returns kPassed, or kGaveUp / kStopped
// when its deadline (core/cuda/deadline.cuh) or another block's ended the wait. own-cluster is in
// lockfree_barrier_cluster.cuh; grid.sync() and the launch boundary need no code here.
#include "core/cuda/ptx_memory.cuh"
#include "techniques/lockfree_barrier/lockfree_barrier_phases.cuh"

namespace cudasync::lockfree_barrier::gpu {

inline constexpr unsigned FULL_MASK = 0xffffffffu;
inline constexpr unsigned kAbortPollMask = 1023;  // a spinner looks at the abort word every 1024 tries

// PTX memory-model operations at GPU scope (PTX ISA, "Memory Consistency Model"; sm_70+).
using cuda::fence_acquire_gpu;
using cuda::ld_relaxed_gpu;
using cuda::ld_volatile;
using cuda::red_release_gpu_add;
using cuda::st_volatile;
__device__ __forceinline__ bool reached(u32 v, u32 goal) { return static_cast<int>(v - goal) >= 0; }  // v >= goal, mod 2^32

enum : int { kStopped = 0, kPassed = 1, kGaveUp = -1 };

// Waits until ready(): kPassed; the deadline passed (the abort word is set for everybody): kGaveUp;
// another block gave up first: kStopped.
template <typename Ready>
__device__ inline int wait_for(Ready ready, const SpinDeadline& d) {
  unsigned tries = 0;
  bool stop = false;
  const bool ok = cuda::spin_until(
      [&] {
        if (ready()) return true;
        if ((++tries & kAbortPollMask) == 0 && ld_relaxed_gpu(d.timed_out) != 0) stop = true;
        return stop;
      },
      d);
  return !ok ? kGaveUp : stop ? kStopped : kPassed;
}

// The result of thread 0's (or warp 0's) wait, handed to the whole block by the closing barrier.
// Two slots by barrier parity: slot k % 2 is written again only at barrier k + 2, which nobody
// reaches before everybody has passed barrier k + 1's opening __syncthreads(), so one
// __syncthreads() is enough here.
__device__ inline int block_result(int mine, int k) {
  __shared__ int s_result[2];
  if (threadIdx.x == 0) s_result[k & 1] = mine;
  __syncthreads();
  return s_result[k & 1];
}

// ---- 2. Xiao & Feng lock-based, as the paper has it --------------------------------------
// __syncthreads() before the arrival (the transcription has none: thread 0 could announce its block while
// other warps still write), __threadfence() before the atomicAdd (release: this block's writes
// become visible before its arrival does) and after the spin (acquire), and `<` instead of `!=`.
__device__ inline int xf_lock(const PhaseArgs& a, int k) {
  u32* g_mutex = a.words;
  __syncthreads();
  int r = kPassed;
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(g_mutex, 1u);
    const u32 goalVal = static_cast<u32>(k) * gridDim.x;
    r = wait_for([&] { return reached(ld_volatile(g_mutex), goalVal); }, a.watch);
    __threadfence();
  }
  return block_result(r, k);
}

// ---- the transcription's lock-based code, as written --------------------------------------------------------
// `while (g_mutex != goalVal)`: a block that is released and reaches the next barrier first adds 1
// before a slower block has looked, and the slower one then never sees goalVal. No fence either.
__device__ inline int xf_lock_unrepaired(const PhaseArgs& a, int k) {
  u32* g_mutex = a.words;
  const int tid_in_block = threadIdx.x * blockDim.y + threadIdx.y;
  int r = kPassed;
  if (tid_in_block == 0) {
    atomicAdd(g_mutex, 1u);
    const u32 goalVal = static_cast<u32>(k) * gridDim.x;
    r = wait_for([&] { return ld_volatile(g_mutex) == goalVal; }, a.watch);
  }
  return block_result(r, k);
}

// ---- 3. Xiao & Feng lock-free, as the paper has it -----------------------------------------
// Master block 0 (the transcription's block 1 does not exist in a grid of one block); each master thread
// checks slots tid, tid + blockDim.x, ... so that any number of blocks is covered (the transcription checks
// one slot per thread: blocks >= blockDim.x are never waited for); `==` in the release test; the
// fences of the lock-based barrier (fence.sc: two of them in Fence-SC order synchronize).
__device__ inline int xf_lockfree(const PhaseArgs& a, int k) {
  const WordLayout L = word_layout(static_cast<int>(gridDim.x));
  u32* Arrayin = a.words + L.in;
  u32* Arrayout = a.words + L.out;
  const u32 goalVal = static_cast<u32>(k);
  const int N = static_cast<int>(gridDim.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    st_volatile(&Arrayin[blockIdx.x], goalVal);
  }
  int master = kPassed;
  if (blockIdx.x == 0) {
    for (int i = threadIdx.x; i < N && master == kPassed; i += blockDim.x)
      master = wait_for([&] { return ld_volatile(&Arrayin[i]) == goalVal; }, a.watch);
    const int gave = __syncthreads_or(master == kGaveUp);
    if (__syncthreads_or(master != kPassed)) return block_result(gave ? kGaveUp : kStopped, k);
    __threadfence();
    for (int i = threadIdx.x; i < N; i += blockDim.x) st_volatile(&Arrayout[i], goalVal);
  }
  int r = kPassed;
  if (threadIdx.x == 0) {
    r = wait_for([&] { return ld_volatile(&Arrayout[blockIdx.x]) == goalVal; }, a.watch);
    __threadfence();
  }
  return block_result(r, k);
}

// ---- the transcription's lock-free code, as written ---------------------------------------------------------
__device__ inline int xf_lockfree_unrepaired(const PhaseArgs& a, int k) {
  const WordLayout L = word_layout(static_cast<int>(gridDim.x));
  u32* Arrayin = a.words + L.in;
  u32* Arrayout = a.words + L.out;
  const u32 goalVal = static_cast<u32>(k);
  int tid_in_blk = threadIdx.x * blockDim.y + threadIdx.y;
  const int nBlockNum = gridDim.x * gridDim.y;
  const int bid = blockIdx.x * gridDim.y + blockIdx.y;
  int r = kPassed;
  if (tid_in_blk == 0) st_volatile(&Arrayin[bid], goalVal);
  if (bid == 1) {
    if (tid_in_blk < nBlockNum)
      r = wait_for([&] { return ld_volatile(&Arrayin[tid_in_blk]) == goalVal; }, a.watch);
    __syncthreads();
    if (tid_in_blk < nBlockNum) st_volatile(&Arrayout[tid_in_blk], goalVal);
  }
  // The transcription: `if (tid_in_blk = 0) { while (Arrayout[bid] != goalVal) {} }`. The assignment
  // stores 0 and the condition tests that 0: no thread ever waits for Arrayout.
  tid_in_blk = 0;
  if (tid_in_blk != 0) r = wait_for([&] { return ld_volatile(&Arrayout[bid]) == goalVal; }, a.watch);
  // The transcription's closing __syncthreads(), as two votes: did any thread give up, or stop?
  const int gave = __syncthreads_or(r == kGaveUp);
  const int stopped = __syncthreads_or(r == kStopped);
  return gave ? kGaveUp : stopped ? kStopped : kPassed;
}

// ---- 5. cudasync's own -------------------------------------------------------------------------------
// Arrival: one red.release (a reduction: no value comes back, so nobody waits a round trip before
// polling) on counter b % C, with the goal known in advance (k x the blocks that add to it, as in
// Xiao & Feng). Wait: ld.relaxed polls, then one fence.acquire.gpu: on sm_90 the poll loop is a bare
// LDG.E.STRONG.GPU and the acquire a single CCTL.IVALL after it. (ld.acquire polls and a fence.acq_rel
// + atomicAdd arrival measured the same: red.release is that very MEMBAR.ALL.GPU + REDG in SASS.)
// C = 1 (up to 192 blocks): thread 0 alone, no warp votes. C > 1: the counters sit 256 bytes apart,
// lanes 0..C-1 of warp 0 poll one each, and __all_sync ends the wait, so the N same-address atomics
// that one L2 slice performs one by one become N / C on each of C addresses.

// Thread 0: this block's arrival (after a __syncthreads(), so that the release covers the block).
__device__ __forceinline__ void own_arrive(const PhaseArgs& a) {
  u32* counters = a.words + word_layout(static_cast<int>(gridDim.x)).own;
  const unsigned C = static_cast<unsigned>(a.own_counters);
  red_release_gpu_add(C == 1 ? counters : counters + (blockIdx.x % C) * kOwnStride, 1u);  // no division at C = 1
}

// The wait for barrier k: thread 0 alone when C == 1, all of warp 0 otherwise.
__device__ inline int own_wait(const PhaseArgs& a, int k) {
  const int C = a.own_counters;
  const int N = static_cast<int>(gridDim.x);
  const u32* counters = a.words + word_layout(N).own;
  int r = kPassed;
  if (C == 1) {
    const u32 goal = static_cast<u32>(k) * static_cast<u32>(N);
    r = wait_for([&] { return reached(ld_relaxed_gpu(counters), goal); }, a.watch);
    fence_acquire_gpu();
    return r;
  }
  const int lane = static_cast<int>(threadIdx.x);
  const u32 goal = lane < C ? static_cast<u32>(k) * static_cast<u32>((N - lane + C - 1) / C) : 0u;
  const u32* mine = counters + (lane < C ? lane : 0) * kOwnStride;
  bool ok = lane >= C;
  // spin_until's loop, made warp-uniform: all 32 lanes take the same branch every time.
  const unsigned long long start = globaltimer_ns();
  unsigned tries = 0;
  while (true) {
    if (!ok) ok = reached(ld_relaxed_gpu(mine), goal);
    if (__all_sync(FULL_MASK, ok)) break;
    const bool late = globaltimer_ns() - start > a.watch.budget_ns;
    const bool stop = (++tries & kAbortPollMask) == 0 && ld_relaxed_gpu(a.watch.timed_out) != 0;
    if (__any_sync(FULL_MASK, late)) {
      if (lane == 0) atomicExch(a.watch.timed_out, 1u);
      r = kGaveUp;
      break;
    }
    if (__any_sync(FULL_MASK, stop)) {
      r = kStopped;
      break;
    }
  }
  fence_acquire_gpu();
  return r;
}

__device__ __forceinline__ unsigned own_waiters(const PhaseArgs& a) {
  return a.own_counters == 1 ? 1u : static_cast<unsigned>(kWarpSize);
}

__device__ inline int own(const PhaseArgs& a, int k) {
  __syncthreads();
  int r = kPassed;
  if (threadIdx.x == 0) own_arrive(a);
  if (threadIdx.x < own_waiters(a)) r = own_wait(a, k);
  return block_result(r, k);
}

}  // namespace cudasync::lockfree_barrier::gpu
