#pragma once
// What the GPU measures for the cost model (core/cost/model.hpp): one probe is one small kernel (or
// one launch sequence) timed on its own, in the same run as the bench it explains. Plain data only:
// nvcc compiles this header too (core/cost/cost_kernels.cu), so it includes the standard library
// alone.
//
// A "contended" probe is the workhorse: one thread, the actor (block 0, thread 0), times `op`
// while every other participant of a <<<blocks, threads>>> grid keeps up `background` on one
// shared word, all of them resident at once and started together (a start gate). For example
//   {Probe::contended, Op::cas_round, Background::cas, blocks 132, threads 1}
// is how long one compare-and-swap on a lock word takes while 131 other blocks spin on it with
// compare-and-swaps: the queue a lock's release waits in at <<<132, 1>>>.
#include <string>
#include <vector>

namespace cudasync::cost {

enum class Probe : int {
  contended = 0,    // the actor's `op` under `background`: ns per op
  poll_latency,     // one block changes a word; `blocks` blocks poll it: ns until the last one sees it
  sync,             // __syncthreads() in one block of `threads`: ns per barrier
  cluster_barrier,  // barrier.cluster arrive (release by rank 0, relaxed by the others) + wait.acquire: ns per barrier (sm_90)
  grid_sync,        // cooperative_groups grid.sync() over <<<blocks, threads>>>: ns per barrier
  launch_1,         // one empty launch between two events, as the benches time a call: ns per call
  launch_memset_1,  // cudaMemsetAsync of one word + one empty launch: ns per call
  launch_2,         // two empty launches: ns per call
  launch_coop,      // one cooperative launch of an empty kernel: ns per call
  empty_blocks,     // one launch of `blocks` empty blocks of `threads`: ns per call
  atomic_blocks,    // one launch of `blocks` blocks of `threads`; thread 0 of each: one atomicAdd (float or double: `wide`) to one word: ns per call
  stream_read,      // one launch reading `bytes` of the caller's own input (the caller measures it): ns per call
  arrive_poll,      // thread 0 of `blocks` blocks runs a barrier's `protocol`, round after round: ns per round
  lock_handoff,     // a lock lesson kernel with an empty critical section (the caller measures it): ns per acquisition
};

// What the actor times in a contended probe (each a chain of `ops`, the next one waiting where the
// hardware makes it wait).
enum class Op : int {
  atomic_round = 0,  // atomicAdd on the shared word, each address depending on the last result
  cas_round,         // atomicCAS(word, 0, 1) on the shared word (held at 1: it always fails), dependent
  poll_round,        // ld.relaxed.gpu of the shared word, dependent
  load,              // ld.relaxed.gpu of a private chain, a new 128-byte line each step: one L2 round trip
  fence_sc,          // __threadfence() (fence.sc.gpu) with nothing outstanding
  fence_rel,         // fence.acq_rel.gpu (what red.release and st.release put before their access)
  fence_acquire,     // fence.acquire.gpu (on sm_90 a CCTL.IVALL: the L1 dropped)
  store_fence_sc,    // a store to a private line, then __threadfence(): the fence waits for the store
  store_release,     // a store to a private line, then st.release.gpu to another: a lock's unlock
  store_issue,       // a relaxed store to the next word of a private array, no wait: ns per store issued
};

// What every other participant does until the actor is done.
enum class Background : int {
  none = 0,   // the actor is alone
  atomic,     // thread 0 of every block: dependent atomicAdd chains on the word (barrier arrivals)
  fence_sc,   // thread 0 of every block: __threadfence() in a loop (every block fencing at once)
  fence_rel,  // thread 0 of every block: fence.acq_rel.gpu in a loop
  cas,        // every thread: atomicCAS(word, 0, 1) in a loop (a spin lock's waiters)
  cas_sleep,  // every thread: atomicCAS, then __nanosleep, twice as long after each try, 32 .. 2048 ns
  poll,       // every thread: ld.relaxed.gpu of the word in a loop (test-and-test-and-set waiters)
  ticket,     // every thread: ld.acquire.gpu of the word, sleeping min(rank x 64, 4096) ns between polls
  leaders,    // lane 0 of every warp: atomicCAS in a loop (warp-aggregated waiters); the other lanes idle
  slots,      // every thread: ld.relaxed.gpu of its own slot, the word on every 4th poll (combining waiters)
};

enum class PollKind : int { relaxed = 0, acquire, volatile_load };

// The part of a grid barrier that thread 0 of each block runs between the block's two
// __syncthreads(), as an arrive_poll probe runs it: the arrival with its fence, the polls, and what
// follows them. Measured as one primitive because its parts slow each other down when they meet:
// the sum of each measured alone under-predicted the barriers by up to 1.9x (docs/design/cost-model.md).
enum class Protocol : int {
  own = 0,    // red.release on counter b % C; relaxed polls (lanes 0..C-1 of warp 0, a vote); fence.acquire
  grid_sync,  // atom.add.release, its value waited for; acquire polls (CUDA 13's grid.sync())
  xf_lock,    // __threadfence(); atomicAdd (no value used); volatile polls; __threadfence()
  tree,       // own-tree: atom.acq_rel up a tree of `arity`; the root's last st.release; relaxed polls; fence.acquire
  ticket,     // atom.add.release, its value waited for; `sleep_ns` per arrival still to come; relaxed polls; fence.acquire
};

struct ProbeSpec {
  Probe probe = Probe::contended;
  Op op = Op::atomic_round;
  Background background = Background::none;
  PollKind poll = PollKind::relaxed;
  int blocks = 1;
  int threads = 1;
  int pollers = 1;    // poll_latency, arrive_poll (own): pollers per block, each its own warp, started apart (staggered)
  Protocol protocol = Protocol::own;  // arrive_poll
  int counters = 1;   // arrive_poll, own: block b arrives on counter b % counters; lane l of warp 0 polls counter l
  int arity = 8;      // arrive_poll, tree: children per node
  int sleep_ns = 0;   // arrive_poll, ticket: ns a block sleeps for each arrival still to come before it polls
  int cluster = 1;    // cluster_barrier: blocks per cluster
  bool wide = false;  // atomic_blocks: double instead of float
  long long bytes = 0;  // stream_read
  int reps = 5;       // samples (launches)
};

// Samples in ns, one per launch, or why the probe could not run here (skipped non-empty).
struct ProbeResult {
  std::vector<double> ns;
  std::string skipped;
};

}  // namespace cudasync::cost
