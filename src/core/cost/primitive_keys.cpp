#include "core/cost/primitive_keys.hpp"

namespace cudasync::cost::prim {

namespace {

ProbeSpec spec(Probe p, int blocks, int threads) {
  ProbeSpec s;
  s.probe = p;
  s.blocks = blocks;
  s.threads = threads;
  return s;
}

ProbeSpec contended(Op op, Background bg, int blocks, int threads) {
  ProbeSpec s = spec(Probe::contended, blocks, threads);
  s.op = op;
  s.background = bg;
  return s;
}

Need alone(const char* id, const char* title, Op op) { return {{id, ""}, title, contended(op, Background::none, 1, 1)}; }

}  // namespace

// In the order of the enums (core/cost/probe.hpp).
constexpr const char* kOpIds[] = {"atomic-round",  "cas-round",      "poll-round",    "load",
                                  "fence-sc",      "fence-rel",      "fence-acquire", "store-fence-sc",
                                  "store-release", "store-issue"};
constexpr const char* kBackgroundIds[] = {"none", "atomic", "fence-sc", "fence-rel", "cas",
                                          "cas-sleep", "poll", "ticket", "leaders", "slots"};
constexpr const char* kPollIds[] = {"relaxed", "acquire", "volatile"};
constexpr const char* kProtocolIds[] = {"own", "grid-sync", "xf-lock", "tree"};
constexpr const char* kProtocolTitles[] = {
    "red.release, relaxed polls, fence.acquire", "atom.add.release, acquire polls",
    "__threadfence, atomicAdd, volatile polls, __threadfence", "atom.acq_rel up the tree, st.release, relaxed polls"};
// What the actor times, and what the others do meanwhile, in words.
constexpr const char* kOpTitles[] = {"an atomicAdd on the word",  "an atomicCAS on the word",
                                     "a load of the word",        "a load from the L2",
                                     "__threadfence()",           "fence.acq_rel.gpu",
                                     "fence.acquire.gpu",         "a store, then __threadfence()",
                                     "a store, then a release store", "a store issued"};
constexpr const char* kBackgroundTitles[] = {"alone", "atomicAdd chains", "__threadfence() loops",
                                             "fence.acq_rel loops", "CAS spins", "CAS spins with back-off",
                                             "relaxed polls", "ticket polls, sleeping by rank",
                                             "one CAS lane per warp", "slot polls"};
static_assert(sizeof(kOpIds) / sizeof(kOpIds[0]) == static_cast<int>(Op::store_issue) + 1, "one id per Op");
static_assert(sizeof(kBackgroundIds) / sizeof(kBackgroundIds[0]) == static_cast<int>(Background::slots) + 1,
              "one id per Background");

const char* op_id(Op op) { return kOpIds[static_cast<int>(op)]; }
const char* background_id(Background b) { return kBackgroundIds[static_cast<int>(b)]; }
const char* poll_id(PollKind k) { return kPollIds[static_cast<int>(k)]; }
const char* protocol_id(Protocol p) { return kProtocolIds[static_cast<int>(p)]; }

Need sync(int threads) {
  return {{"sync", std::to_string(threads)}, "__syncthreads(), one block of " + std::to_string(threads),
          spec(Probe::sync, 1, threads)};
}

Need rt_atomic() { return alone("rt-atomic", "dependent atomicAdd, one thread alone (L2 round trip)", Op::atomic_round); }
Need rt_load() { return alone("rt-load", "dependent ld.relaxed.gpu, one thread alone (L2 round trip)", Op::load); }
Need fence_acquire() { return alone("fence-acquire", "fence.acquire.gpu, one thread alone", Op::fence_acquire); }
Need store_issue() { return alone("store-issue", "relaxed stores to consecutive words, issued", Op::store_issue); }

Need fence_under(Op fence, int blocks) {
  const bool sc = fence == Op::fence_sc;
  return {{sc ? "fence-sc" : "fence-rel", at_blocks(blocks)},
          std::string(sc ? "__threadfence()" : "fence.acq_rel.gpu") + ", every block fencing at once",
          contended(fence, sc ? Background::fence_sc : Background::fence_rel, blocks, 1)};
}

Need queue_atomic(int blocks) {
  return {{"queue-atomic", at_blocks(blocks)}, "dependent atomicAdd on one word, every block at once",
          contended(Op::atomic_round, Background::atomic, blocks, 1)};
}

Need poll(PollKind kind, int blocks, int pollers) {
  ProbeSpec s = spec(Probe::poll_latency, blocks, 32 * pollers);
  s.poll = kind;
  s.pollers = pollers;
  const std::string at = pollers > 1 ? at_grid(blocks, pollers) : at_blocks(blocks);
  return {{std::string("poll-") + poll_id(kind), at},
          std::string("a red.add seen by every polling block (") + poll_id(kind) + " loads" +
              (pollers > 1 ? ", " + std::to_string(pollers) + " staggered pollers per block" : "") + ")",
          s};
}

Need arrive_poll(Protocol p, int blocks, int counters, int arity, int pollers) {
  ProbeSpec s = spec(Probe::arrive_poll, blocks, 32);
  s.protocol = p;
  s.counters = counters;
  s.arity = arity;
  s.pollers = pollers;
  std::string at = at_blocks(blocks), shape;
  if (p == Protocol::own) {
    if (counters > 1) {
      at += "/" + std::to_string(counters);
      shape = ", " + std::to_string(counters) + " counters";
    }
    if (pollers > 1) {
      at += "x" + std::to_string(pollers);
      shape += ", " + std::to_string(pollers) + " staggered pollers a block";
    }
  } else if (p == Protocol::tree) {
    at += "k" + std::to_string(arity);
    shape = ", arity " + std::to_string(arity);
  }
  return {{std::string("arrive-poll-") + protocol_id(p), at},
          std::string("thread 0 of every block: ") + kProtocolTitles[static_cast<int>(p)] + shape + "; ns per round",
          s};
}

Need cluster_barrier(int blocks, int cluster, int threads) {
  ProbeSpec s = spec(Probe::cluster_barrier, blocks, threads);
  s.cluster = cluster;
  return {{"cluster-barrier", at_blocks(blocks) + "c" + std::to_string(cluster)},
          "barrier.cluster arrive + wait, clusters of " + std::to_string(cluster), s};
}

Need under(Op op, Background bg, int blocks, int threads) {
  return {{std::string(op_id(op)) + "-under-" + background_id(bg), at_grid(blocks, threads)},
          std::string(kOpTitles[static_cast<int>(op)]) + "; the others: " + kBackgroundTitles[static_cast<int>(bg)],
          contended(op, bg, blocks, threads)};
}

Need launch(Probe p) {
  ProbeSpec s = spec(p, 1, 128);
  s.reps = 20;
  switch (p) {
    case Probe::launch_memset_1: return {{"launch-memset-1", ""}, "memset + one empty launch, event-timed", s};
    case Probe::launch_2: return {{"launch-2", ""}, "two empty launches, event-timed", s};
    case Probe::launch_coop: return {{"launch-coop", ""}, "one cooperative launch, event-timed", s};
    default: s.probe = Probe::launch_1; return {{"launch-1", ""}, "one empty launch, event-timed", s};
  }
}

Need empty_blocks(int blocks, int threads) {
  return {{"empty-blocks", at_grid(blocks, threads)}, "one launch of empty blocks, event-timed",
          spec(Probe::empty_blocks, blocks, threads)};
}

Need atomic_blocks(int blocks, int threads, bool wide) {
  ProbeSpec s = spec(Probe::atomic_blocks, blocks, threads);
  s.wide = wide;
  return {{wide ? "atomic-blocks-double" : "atomic-blocks-float", at_grid(blocks, threads)},
          std::string("one launch; thread 0 of each block: atomicAdd(") + (wide ? "double" : "float") + ") on one word",
          s};
}

Need grid_sync(int blocks, int threads) {
  return {{"grid-sync", at_grid(blocks, threads)}, "cooperative groups grid.sync(), ns per barrier",
          spec(Probe::grid_sync, blocks, threads)};
}

}  // namespace cudasync::cost::prim
