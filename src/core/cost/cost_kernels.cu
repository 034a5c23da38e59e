// The cost model's probes that spin: a contended probe (one actor timing an operation while every
// other participant keeps up a background on one shared word) and the poll latency (one writer,
// many pollers). Every wait is bounded by a %globaltimer deadline and the grid must be resident
// at once: the host checks the occupancy first and skips a probe whose grid does not fit. The
// launch-timed probes (sync, clusters, grid.sync, launches) are in cost_launch_kernels.cu.
#include <algorithm>
#include <string>

#include "core/cost/cost_gpu.hpp"
#include "core/cost/cost_probe.cuh"

namespace cudasync::cost::gpu {

namespace {

// ---- contended ---------------------------------------------------------------------------------

struct ContendedArgs {
  u32* word;       // the shared word (two words: chains index word[v >> 31], always word[0])
  u32* gate;       // the start gate: participants arrive, then wait for all of them
  u32* done;       // the actor sets it when its ops are done
  u32* chain;      // the actor's private load chain (kChainWords)
  u32* scratch;    // the actor's private stores (kScratchWords)
  u32* slots;      // the slots background: one per thread
  u32* timed_out;  // a wait reached its deadline
  long long* ns;   // [0]: the actor's ops, %globaltimer
  u32* sink;
  int participants;
  int ops;
  Op op;
  Background bg;
};

__device__ __forceinline__ bool background_member(Background bg, bool block_leader, bool warp_leader) {
  switch (bg) {
    case Background::none: return false;
    case Background::atomic:
    case Background::fence_sc:
    case Background::fence_rel: return block_leader;
    case Background::leaders: return warp_leader;
    default: return true;
  }
}

__device__ u32 actor_ops(const ContendedArgs& a) {
  u32 v = 0;
  for (int i = 0; i < a.ops; ++i) {
    const unsigned u = static_cast<unsigned>(i);
    switch (a.op) {
      case Op::atomic_round: v = atomicAdd(a.word + (v >> 31), 1u); break;
      case Op::cas_round: v = atomicCAS(a.word + (v >> 31), 0u, 1u); break;
      case Op::poll_round: v = cuda::ld_relaxed_gpu(a.word + (v >> 31)); break;
      case Op::load: v = cuda::ld_relaxed_gpu(a.chain + (v % kChainWords)); break;
      case Op::fence_sc: __threadfence(); break;
      case Op::fence_rel: cuda::fence_acq_rel_gpu(); break;
      case Op::fence_acquire: cuda::fence_acquire_gpu(); break;
      case Op::store_fence_sc:
        st_plain(a.scratch + (u * kLineWords) % kScratchWords, u);
        __threadfence();
        break;
      case Op::store_release:
        st_plain(a.scratch + (u * kLineWords) % kScratchWords, u);
        cuda::st_release_gpu(a.scratch + kScratchWords, u);
        break;
      case Op::store_issue: cuda::st_relaxed_gpu(a.scratch + u % kScratchWords, u + v); break;
    }
  }
  return v;
}

// One step of a background participant. Like a waiter's loop, whose condition reads the result,
// each access waits for the one before: its address depends on the last value (`last >> 31` is
// always 0, but the hardware cannot know). `sleep` and `tries` are the participant's own.
__device__ __forceinline__ u32 background_step(const ContendedArgs& a, unsigned tid, u32 last, unsigned& sleep,
                                               unsigned tries) {
  u32* word = a.word + (last >> 31);
  switch (a.bg) {
    case Background::atomic: return atomicAdd(word, 1u);
    case Background::fence_sc: __threadfence(); return 0;
    case Background::fence_rel: cuda::fence_acq_rel_gpu(); return 0;
    case Background::cas:
    case Background::leaders: return atomicCAS(word, 0u, 1u);
    case Background::cas_sleep: {
      const u32 r = atomicCAS(word, 0u, 1u);
      __nanosleep(sleep);
      sleep = min(2 * sleep, 2048u);
      return r;
    }
    case Background::poll: return cuda::ld_relaxed_gpu(word);
    case Background::ticket: {  // ranked by thread: the next in line polls hard, the others sleep
      const u32 r = cuda::ld_acquire_gpu(word);
      const unsigned ns = min(tid * 64u, 4096u);
      if (ns > 0) __nanosleep(ns);
      return r;
    }
    case Background::slots:  // its own slot; the lock word on every 4th poll
      return cuda::ld_relaxed_gpu((tries & 3u) == 0 ? word : a.slots + tid + (last >> 31));
    default: return 0;
  }
}

__global__ void contended_kernel(ContendedArgs a) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const bool actor = tid == 0;
  const bool member = actor || background_member(a.bg, threadIdx.x == 0, threadIdx.x % 32 == 0);
  if (!member) return;
  const unsigned long long start = cuda::globaltimer_ns();
  atomicAdd(a.gate, 1u);
  while (cuda::ld_relaxed_gpu(a.gate) < static_cast<u32>(a.participants))
    if (cuda::globaltimer_ns() - start > kDeadlineNs) {
      atomicExch(a.timed_out, 1u);
      return;
    }
  if (actor) {
    const unsigned long long t0 = cuda::globaltimer_ns();
    const u32 v = actor_ops(a);
    const unsigned long long t1 = cuda::globaltimer_ns();
    a.ns[0] = static_cast<long long>(t1 - t0);
    atomicExch(a.done, 1u);
    if (v == 0xdeadbeefu) a.sink[0] = v;
    return;
  }
  unsigned sleep = 32, tries = 0;
  u32 last = 0, acc = 0;
  while (true) {
    last = background_step(a, tid, last, sleep, tries);
    acc ^= last;
    if ((++tries & 7u) != 0) continue;
    if (cuda::ld_relaxed_gpu(a.done) != 0) break;
    if (cuda::globaltimer_ns() - start > kDeadlineNs) {
      atomicExch(a.timed_out, 1u);
      break;
    }
  }
  if (acc == 0xdeadbeefu) a.sink[1] = acc;
}

int members(const ProbeSpec& s) {
  const int threads = s.blocks * s.threads;
  switch (s.background) {
    case Background::none: return 1;
    case Background::atomic:
    case Background::fence_sc:
    case Background::fence_rel: return s.blocks;
    case Background::leaders: return s.blocks * ((s.threads + 31) / 32);
    default: return threads;
  }
}

ProbeResult run_contended(const ProbeSpec& s) {
  ProbeResult r;
  if (const std::string why = unfit(reinterpret_cast<const void*>(contended_kernel), s.blocks, s.threads); !why.empty()) {
    r.skipped = why;
    return r;
  }
  const bool held = s.background == Background::cas || s.background == Background::cas_sleep ||
                    s.background == Background::poll || s.background == Background::leaders ||
                    s.background == Background::slots || s.op == Op::cas_round;
  const int ops = s.op == Op::store_issue ? kScratchWords : kOps;
  Scratch m(static_cast<std::size_t>(s.blocks) * static_cast<std::size_t>(s.threads));
  ContendedArgs a{m.word.get(), m.gate.get(),  m.done.get(), m.chain.get(), m.scratch.get(), m.slots.get(),
                  m.timed_out.get(), m.ns.get(), m.sink.get(), members(s),  ops,           s.op,
                  s.background};
  for (int rep = -1; rep < s.reps; ++rep) {  // rep -1: warm-up
    m.reset(held ? 1u : 0u);
    contended_kernel<<<s.blocks, s.threads>>>(a);
    CUDA_CHECK_LAUNCH();
    long long ns = 0;
    m.ns.download(&ns, 1);
    if (m.timed_out_now()) {
      r.ns.clear();
      r.skipped = "a wait reached its deadline (" + std::to_string(kDeadlineNs / 1000000) + " ms)";
      return r;
    }
    if (rep >= 0) r.ns.push_back(static_cast<double>(ns) / ops);
  }
  return r;
}

// ---- arrive, then poll: a barrier's protocol --------------------------------------------------
// Thread 0 of every block runs one grid barrier's protocol (Protocol: the arrival with its fence,
// the polls, what follows them), round after round, without the barrier's __syncthreads(): block 0
// times kArrivePollRounds rounds after a start gate. Counters and tree nodes only grow (round r's
// goal is r x the arrivals), so nothing is reset between rounds. Every wait has the deadline.

inline constexpr int kArrivePollRounds = 64;
inline constexpr int kWordStride = 64;  // words between two counters or nodes (256 bytes: the lesson's layout)

struct ArrivePollArgs {
  u32* words;     // own: counter l at l * kWordStride; tree: the generation word, then node i at (i + 1) * kWordStride
  u32* gate;
  u32* timed_out;
  long long* ns;  // [0]: block 0's rounds, %globaltimer
  Protocol protocol;
  int counters;   // own
  int arity;      // tree
  int pollers;    // own: K poller warps a block (stagger_kernel)
  int sleep_ns;   // ticket: per arrival still to come
};

__device__ __forceinline__ u32 poll_load(const u32* p, PollKind k) {
  switch (k) {
    case PollKind::acquire: return cuda::ld_acquire_gpu(p);
    case PollKind::volatile_load: return cuda::ld_volatile(p);
    default: return cuda::ld_relaxed_gpu(p);
  }
}

__device__ bool wait_at_least(const u32* p, u32 goal, unsigned long long start, u32* timed_out) {
  while (cuda::ld_relaxed_gpu(p) < goal)
    if (cuda::globaltimer_ns() - start > kDeadlineNs) {
      atomicExch(timed_out, 1u);
      return false;
    }
  return true;
}

// Spins, `mask`'s lanes together, until every lane's `reached()` holds; false at the deadline (or
// once another block has given up), after telling the others.
template <typename Reached>
__device__ bool poll_until(unsigned mask, unsigned long long start, u32* timed_out, Reached reached) {
  bool done = false;
  unsigned tries = 0;
  while (true) {
    if (!done) done = reached();
    if (__all_sync(mask, done)) return true;
    if ((++tries & 63u) != 0) continue;
    const bool late = cuda::globaltimer_ns() - start > kDeadlineNs || cuda::ld_relaxed_gpu(timed_out) != 0;
    if (__any_sync(mask, late)) {
      if ((threadIdx.x & 31u) == 0) atomicExch(timed_out, 1u);
      return false;
    }
  }
}

// own-tree's climb for round r: true for the last arriver at the root, which releases the round.
__device__ bool tree_climb(const ArrivePollArgs& a, u32 r) {
  u32* nodes = a.words + kWordStride;
  int index = static_cast<int>(blockIdx.x), width = static_cast<int>(gridDim.x), first = 0;
  while (width > 1) {
    const int parent = index / a.arity, parents = (width + a.arity - 1) / a.arity;
    const u32 children = static_cast<u32>(min(a.arity, width - parent * a.arity));
    if (cuda::atom_acq_rel_gpu_add(nodes + (first + parent) * kWordStride, 1u) + 1u != r * children) return false;
    index = parent;
    first += parents;
    width = parents;
  }
  return true;
}

// One round of the protocol; false when a wait gave up.
__device__ bool protocol_round(const ArrivePollArgs& a, u32 r, unsigned mask, unsigned long long start) {
  const unsigned N = gridDim.x, lane = threadIdx.x & 31u;
  switch (a.protocol) {
    case Protocol::grid_sync: {
      const u32 old = cuda::atom_release_gpu_add(a.words, 1u);
      const u32* p = a.words + (old >> 31);  // waits for the value, as grid.sync()'s loop compares with it
      return poll_until(mask, start, a.timed_out, [&] { return poll_load(p, PollKind::acquire) >= r * N; });
    }
    case Protocol::xf_lock: {
      __threadfence();
      atomicAdd(a.words, 1u);  // the value unused: a RED, as in the lesson's kernel
      const bool ok = poll_until(mask, start, a.timed_out, [&] { return cuda::ld_volatile(a.words) >= r * N; });
      __threadfence();
      return ok;
    }
    case Protocol::ticket: {
      const u32 goal = r * N;
      const int missing = static_cast<int>(goal - 1u - cuda::atom_release_gpu_add(a.words, 1u));
      bool ok = true;
      if (missing > 0) {
        __nanosleep(static_cast<unsigned>(missing) * static_cast<unsigned>(a.sleep_ns));
        ok = poll_until(mask, start, a.timed_out, [&] { return cuda::ld_relaxed_gpu(a.words) >= goal; });
      }
      cuda::fence_acquire_gpu();
      return ok;
    }
    case Protocol::tree: {
      if (tree_climb(a, r)) cuda::st_release_gpu(a.words, r);
      const bool ok = poll_until(mask, start, a.timed_out, [&] { return cuda::ld_relaxed_gpu(a.words) >= r; });
      cuda::fence_acquire_gpu();
      return ok;
    }
    default: {  // own
      const unsigned C = static_cast<unsigned>(a.counters);
      if (lane == 0) cuda::red_release_gpu_add(a.words + (blockIdx.x % C) * kWordStride, 1u);
      const u32* mine = a.words + (lane < C ? lane : 0) * kWordStride;
      const u32 goal = lane < C ? r * ((N - lane + C - 1) / C) : 0u;
      const bool ok = poll_until(mask, start, a.timed_out, [&] { return cuda::ld_relaxed_gpu(mine) >= goal; });
      cuda::fence_acquire_gpu();
      return ok;
    }
  }
}

__global__ void arrive_poll_kernel(ArrivePollArgs a) {
  // own with C > 1 counters: warp 0 polls them, one lane each, and votes; else thread 0 alone.
  const bool warp = a.protocol == Protocol::own && a.counters > 1;
  if (!warp && threadIdx.x != 0) return;
  const unsigned mask = warp ? 0xffffffffu : 1u;
  const unsigned long long start = cuda::globaltimer_ns();
  bool ok = true;
  if (threadIdx.x == 0) {
    atomicAdd(a.gate, 1u);
    ok = wait_at_least(a.gate, gridDim.x, start, a.timed_out);
  }
  if (!__shfl_sync(mask, ok, 0)) return;
  const unsigned long long t0 = cuda::globaltimer_ns();
  for (u32 r = 1; r <= static_cast<u32>(kArrivePollRounds); ++r)
    if (!protocol_round(a, r, mask, start)) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) a.ns[0] = static_cast<long long>(cuda::globaltimer_ns() - t0);
}

// own's protocol with K pollers a block (own-stagger): thread 0 arrives; lane 0 of warps 0..K-1
// starts kStaggerNs x its warp later and loads every counter until none is short, and the first
// to see it acquires and tells the others through shared memory; a __syncthreads() closes the
// round, as the barrier's does. Every thread stays to the end of each round (none exits before a
// __syncthreads()); a poller that gives up tells the block there, and the block stops together.
__global__ void stagger_kernel(ArrivePollArgs a) {
  __shared__ u32 s_seen;
  __shared__ int s_stop;
  const unsigned N = gridDim.x, C = static_cast<unsigned>(a.counters), warp = threadIdx.x / 32;
  const bool poller = threadIdx.x % 32 == 0 && warp < static_cast<unsigned>(a.pollers);
  const unsigned long long start = cuda::globaltimer_ns();
  if (threadIdx.x == 0) {
    s_seen = 0;
    s_stop = 0;
    atomicAdd(a.gate, 1u);
    if (!wait_at_least(a.gate, N, start, a.timed_out)) s_stop = 1;
  }
  __syncthreads();
  if (s_stop != 0) return;
  const unsigned long long t0 = cuda::globaltimer_ns();
  for (u32 r = 1; r <= static_cast<u32>(kArrivePollRounds); ++r) {
    if (threadIdx.x == 0) cuda::red_release_gpu_add(a.words + (blockIdx.x % C) * kWordStride, 1u);
    if (poller) {
      const unsigned long long from = cuda::globaltimer_ns();
      while (cuda::globaltimer_ns() - from < warp * kStaggerNs) {
      }
      while (*static_cast<volatile u32*>(&s_seen) < r) {
        unsigned missing = 0;
        for (unsigned l = 0; l < C; ++l) {
          const u32 goal = r * ((N - l + C - 1) / C), v = cuda::ld_relaxed_gpu(a.words + l * kWordStride);
          missing += v < goal ? goal - v : 0u;
        }
        if (missing == 0) {
          cuda::fence_acquire_gpu();
          atomicMax(&s_seen, r);
          break;
        }
        if (cuda::globaltimer_ns() - start > kDeadlineNs || cuda::ld_relaxed_gpu(a.timed_out) != 0) {
          atomicExch(a.timed_out, 1u);
          s_stop = 1;
          break;
        }
      }
    }
    __syncthreads();
    if (s_stop != 0) return;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) a.ns[0] = static_cast<long long>(cuda::globaltimer_ns() - t0);
}

ProbeResult run_arrive_poll(const ProbeSpec& s) {
  ProbeResult r;
  const bool stagger = s.protocol == Protocol::own && s.pollers > 1;
  const int threads = stagger ? 32 * std::min(s.pollers, 32) : 32;
  const void* kernel = stagger ? reinterpret_cast<const void*>(stagger_kernel) : reinterpret_cast<const void*>(arrive_poll_kernel);
  if (const std::string why = unfit(kernel, s.blocks, threads); !why.empty()) {
    r.skipped = why;
    return r;
  }
  // own: its counters; the tree: the generation word and at most 2 x blocks nodes; else one word.
  const std::size_t words =
      static_cast<std::size_t>(s.protocol == Protocol::tree ? 1 + 2 * s.blocks : std::max(1, s.counters)) * kWordStride;
  cuda::DeviceBuffer<u32> w(words), flags(2);
  cuda::DeviceBuffer<long long> ns(1);
  const ArrivePollArgs a{w.get(), flags.get(), flags.get() + 1, ns.get(), s.protocol,
                         std::max(1, std::min(s.counters, 32)), std::max(2, s.arity), std::max(1, s.pollers),
                         std::max(0, s.sleep_ns)};
  for (int rep = -1; rep < s.reps; ++rep) {  // rep -1: warm-up
    w.fill_bytes(0);
    flags.fill_bytes(0);
    ns.fill_bytes(0);
    if (stagger) stagger_kernel<<<s.blocks, threads>>>(a);
    else arrive_poll_kernel<<<s.blocks, 32>>>(a);
    CUDA_CHECK_LAUNCH();
    long long t = 0;
    ns.download(&t, 1);
    u32 f[2] = {0, 0};
    flags.download(f, 2);
    if (f[1] != 0) {
      r.ns.clear();
      r.skipped = "a wait reached its deadline (" + std::to_string(kDeadlineNs / 1000000) + " ms)";
      return r;
    }
    if (rep >= 0) r.ns.push_back(static_cast<double>(t) / kArrivePollRounds);
  }
  return r;
}

// ---- poll latency ------------------------------------------------------------------------------

struct PollArgs {
  u32* word;         // what the writer changes: red.add 1 per round
  u32* gate;         // poller blocks arrive before round 1
  u32* seen;         // blocks that have seen the current round
  u32* timed_out;
  long long* t_write;  // [round]: the writer's %globaltimer just before its red
  long long* t_seen;   // [round * blocks + b]: when block b first saw the round
  int blocks;          // poller blocks (the writer is block `blocks`)
  int rounds;
  int pollers;
  PollKind kind;
};

__global__ void poll_kernel(PollArgs a) {
  const unsigned long long start = cuda::globaltimer_ns();
  const int b = static_cast<int>(blockIdx.x);
  if (b == a.blocks) {  // the writer
    if (threadIdx.x != 0 || !wait_at_least(a.gate, static_cast<u32>(a.blocks), start, a.timed_out)) return;
    for (int r = 1; r <= a.rounds; ++r) {
      if (!wait_at_least(a.seen, static_cast<u32>((r - 1) * a.blocks), start, a.timed_out)) return;
      const unsigned long long t = cuda::globaltimer_ns();
      while (cuda::globaltimer_ns() - t < kRoundGapNs) {
      }
      a.t_write[r - 1] = static_cast<long long>(cuda::globaltimer_ns());
      cuda::red_relaxed_gpu_add(a.word, 1u);
    }
    return;
  }
  __shared__ int s_round;  // the last round some poller of this block has seen
  const int warp = static_cast<int>(threadIdx.x / 32);
  if (threadIdx.x == 0) {
    s_round = 0;
    atomicAdd(a.gate, 1u);
  }
  __syncthreads();
  if (threadIdx.x % 32 != 0 || warp >= a.pollers) return;
  for (int r = 1; r <= a.rounds; ++r) {
    const unsigned long long from = cuda::globaltimer_ns();  // pollers of one block start apart
    while (cuda::globaltimer_ns() - from < static_cast<unsigned long long>(warp) * kStaggerNs) {
    }
    while (true) {
      if (*static_cast<volatile int*>(&s_round) >= r) break;
      if (poll_load(a.word, a.kind) >= static_cast<u32>(r)) {
        if (atomicCAS(&s_round, r - 1, r) == r - 1) {
          a.t_seen[static_cast<long long>(r - 1) * a.blocks + b] = static_cast<long long>(cuda::globaltimer_ns());
          atomicAdd(a.seen, 1u);
        }
        break;
      }
      if (cuda::globaltimer_ns() - start > kDeadlineNs) {
        atomicExch(a.timed_out, 1u);
        return;
      }
    }
  }
}

ProbeResult run_poll(const ProbeSpec& s) {
  ProbeResult r;
  const int threads = 32 * std::max(1, s.pollers);
  if (const std::string why = unfit(reinterpret_cast<const void*>(poll_kernel), s.blocks + 1, threads); !why.empty()) {
    r.skipped = why;
    return r;
  }
  const int rounds = kPollRounds;
  cuda::DeviceBuffer<u32> words(4);
  cuda::DeviceBuffer<long long> t_write(static_cast<std::size_t>(rounds));
  cuda::DeviceBuffer<long long> t_seen(static_cast<std::size_t>(rounds) * static_cast<std::size_t>(s.blocks));
  PollArgs a{words.get(),    words.get() + 1, words.get() + 2, words.get() + 3, t_write.get(), t_seen.get(),
             s.blocks,       rounds,          std::max(1, s.pollers), s.poll};
  for (int rep = -1; rep < s.reps; ++rep) {
    words.fill_bytes(0);
    poll_kernel<<<s.blocks + 1, threads>>>(a);
    CUDA_CHECK_LAUNCH();
    const std::vector<u32> w = words.download();
    if (w[3] != 0) {
      r.ns.clear();
      r.skipped = "a wait reached its deadline (" + std::to_string(kDeadlineNs / 1000000) + " ms)";
      return r;
    }
    if (rep < 0) continue;
    const std::vector<long long> tw = t_write.download(), ts = t_seen.download();
    // One sample per launch: the median over rounds of (the last block to see it - the write).
    std::vector<double> last;
    for (int k = 0; k < rounds; ++k) {
      long long worst = 0;
      for (int b = 0; b < s.blocks; ++b)
        worst = std::max(worst, ts[static_cast<std::size_t>(k) * static_cast<std::size_t>(s.blocks) + b] - tw[k]);
      last.push_back(static_cast<double>(worst));
    }
    std::nth_element(last.begin(), last.begin() + rounds / 2, last.end());
    r.ns.push_back(last[static_cast<std::size_t>(rounds / 2)]);
  }
  return r;
}

}  // namespace

ProbeResult run_spin_probe(const ProbeSpec& s) {
  switch (s.probe) {
    case Probe::poll_latency: return run_poll(s);
    case Probe::arrive_poll: return run_arrive_poll(s);
    default: return run_contended(s);
  }
}

}  // namespace cudasync::cost::gpu
