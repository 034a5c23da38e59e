// The GPU side of lockfree-barrier: the multi-phase kernel, the grid barriers that spin inside it
// (Xiao & Feng's, grid.sync(), cudasync's own, own-cluster and own's bench candidates), relaunch and
// graph (one kernel per phase, the launch boundary as the barrier), their launches and timing, and
// the two probes every barrier is read against: the floor (one dependent L2 atomic) and the step of
// %globaltimer. Every spin goes through a %globaltimer deadline (core/cuda/deadline.cuh): a spinner
// that waits too long sets the grid's abort word and gives up, the other blocks see that word at
// their next spin or at their start and stop too, and the host reads who arrived, who gave up and
// who never started. Kernels fill device memory and never print.
#include <cooperative_groups.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/cluster.cuh"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/occupancy.cuh"
#include "core/cuda/ptx_memory.cuh"
#include "core/words/words.hpp"
#include "techniques/lockfree_barrier/barriers.hpp"

namespace cudasync::lockfree_barrier {

namespace {

namespace cg = cooperative_groups;
using cuda::DeviceBuffer;
using cuda::globaltimer_ns;
using cuda::SpinDeadline;
using u32 = std::uint32_t;

// Where each protocol keeps its words in the one zeroed array a launch gets (word_layout).
struct WordLayout {
  int counter = 0;  // xf-lock, xf-lock-unrepaired: g_mutex
  int own = 0;      // own, own-cluster: counter l at own + l * kOwnStride
  int in = 0;       // xf-lockfree(-seed): Arrayin[0..N-1]
  int out = 0;      //                     Arrayout[0..N-1]
  int tree = 0;     // own-tree: the generation word, then node i at tree + (i + 1) * kOwnStride
  int total = 0;
};
__host__ __device__ inline WordLayout word_layout(int blocks) {
  WordLayout w;
  w.counter = 0;
  w.own = kOwnStride;
  w.in = kOwnStride * (kMaxOwnCounters + 1);
  w.out = w.in + blocks;
  // own-tree: each word on a 256-byte line of its own; at most 2 x blocks nodes (tree_nodes: each
  // level at most half the one below, rounded up).
  w.tree = (w.out + blocks + kOwnStride - 1) / kOwnStride * kOwnStride;
  w.total = w.tree + kOwnStride * (2 * blocks + 1);
  return w;
}

// ---- what every launch shares: the kernel's arguments, one phase of the data, the device memory
// of a run and how its results come back -------------------------------------------------------

struct PhaseArgs {
  u32* buf0;
  u32* buf1;
  int phases;
  u32* words;           // the protocol's words, zeroed before each launch (word_layout)
  int own_counters;
  int own_pollers;      // own-stagger: K
  int tree_arity;       // own-tree: children per node
  SpinDeadline watch;   // budget per spinner; timed_out is the grid's abort word
  int* phases_done;     // per block
  u32* gave_up;         // per block: its own spin reached the deadline
  u32* stopped;         // per block: stopped because another block had given up
  long long* arrive_ns; // per block, barrier 1
  long long* release_ns;
};

// One phase of the data: thread t of block b combines its value with thread t of block b + 1 and
// thread t + 1 of block b - 1, all from the previous phase (plain loads and stores: only the
// barrier makes them safe).
__device__ __forceinline__ void phase(const PhaseArgs& a, int p) {
  const u32* in = (p - 1) % 2 == 0 ? a.buf0 : a.buf1;
  u32* out = p % 2 == 0 ? a.buf0 : a.buf1;
  const unsigned N = gridDim.x, T = blockDim.x, b = blockIdx.x, t = threadIdx.x;
  const unsigned right = (b + 1) % N, left = (b + N - 1) % N;
  out[b * T + t] = mix(in[b * T + t], in[right * T + t], in[left * T + (t + 1) % T], static_cast<u32>(p));
}

__device__ __forceinline__ long long now_ns() { return static_cast<long long>(globaltimer_ns()); }

// The device memory of one run.
struct Buffers {
  DeviceBuffer<u32> buf0, buf1, words, abort_word, gave_up, stopped;
  DeviceBuffer<int> phases_done;
  DeviceBuffer<long long> arrive_ns, release_ns;
  Buffers(int blocks, int threads)
      : buf0(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads)),
        buf1(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads)),
        words(static_cast<std::size_t>(word_layout(blocks).total)),
        abort_word(1),
        gave_up(static_cast<std::size_t>(blocks)),
        stopped(static_cast<std::size_t>(blocks)),
        phases_done(static_cast<std::size_t>(blocks)),
        arrive_ns(static_cast<std::size_t>(blocks)),
        release_ns(static_cast<std::size_t>(blocks)) {}

  void reset() {
    words.fill_bytes(0);
    abort_word.fill_bytes(0);
    gave_up.fill_bytes(0);
    stopped.fill_bytes(0);
    phases_done.fill_bytes(0);
    arrive_ns.fill_bytes(0);
    release_ns.fill_bytes(0);
  }

  // Ready for a run from the initial values x0: every other word zeroed, the device idle.
  PhaseArgs prepare(const GpuSpec& s, const std::vector<std::uint32_t>& x0) {
    buf0.upload(x0);
    buf1.fill_bytes(0);
    reset();
    CUDA_CHECK(cudaDeviceSynchronize());
    return args(s);
  }

  PhaseArgs args(const GpuSpec& s) {
    return {buf0.get(), buf1.get(), s.phases, words.get(), s.own_counters, s.own_pollers, s.tree_arity,
            SpinDeadline{s.deadline_ns, abort_word.get()}, phases_done.get(), gave_up.get(), stopped.get(),
            arrive_ns.get(), release_ns.get()};
  }
};

inline std::vector<std::uint32_t> protocol_words(Barrier b, const std::vector<u32>& w, int blocks, int own_counters) {
  const WordLayout L = word_layout(blocks);
  switch (b) {
    case Barrier::xf_lock:
    case Barrier::xf_lock_unrepaired:
    case Barrier::own_ticket: return {w[static_cast<std::size_t>(L.counter)]};
    case Barrier::xf_lockfree:
    case Barrier::xf_lockfree_unrepaired: return {w.begin() + L.in, w.begin() + L.in + 2 * blocks};
    case Barrier::own:
    case Barrier::own_stagger:
    case Barrier::own_paced:
    case Barrier::own_cluster: {
      std::vector<u32> v;
      for (int l = 0; l < own_counters; ++l) v.push_back(w[static_cast<std::size_t>(L.own + l * kOwnStride)]);
      return v;
    }
    case Barrier::own_tree: return {w[static_cast<std::size_t>(L.tree)]};  // the generation: barriers released
    default: return {};
  }
}

inline std::vector<std::uint8_t> flags_of(const DeviceBuffer<u32>& d) {
  std::vector<std::uint8_t> f;
  for (u32 v : d.download()) f.push_back(v != 0 ? 1 : 0);
  return f;
}

// After a run: the values, the protocol's words, and who arrived, gave up or stopped.
inline void collect(GpuRun& r, Buffers& m, const GpuSpec& s) {
  CUDA_CHECK(cudaDeviceSynchronize());
  r.values = (s.phases % 2 == 0 ? m.buf0 : m.buf1).download();
  r.words = protocol_words(r.barrier, m.words.download(), s.blocks, s.own_counters);
  r.phases_done = m.phases_done.download();
  r.gave_up = flags_of(m.gave_up);
  r.stopped = flags_of(m.stopped);
  for (long long v : m.arrive_ns.download()) r.arrive_ns.push_back(v);
  for (long long v : m.release_ns.download()) r.release_ns.push_back(v);
  u32 abort_word = 0;
  m.abort_word.download(&abort_word, 1);
  r.deadline_hit = abort_word != 0;
}

// ---- the grid barriers that spin inside one kernel ------------------------------------------
// Each returns kPassed, or kGaveUp / kStopped when its deadline (core/cuda/deadline.cuh) or another
// block's ended the wait; grid.sync() and the launch boundary need no code here.

inline constexpr unsigned FULL_MASK = 0xffffffffu;
inline constexpr unsigned kAbortPollMask = 1023;  // a spinner looks at the abort word every 1024 tries

// PTX memory-model operations at GPU scope (PTX ISA, "Memory Consistency Model"; sm_70+).
using cuda::fence_acquire_gpu;
using cuda::ld_relaxed_gpu;
using cuda::ld_volatile;
using cuda::atom_acq_rel_gpu_add;
using cuda::atom_release_gpu_add;
using cuda::red_release_gpu_add;
using cuda::st_release_gpu;
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
// Thread 0 of the leader: `code` into the shared word of every block of the cluster (its own too).
// The whole cluster meets; the leader's warp arrives with release, the others relaxed (`.aligned`:
// every warp arrives converged). Returns what the leader told the cluster.
// own-cluster's start: every block zeroes its shared word before the cluster first meets (so no
// leader's word can come before the zero), then the leader looks at the grid's abort word for the
// whole cluster: a cluster that starts after some block gave up stops as one, before phase 1.
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
// The arrivals still missing at barrier k, over every counter (two counters: both loads first).
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

// own-tree: a combining tree of arity K, the design that cuts the arrivals on one word (issue: when
// does a tree pay?). Thread 0 adds 1 to its node of level 1 with atom.acq_rel and gets the count
// before it; the child that brings the node to k x its children (counters only grow, as own's) is
// the last of barrier k there, and goes on to the node above; the others stop climbing. The last
// arriver at the root has acquired, node by node, every block's release, and releases them all in
// one st.release of k to the generation word, which every block polls (ld.relaxed, then
// fence.acquire, as own). N arrivals on one word become K on each node, at the price of one
// dependent round trip per level for the last arriver.
__device__ inline int own_tree(const PhaseArgs& a, int k) {
  __syncthreads();
  int r = kPassed;
  if (threadIdx.x == 0) {
    const int arity = a.tree_arity, N = static_cast<int>(gridDim.x);
    u32* generation = a.words + word_layout(N).tree;
    u32* nodes = generation + kOwnStride;
    int index = static_cast<int>(blockIdx.x), width = N, first = 0;  // this level: my index, its width, node numbers from
    bool last = true;
    while (width > 1) {
      const int parent = index / arity, parents = (width + arity - 1) / arity;
      const u32 children = static_cast<u32>(min(arity, width - parent * arity));
      const u32 before = atom_acq_rel_gpu_add(nodes + (first + parent) * kOwnStride, 1u);
      if (before + 1u != static_cast<u32>(k) * children) {
        last = false;
        break;
      }
      index = parent;
      first += parents;
      width = parents;
    }
    if (last) st_release_gpu(generation, static_cast<u32>(k));
    r = wait_for([&] { return reached(ld_relaxed_gpu(generation), static_cast<u32>(k)); }, a.watch);
    fence_acquire_gpu();
  }
  return block_result(r, k);
}

// own-ticket: grid.sync()'s arrival, an atom.add.release whose value comes back, put to use. The
// value says how many arrivals are still to come, and the block sleeps about
// kTicketSleepNsPerArrival for each before its first poll, so that its loads stay out of the way of
// the arrivals still queuing on the word: the contention the cost model measures, and what makes
// own's red, which saves the wait for the value, no faster than grid.sync() (lessons' text). The last
// arriver's own add completes the barrier: it does not poll. Relaxed polls, then fence.acquire, as
// own (the atom reads from every earlier release of the word, so the acquire covers the last
// arriver too). On xf-lock's word: one counter, goal k x N.
__device__ inline int own_ticket(const PhaseArgs& a, int k) {
  __syncthreads();
  int r = kPassed;
  if (threadIdx.x == 0) {
    u32* counter = a.words + word_layout(static_cast<int>(gridDim.x)).counter;
    const u32 goal = static_cast<u32>(k) * gridDim.x;
    const int missing = static_cast<int>(goal - 1u - atom_release_gpu_add(counter, 1u));  // mod 2^32
    if (missing > 0) {
      __nanosleep(static_cast<unsigned>(missing) * kTicketSleepNsPerArrival);
      r = wait_for([&] { return reached(ld_relaxed_gpu(counter), goal); }, a.watch);
    }
    fence_acquire_gpu();
  }
  return block_result(r, k);
}

// ---- the kernels and their launches -------------------------------------------------------------

template <Barrier B>
__device__ __forceinline__ int grid_barrier(const PhaseArgs& a, int k) {
  if constexpr (B == Barrier::xf_lock) return xf_lock(a, k);
  else if constexpr (B == Barrier::xf_lock_unrepaired) return xf_lock_unrepaired(a, k);
  else if constexpr (B == Barrier::xf_lockfree) return xf_lockfree(a, k);
  else if constexpr (B == Barrier::xf_lockfree_unrepaired) return xf_lockfree_unrepaired(a, k);
  else if constexpr (B == Barrier::own) return own(a, k);
  else if constexpr (B == Barrier::own_cluster) return own_cluster(a, k);
  else if constexpr (B == Barrier::own_stagger) return own_stagger(a, k);
  else if constexpr (B == Barrier::own_paced) return own_paced(a, k);
  else if constexpr (B == Barrier::own_tree) return own_tree(a, k);
  else if constexpr (B == Barrier::own_ticket) return own_ticket(a, k);
  else {
    (void)a;
    (void)k;
    cg::this_grid().sync();  // 4. cooperative groups: needs cudaLaunchCooperativeKernel
    return kPassed;
  }
}

// A block that starts after another has given up does nothing (past co-residency that is every
// block that was not resident: it could only start once a resident block had exited).
__device__ bool grid_gave_up(const PhaseArgs& a) {
  __shared__ int s_stop;
  if (threadIdx.x == 0) s_stop = ld_relaxed_gpu(a.watch.timed_out) != 0;
  __syncthreads();
  const bool stop = s_stop != 0;
  __syncthreads();
  return stop;
}

// The multi-phase kernel with one software barrier (or grid.sync) between phases.
template <Barrier B>
__global__ void __launch_bounds__(1024) phases_kernel(PhaseArgs a) {
  const unsigned b = blockIdx.x;
  if constexpr (B == Barrier::own_cluster) {
    if (cluster_start_stopped(a)) {  // the whole cluster, or none of it
      if (threadIdx.x == 0) a.stopped[b] = 1;
      return;
    }
  } else if constexpr (B != Barrier::grid_sync) {
    if (grid_gave_up(a)) {
      if (threadIdx.x == 0) a.stopped[b] = 1;
      return;
    }
  }
  int done = 0;
  for (int p = 1; p <= a.phases; ++p) {
    phase(a, p);
    done = p;
    if (p == a.phases) break;
    if (p == 1 && threadIdx.x == 0) a.arrive_ns[b] = now_ns();
    const int r = grid_barrier<B>(a, p);
    if (r != kPassed) {
      if (threadIdx.x == 0) (r == kGaveUp ? a.gave_up : a.stopped)[b] = 1;
      break;
    }
    if (p == 1 && threadIdx.x == 0) a.release_ns[b] = now_ns();
  }
  if (threadIdx.x == 0) a.phases_done[b] = done;
}

// The bench: nothing but barriers.
template <Barrier B>
__global__ void __launch_bounds__(1024) loop_kernel(PhaseArgs a, int barriers) {
  if constexpr (B == Barrier::own_cluster)
    if (cluster_start_stopped(a)) return;
  for (int k = 1; k <= barriers; ++k) {
    const int r = grid_barrier<B>(a, k);
    if (r != kPassed) {
      if (threadIdx.x == 0 && r == kGaveUp) a.gave_up[blockIdx.x] = 1;
      return;
    }
  }
}

// Launches kernel(args...) the way barrier B needs: cooperatively (grid-sync), in clusters of
// s.cluster_size consecutive blocks (own-cluster), or plainly. Returns the launch's error: the
// runtime refuses a cooperative grid past co-residency.
template <Barrier B, typename... Params, typename... Args>
cudaError_t launch(void (*kernel)(Params...), const GpuSpec& s, Args... args) {
  if constexpr (B == Barrier::grid_sync) {
    void* params[] = {&args...};
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(s.blocks), dim3(s.threads), params, 0,
                                       nullptr);
  } else if constexpr (B == Barrier::own_cluster) {
    return cuda::launch_in_clusters(kernel, s.blocks, s.threads, s.cluster_size, nullptr, args...);
  } else {
    kernel<<<s.blocks, s.threads>>>(args...);
    return cudaGetLastError();
  }
}

// Calls f(std::integral_constant<Barrier, b>) for a barrier b that spins inside one kernel (all but
// relaunch and graph, the first two): the kernels are templates on it.
template <int I = static_cast<int>(Barrier::xf_lock), typename F>
auto in_kernel(Barrier b, F f) {
  if constexpr (I < static_cast<int>(kLastBarrier))
    if (static_cast<int>(b) != I) return in_kernel<I + 1>(b, f);
  return f(std::integral_constant<Barrier, static_cast<Barrier>(I)>{});
}

template <typename Kernel>
int blocks_per_sm(Kernel k, int threads) {
  int n = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, 0));
  return n;
}

template <Barrier B>
double loop_ms(Buffers& m, const PhaseArgs& a, const GpuSpec& s, int barriers) {
  CUDA_CHECK(cudaMemsetAsync(m.words.get(), 0, m.words.bytes()));
  cuda::Event e0, e1;
  e0.record();
  CUDA_CHECK(launch<B>(loop_kernel<B>, s, a, barriers));
  e1.record();
  return static_cast<double>(cuda::elapsed_ms(e0, e1));
}

template <Barrier B>
Timing time_loop(const GpuSpec& s, int reps, int k1, int k2) {
  Buffers m(s.blocks, s.threads);
  m.reset();
  const PhaseArgs a = m.args(s);
  Timing t;
  (void)loop_ms<B>(m, a, s, k1);  // warm-up
  for (int i = 0; i < reps; ++i) {
    const double t1 = loop_ms<B>(m, a, s, k1);
    const double t2 = loop_ms<B>(m, a, s, k2);
    t.ns.push_back((t2 - t1) * 1e6 / static_cast<double>(k2 - k1));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  u32 abort_word = 0;
  m.abort_word.download(&abort_word, 1);
  t.deadline_hit = abort_word != 0;
  return t;
}

// Relaunch: one launch per phase. Barrier 1 "arrives" when block b of kernel 1 has written and
// "releases" when block b of kernel 2 starts.
__global__ void __launch_bounds__(1024) relaunch_kernel(PhaseArgs a, int p) {
  const unsigned b = blockIdx.x;
  if (p == 2 && threadIdx.x == 0) a.release_ns[b] = now_ns();
  phase(a, p);
  if (p == 1) {
    __syncthreads();
    if (threadIdx.x == 0) a.arrive_ns[b] = now_ns();
  }
  if (threadIdx.x == 0) a.phases_done[b] = p;
}

// What relaunch costs: an empty grid of the same shape.
__global__ void __launch_bounds__(1024) empty_kernel(int* sink) {
  if (sink != nullptr && threadIdx.x == 0 && blockIdx.x == 0x7fffffff) *sink = 1;
}

// The floor: each atomic's address depends on the previous one's result (v < 2^31, so it is always
// word 0, but the hardware cannot know): one L2 round trip per atomic.
__global__ void floor_kernel(u32* word, int chain, long long* ns) {
  u32 v = 0;
  const unsigned long long t0 = globaltimer_ns();
  for (int i = 0; i < chain; ++i) v = atomicAdd(word + (v >> 31), 1u);
  const unsigned long long t1 = globaltimer_ns();
  ns[0] = static_cast<long long>(t1 - t0);
  ns[1] = v;
}

__global__ void timer_step_kernel(long long* out) {
  unsigned long long prev = globaltimer_ns(), best = ~0ull;
  for (int i = 0; i < 20000; ++i) {
    const unsigned long long t = globaltimer_ns();
    if (t != prev && t - prev < best) best = t - prev;
    prev = t;
  }
  out[0] = static_cast<long long>(best);
}

GpuRun run_launches(const GpuSpec& s, const std::vector<std::uint32_t>& x0, bool graph) {
  GpuRun r;
  r.barrier = graph ? Barrier::graph : Barrier::relaunch;
  Buffers m(s.blocks, s.threads);
  PhaseArgs a = m.prepare(s, x0);
  cuda::Event start, stop;
  if (!graph) {
    start.record();
    for (int p = 1; p <= s.phases; ++p) {
      relaunch_kernel<<<s.blocks, s.threads>>>(a, p);
      CUDA_CHECK_LAUNCH();
    }
    stop.record();
  } else {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int p = 1; p <= s.phases; ++p) relaunch_kernel<<<s.blocks, s.threads, 0, stream>>>(a, p);
    CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    start.record(stream);
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    stop.record(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(g));
    CUDA_CHECK(cudaStreamDestroy(stream));
  }
  r.kernel_ms = cuda::elapsed_ms(start, stop);
  collect(r, m, s);
  return r;
}

Timing time_launches(const GpuSpec& s, int reps, int launches, bool graph) {
  Timing t;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraphExec_t exec = nullptr;
  if (graph) {
    cudaGraph_t g = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < launches; ++i) empty_kernel<<<s.blocks, s.threads, 0, stream>>>(nullptr);
    CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    CUDA_CHECK(cudaGraphDestroy(g));
  }
  const auto once = [&] {
    if (graph) {
      CUDA_CHECK(cudaGraphLaunch(exec, stream));
    } else {
      for (int i = 0; i < launches; ++i) empty_kernel<<<s.blocks, s.threads, 0, stream>>>(nullptr);
      CUDA_CHECK_LAUNCH();
    }
  };
  once();  // warm-up (and the graph's upload)
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (int i = 0; i < reps; ++i) {
    cuda::Event e0, e1;
    e0.record(stream);
    once();
    e1.record(stream);
    t.ns.push_back(static_cast<double>(cuda::elapsed_ms(e0, e1)) * 1e6 / launches);
  }
  if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return t;
}

}  // namespace

Limits gpu_limits(int threads, int device) {
  Limits g;
  int coop = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  g.cooperative_launch = coop != 0;
  g.software = cuda::coresidency_of(phases_kernel<Barrier::own>, threads, 0, device);
  const int per_sm[] = {
      blocks_per_sm(phases_kernel<Barrier::xf_lock>, threads),      blocks_per_sm(phases_kernel<Barrier::xf_lockfree>, threads),
      blocks_per_sm(phases_kernel<Barrier::xf_lock_unrepaired>, threads), blocks_per_sm(phases_kernel<Barrier::xf_lockfree_unrepaired>, threads),
      blocks_per_sm(loop_kernel<Barrier::xf_lock>, threads),        blocks_per_sm(loop_kernel<Barrier::xf_lockfree>, threads),
      blocks_per_sm(loop_kernel<Barrier::own>, threads)};
  for (int n : per_sm) g.software.blocks_per_sm = std::min(g.software.blocks_per_sm, n);
  g.candidates = g.software;  // the bench's own candidates: never lower the lesson's own limit
  for (int n : {blocks_per_sm(loop_kernel<Barrier::own_stagger>, threads), blocks_per_sm(loop_kernel<Barrier::own_paced>, threads),
                blocks_per_sm(phases_kernel<Barrier::own_stagger>, threads),
                blocks_per_sm(phases_kernel<Barrier::own_paced>, threads)})
    g.candidates.blocks_per_sm = std::min(g.candidates.blocks_per_sm, n);
  // own-tree and own-ticket apart: own-stagger's phase kernel needs 47 registers a thread on sm_90 (5
  // blocks of 256 per SM), own-tree's 32 (8), so these two are timed at full co-residency too.
  g.lean = g.software;
  for (int n : {blocks_per_sm(loop_kernel<Barrier::own_tree>, threads), blocks_per_sm(phases_kernel<Barrier::own_tree>, threads),
                blocks_per_sm(loop_kernel<Barrier::own_ticket>, threads),
                blocks_per_sm(phases_kernel<Barrier::own_ticket>, threads)})
    g.lean.blocks_per_sm = std::min(g.lean.blocks_per_sm, n);
  g.cooperative = cuda::coresidency_of(phases_kernel<Barrier::grid_sync>, threads, 0, device);
  g.cooperative.blocks_per_sm =
      std::min(g.cooperative.blocks_per_sm, blocks_per_sm(loop_kernel<Barrier::grid_sync>, threads));
  // own-cluster only: a GPU or build without clusters waives own-cluster, never the other barriers.
  try {
    g.cluster_unsupported = cuda::cluster_unsupported(phases_kernel<Barrier::own_cluster>, device);
    if (g.cluster_unsupported.empty())
      for (int cs : kClusterSizes) {
        Coresidency c = cuda::cluster_coresidency_of(phases_kernel<Barrier::own_cluster>, threads, 0, cs, device);
        const Coresidency l = cuda::cluster_coresidency_of(loop_kernel<Barrier::own_cluster>, threads, 0, cs, device);
        c.clusters = std::min(c.clusters, l.clusters);
        g.clusters.push_back(c);
      }
  } catch (const cuda::CudaError& e) {
    (void)cudaGetLastError();
    g.cluster_unsupported = words::say("lockfree-barrier", "gpu.cluster-sizing-failed", {{"error", e.what()}});
    g.clusters.clear();
  }
  return g;
}

GpuRun gpu_run(Barrier b, const GpuSpec& s, const std::vector<std::uint32_t>& x0) {
  if (b == Barrier::relaunch || b == Barrier::graph) return run_launches(s, x0, b == Barrier::graph);
  GpuRun r;
  r.barrier = b;
  Buffers m(s.blocks, s.threads);
  PhaseArgs a = m.prepare(s, x0);
  cuda::Event start, stop;
  start.record();
  const cudaError_t e = in_kernel(b, [&](auto B) {
    constexpr Barrier K = decltype(B)::value;
    return launch<K>(phases_kernel<K>, s, a);
  });
  if (e == cudaErrorCooperativeLaunchTooLarge) {
    (void)cudaGetLastError();  // not sticky
    r.refused = words::say("lockfree-barrier", "gpu.refused-by-runtime",
                           {{"error", cudaGetErrorString(e)}, {"name", cudaGetErrorName(e)}});
    return r;
  }
  CUDA_CHECK(e);
  stop.record();
  r.kernel_ms = cuda::elapsed_ms(start, stop);
  collect(r, m, s);
  return r;
}

Timing gpu_time(Barrier b, const GpuSpec& s, int reps, int k1, int k2) {
  if (!needs_coresidency(b)) return time_launches(s, reps, k1, b == Barrier::graph);
  return in_kernel(b, [&](auto B) {
    constexpr Barrier K = decltype(B)::value;
    if constexpr (is_correct(K)) return time_loop<K>(s, reps, k1, k2);
    return Timing{};  // the transcription's barriers are not timed
  });
}

std::vector<double> gpu_floor_ns(int reps, int chain) {
  DeviceBuffer<u32> word(1);
  DeviceBuffer<long long> ns(2);
  word.fill_bytes(0);
  std::vector<double> out;
  floor_kernel<<<1, 1>>>(word.get(), chain, ns.get());  // warm-up
  CUDA_CHECK_LAUNCH();
  for (int i = 0; i < reps; ++i) {
    floor_kernel<<<1, 1>>>(word.get(), chain, ns.get());
    CUDA_CHECK_LAUNCH();
    long long h[2] = {0, 0};
    ns.download(h, 2);
    out.push_back(static_cast<double>(h[0]) / chain);
  }
  return out;
}

double gpu_timer_step_ns() {
  DeviceBuffer<long long> out(1);
  timer_step_kernel<<<1, 1>>>(out.get());
  CUDA_CHECK_LAUNCH();
  long long h = 0;
  out.download(&h, 1);
  return static_cast<double>(h);
}

}  // namespace cudasync::lockfree_barrier
