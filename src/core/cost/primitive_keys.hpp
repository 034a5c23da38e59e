#pragma once
// The catalogue of primitives: for each, its key (id and where), its title and the probe that
// measures it. The three models name primitives only through these functions, so that a key
// means one measurement everywhere.
#include "core/cost/model.hpp"

namespace cudasync::cost::prim {

const char* op_id(Op op);                // "cas-round", "store-release", ...
const char* background_id(Background b);  // "cas", "cas-sleep", ...
const char* poll_id(PollKind k);          // "relaxed", "acquire", "volatile"
const char* protocol_id(Protocol p);       // "own", "grid-sync", "xf-lock", "tree", "ticket"

Need sync(int threads);                // __syncthreads() in one block of `threads`
Need rt_atomic();                      // dependent atomicAdd, one thread alone: one L2 atomic round trip
Need rt_load();                        // dependent ld.relaxed.gpu, one thread alone: one L2 load round trip
Need fence_acquire();                  // fence.acquire.gpu, one thread alone
Need store_issue();                    // relaxed stores to consecutive words, no wait: ns per store
// Op::fence_sc or Op::fence_rel by thread 0 of `blocks` blocks at once.
Need fence_under(Op fence, int blocks);
// A dependent atomicAdd chain on one word, thread 0 of `blocks` blocks at once: ns per round.
Need queue_atomic(int blocks);
// One block changes a word; `blocks` blocks (`pollers` each, started apart) poll it with `kind`
// loads: ns from the change being sent until the last block has seen it.
Need poll(PollKind kind, int blocks, int pollers);
// Thread 0 of each of `blocks` blocks runs barrier protocol `p` (own on `counters` counters with
// `pollers` staggered pollers a block, the tree at `arity`, the ticket sleeping `sleep_ns` per
// arrival still to come): ns per round, the arrivals, their fences and the polls measured together.
Need arrive_poll(Protocol p, int blocks, int counters = 1, int arity = 8, int pollers = 1, int sleep_ns = 0);
// barrier.cluster arrive + wait in clusters of `cluster`, `blocks` blocks of `threads`.
Need cluster_barrier(int blocks, int cluster, int threads);
// The actor's `op` while every other thread of <<<blocks, threads>>> keeps up `bg` on one word.
Need under(Op op, Background bg, int blocks, int threads);
// Launch sequences timed with events, as the benches time a call.
Need launch(Probe p);
Need empty_blocks(int blocks, int threads);
Need atomic_blocks(int blocks, int threads, bool wide);
Need grid_sync(int blocks, int threads);

}  // namespace cudasync::cost::prim
