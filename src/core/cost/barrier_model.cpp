#include "core/cost/barrier_model.hpp"

#include "core/cost/primitive_keys.hpp"

namespace cudasync::cost {

namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

bool is_own(BarrierDesign d) {
  return d == BarrierDesign::own || d == BarrierDesign::own_stagger || d == BarrierDesign::own_paced ||
         d == BarrierDesign::own_cluster;
}

// Who polls the word whose change ends the wait, and with what load.
Need poll_need(BarrierDesign d, const BarrierShape& s) {
  switch (d) {
    case BarrierDesign::xf_lock:
    case BarrierDesign::xf_lockfree: return prim::poll(PollKind::volatile_load, s.blocks, 1);
    case BarrierDesign::grid_sync: return prim::poll(PollKind::acquire, s.blocks, 1);
    case BarrierDesign::own_cluster: return prim::poll(PollKind::relaxed, ceil_div(s.blocks, s.cluster), 1);
    case BarrierDesign::own_stagger: return prim::poll(PollKind::relaxed, s.blocks, s.pollers);
    default: return prim::poll(PollKind::relaxed, s.blocks, 1);
  }
}

int arrivals_per_word(BarrierDesign d, const BarrierShape& s) {
  return is_own(d) && s.counters > 1 ? ceil_div(s.blocks, s.counters) : s.blocks;
}

}  // namespace

std::vector<Need> barrier_needs(BarrierDesign d, const BarrierShape& s) {
  std::vector<Need> n;
  add_need(n, prim::sync(s.threads));
  add_need(n, prim::rt_atomic());
  const bool sc = d == BarrierDesign::xf_lock || d == BarrierDesign::xf_lockfree;
  add_need(n, prim::fence_under(sc ? Op::fence_sc : Op::fence_rel, s.blocks));
  if (d != BarrierDesign::xf_lockfree) add_need(n, prim::queue_atomic(arrivals_per_word(d, s)));
  add_need(n, poll_need(d, s));
  if (is_own(d)) add_need(n, prim::fence_acquire());
  if (d == BarrierDesign::grid_sync || d == BarrierDesign::xf_lockfree) add_need(n, prim::rt_load());
  if (d == BarrierDesign::own_cluster) add_need(n, prim::cluster_barrier(s.blocks, s.cluster, s.threads));
  return n;
}

Prediction predict_barrier(BarrierDesign d, const BarrierShape& s, const Primitives& p) {
  Prediction out;
  const Need sync = prim::sync(s.threads), rt = prim::rt_atomic();
  const Need poll = poll_need(d, s);
  const std::string T = std::to_string(s.threads);
  const double rt_atomic = p.ns(rt.key);
  // The queue: how much longer the last of the arrivals to one word waits than one atomic alone.
  const auto add_queue = [&] {
    const Need q = prim::queue_atomic(arrivals_per_word(d, s));
    out.add("queue", "same-address arrivals", excess(p.ns(q.key) - rt_atomic),
            "max(0, queue-atomic(" + q.key.at + ") - rt-atomic)");
  };
  switch (d) {
    case BarrierDesign::xf_lock: {
      const Need f = prim::fence_under(Op::fence_sc, s.blocks);
      out.add("sync", "__syncthreads", 2 * p.ns(sync.key), "2 x sync(" + T + ")");
      out.add("fence", "fences", 2 * p.ns(f.key), "2 x fence-sc(" + f.key.at + "): before the atomicAdd and after the spin");
      add_queue();
      out.add("poll", "last arrival to every poller", p.ns(poll.key), "poll-volatile(" + poll.key.at + ")");
      break;
    }
    case BarrierDesign::xf_lockfree: {
      const Need f = prim::fence_under(Op::fence_sc, s.blocks), l = prim::rt_load();
      out.add("sync", "__syncthreads", 4 * p.ns(sync.key),
              "4 x sync(" + T + "): the arrival, the master's two votes, the release");
      out.add("fence", "fences", 3 * p.ns(f.key),
              "3 x fence-sc(" + f.key.at + "): the arrival, the master's release, the acquire");
      out.add("poll", "two hops: blocks to master, master to blocks", 2 * p.ns(poll.key),
              "2 x poll-volatile(" + poll.key.at + ")");
      const int extra = ceil_div(s.blocks, s.threads) - 1;
      out.add("scan", "master threads checking further slots", extra * p.ns(l.key),
              std::to_string(extra) + " x rt-load (slots per master thread - 1)");
      break;
    }
    case BarrierDesign::grid_sync: {
      const Need f = prim::fence_under(Op::fence_rel, s.blocks), l = prim::rt_load();
      out.add("sync", "__syncthreads", 2 * p.ns(sync.key), "2 x sync(" + T + ")");
      out.add("fence", "release fence", p.ns(f.key), "fence-rel(" + f.key.at + "): atom.add.release");
      add_queue();
      out.add("poll", "last arrival to every poller",
              nan_max(p.ns(poll.key), rt_atomic + p.ns(l.key)),
              "max(poll-acquire(" + poll.key.at + "), rt-atomic + rt-load): the others poll, the last waits "
              "for its atom, then polls once");
      break;
    }
    case BarrierDesign::own:
    case BarrierDesign::own_stagger:
    case BarrierDesign::own_paced:
    case BarrierDesign::own_cluster: {
      const Need f = prim::fence_under(Op::fence_rel, s.blocks), a = prim::fence_acquire();
      const bool cluster = d == BarrierDesign::own_cluster;
      out.add("sync", "__syncthreads", (cluster ? 1 : 2) * p.ns(sync.key),
              (cluster ? "1 x sync(" : "2 x sync(") + T + ")");
      out.add("fence", "release fence", p.ns(f.key), "fence-rel(" + f.key.at + "): red.release");
      add_queue();
      out.add("poll", "last arrival to every poller", p.ns(poll.key), "poll-relaxed(" + poll.key.at + ")");
      out.add("acquire", "acquire fence", p.ns(a.key), "fence-acquire");
      if (cluster) {
        const Need c = prim::cluster_barrier(s.blocks, s.cluster, s.threads);
        out.add("cluster", "the cluster barrier", p.ns(c.key), "cluster-barrier(" + c.key.at + ")");
      }
      break;
    }
  }
  return out;
}

}  // namespace cudasync::cost
