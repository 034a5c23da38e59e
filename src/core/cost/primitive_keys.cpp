#include "core/cost/primitive_keys.hpp"

#include "core/words/words.hpp"

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

Need alone(const char* id, const char* title_key, Op op) {
  return {{id, ""}, words::core(title_key), contended(op, Background::none, 1, 1)};
}

}  // namespace

// In the order of the enums (core/cost/probe.hpp).
constexpr const char* kOpIds[] = {"atomic-round",  "cas-round",      "poll-round",    "load",
                                  "fence-sc",      "fence-rel",      "fence-acquire", "store-fence-sc",
                                  "store-release", "store-issue"};
constexpr const char* kBackgroundIds[] = {"none", "atomic", "fence-sc", "fence-rel", "cas",
                                          "cas-sleep", "poll", "ticket", "leaders", "slots"};
constexpr const char* kPollIds[] = {"relaxed", "acquire", "volatile"};
constexpr const char* kProtocolIds[] = {"own", "grid-sync", "xf-lock", "tree", "ticket"};
// What thread 0 does, in PTX and CUDA's own words (not translated).
constexpr const char* kProtocolTitles[] = {
    "red.release, ld.relaxed, fence.acquire", "atom.add.release, ld.acquire",
    "__threadfence, atomicAdd, ld.volatile, __threadfence", "atom.acq_rel, st.release, ld.relaxed, fence.acquire",
    "atom.add.release, __nanosleep, ld.relaxed, fence.acquire"};
// What the actor times, and what the others do meanwhile: keys of core's catalog.
constexpr const char* kOpTitles[] = {"prim.op.atomic-round",  "prim.op.cas-round",     "prim.op.poll-round",
                                     "prim.op.load",          "prim.op.fence-sc",      "prim.op.fence-rel",
                                     "prim.op.fence-acquire", "prim.op.store-fence-sc", "prim.op.store-release",
                                     "prim.op.store-issue"};
constexpr const char* kBackgroundTitles[] = {"prim.others.none",      "prim.others.atomic", "prim.others.fence-sc",
                                             "prim.others.fence-rel", "prim.others.cas",    "prim.others.cas-sleep",
                                             "prim.others.poll",      "prim.others.ticket", "prim.others.leaders",
                                             "prim.others.slots"};
static_assert(sizeof(kOpIds) / sizeof(kOpIds[0]) == static_cast<int>(Op::store_issue) + 1, "one id per Op");
static_assert(sizeof(kBackgroundIds) / sizeof(kBackgroundIds[0]) == static_cast<int>(Background::slots) + 1,
              "one id per Background");

const char* op_id(Op op) { return kOpIds[static_cast<int>(op)]; }
const char* background_id(Background b) { return kBackgroundIds[static_cast<int>(b)]; }
const char* poll_id(PollKind k) { return kPollIds[static_cast<int>(k)]; }
const char* protocol_id(Protocol p) { return kProtocolIds[static_cast<int>(p)]; }

Need sync(int threads) {
  return {{"sync", std::to_string(threads)}, words::core("prim.sync", {{"threads", threads}}),
          spec(Probe::sync, 1, threads)};
}

Need rt_atomic() { return alone("rt-atomic", "prim.rt-atomic", Op::atomic_round); }
Need rt_load() { return alone("rt-load", "prim.rt-load", Op::load); }
Need fence_acquire() { return alone("fence-acquire", "prim.fence-acquire", Op::fence_acquire); }
Need store_issue() { return alone("store-issue", "prim.store-issue", Op::store_issue); }

Need fence_under(Op fence, int blocks) {
  const bool sc = fence == Op::fence_sc;
  return {{sc ? "fence-sc" : "fence-rel", at_blocks(blocks)},
          words::core("prim.fence-under", {{"fence", sc ? "__threadfence()" : "fence.acq_rel.gpu"}}),
          contended(fence, sc ? Background::fence_sc : Background::fence_rel, blocks, 1)};
}

Need queue_atomic(int blocks) {
  return {{"queue-atomic", at_blocks(blocks)}, words::core("prim.queue-atomic"),
          contended(Op::atomic_round, Background::atomic, blocks, 1)};
}

Need poll(PollKind kind, int blocks, int pollers) {
  ProbeSpec s = spec(Probe::poll_latency, blocks, 32 * pollers);
  s.poll = kind;
  s.pollers = pollers;
  const std::string at = pollers > 1 ? at_grid(blocks, pollers) : at_blocks(blocks);
  return {{std::string("poll-") + poll_id(kind), at},
          pollers > 1 ? words::core("prim.poll-staggered", {{"load", poll_id(kind)}, {"pollers", pollers}})
                      : words::core("prim.poll", {{"load", poll_id(kind)}}),
          s};
}

Need arrive_poll(Protocol p, int blocks, int counters, int arity, int pollers, int sleep_ns) {
  ProbeSpec s = spec(Probe::arrive_poll, blocks, 32);
  s.sleep_ns = sleep_ns;
  s.protocol = p;
  s.counters = counters;
  s.arity = arity;
  s.pollers = pollers;
  std::string at = at_blocks(blocks), shape;
  if (p == Protocol::own) {
    if (counters > 1) {
      at += "/" + std::to_string(counters);
      shape = words::core("prim.shape-counters", {{"counters", counters}});
    }
    if (pollers > 1) {
      at += "x" + std::to_string(pollers);
      shape += words::core("prim.shape-pollers", {{"pollers", pollers}});
    }
  } else if (p == Protocol::tree) {
    at += "k" + std::to_string(arity);
    shape = words::core("prim.shape-arity", {{"arity", arity}});
  } else if (p == Protocol::ticket) {
    shape = words::core("prim.shape-sleep", {{"ns", sleep_ns}});
  }
  return {{std::string("arrive-poll-") + protocol_id(p), at},
          words::core("prim.arrive-poll", {{"protocol", kProtocolTitles[static_cast<int>(p)]}, {"shape", shape}}), s};
}

Need cluster_barrier(int blocks, int cluster, int threads) {
  ProbeSpec s = spec(Probe::cluster_barrier, blocks, threads);
  s.cluster = cluster;
  return {{"cluster-barrier", at_blocks(blocks) + "c" + std::to_string(cluster)},
          words::core("prim.cluster-barrier", {{"cluster", cluster}}), s};
}

Need under(Op op, Background bg, int blocks, int threads) {
  return {{std::string(op_id(op)) + "-under-" + background_id(bg), at_grid(blocks, threads)},
          words::core("prim.under", {{"op", words::core(kOpTitles[static_cast<int>(op)])},
                                     {"others", words::core(kBackgroundTitles[static_cast<int>(bg)])}}),
          contended(op, bg, blocks, threads)};
}

Need launch(Probe p) {
  ProbeSpec s = spec(p, 1, 128);
  s.reps = 20;
  switch (p) {
    case Probe::launch_memset_1: return {{"launch-memset-1", ""}, words::core("prim.launch-memset-1"), s};
    case Probe::launch_2: return {{"launch-2", ""}, words::core("prim.launch-2"), s};
    case Probe::launch_coop: return {{"launch-coop", ""}, words::core("prim.launch-coop"), s};
    default: s.probe = Probe::launch_1; return {{"launch-1", ""}, words::core("prim.launch-1"), s};
  }
}

Need empty_blocks(int blocks, int threads) {
  return {{"empty-blocks", at_grid(blocks, threads)}, words::core("prim.empty-blocks"),
          spec(Probe::empty_blocks, blocks, threads)};
}

Need atomic_blocks(int blocks, int threads, bool wide) {
  ProbeSpec s = spec(Probe::atomic_blocks, blocks, threads);
  s.wide = wide;
  return {{wide ? "atomic-blocks-double" : "atomic-blocks-float", at_grid(blocks, threads)},
          words::core("prim.atomic-blocks", {{"type", wide ? "double" : "float"}}),
          s};
}

Need grid_sync(int blocks, int threads) {
  return {{"grid-sync", at_grid(blocks, threads)}, words::core("prim.grid-sync"),
          spec(Probe::grid_sync, blocks, threads)};
}

}  // namespace cudasync::cost::prim
