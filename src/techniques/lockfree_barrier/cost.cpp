// The cost model of the barriers inside a kernel (lesson.hpp: BarrierShape, barrier_needs,
// predict_barrier): each barrier's terms, the primitives each reads and how it is computed. The
// parts of a barrier's protocol measured apart (fence, queue, poll, acquire) under-predict it, more
// the more blocks there are, because they slow each other down when they meet on the same words;
// the protocol measured as one primitive (arrive-poll-<protocol>) gives the sum, and the
// contention term is what it costs beyond its parts.
#include <algorithm>
#include <cmath>
#include <functional>

#include "core/cost/formula.hpp"
#include "core/cost/primitive_keys.hpp"
#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using cost::Need;
using cost::Primitives;
namespace prim = cost::prim;

using BarrierTerm = cost::FormulaTerm;
using cost::call;
using cost::plain;

// The queue: how much longer the last of n arrivals to one word waits than one atomic alone.
BarrierTerm queue(int n) {
  const Need q = prim::queue_atomic(n), rt = prim::rt_atomic();
  return {"queue", say("cost.queue"), "max(0, " + call(q) + " - rt-atomic)", {q, rt},
          [q, rt](const Primitives& p) { return cost::excess(p.ns(q.key) - p.ns(rt.key)); }};
}

// A barrier whose blocks meet on one word: its syncs, its protocol's parts measured apart, and the
// contention, what the protocol measured whole costs beyond them.
std::vector<BarrierTerm> with_contention(BarrierTerm syncs, const std::vector<BarrierTerm>& parts, const Need& whole) {
  std::vector<BarrierTerm> t{std::move(syncs)};
  for (BarrierTerm& p : cost::with_contention(parts, whole, say("cost.contention"))) t.push_back(std::move(p));
  return t;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

std::vector<BarrierTerm> barrier_terms(Barrier d, const BarrierShape& s) {
  using cost::Op;
  using cost::PollKind;
  using cost::Protocol;
  const int N = s.blocks;
  const auto syncs = [&](int k) { return plain("sync", say("cost.sync"), prim::sync(s.threads), k); };
  const BarrierTerm acquire = plain("acquire", say("cost.acquire"), prim::fence_acquire());
  const BarrierTerm release = plain("fence", say("cost.release-fence"), prim::fence_under(Op::fence_rel, N));
  const auto polls = [&](PollKind kind, int blocks, int pollers) {
    return plain("poll", say("cost.poll"), prim::poll(kind, blocks, pollers));
  };
  std::vector<BarrierTerm> t;
  switch (d) {
    case Barrier::xf_lock: {
      t = with_contention(syncs(2),
                          {plain("fence", say("cost.fences"), prim::fence_under(Op::fence_sc, N), 2), queue(N),
                           polls(PollKind::volatile_load, N, 1)},
                          prim::arrive_poll(Protocol::xf_lock, N));
      break;
    }
    case Barrier::grid_sync: {
      // Its poll has a second path: the last block waits for its own atom's value, then polls once.
      const Need pl = prim::poll(PollKind::acquire, N, 1), rt = prim::rt_atomic(), ld = prim::rt_load();
      const BarrierTerm poll{"poll", say("cost.poll"), "max(" + call(pl) + ", rt-atomic + rt-load)", {pl, rt, ld},
                             [pl, rt, ld](const Primitives& p) {
                               return cost::nan_max(p.ns(pl.key), p.ns(rt.key) + p.ns(ld.key));
                             }};
      t = with_contention(syncs(2), {release, queue(N), poll}, prim::arrive_poll(Protocol::grid_sync, N));
      break;
    }
    case Barrier::xf_lockfree: {
      // 4 syncs: the arrival, the master's two votes, the release; 3 fences: the arrival, the
      // master's release, the acquire; two hops of polls; the scan: the slots each master thread
      // checks beyond one.
      const Need f = prim::fence_under(Op::fence_sc, N);
      t = {syncs(4), plain("fence", say("cost.fences"), f, 3),
           plain("poll", say("cost.poll-two-hops"), prim::poll(PollKind::volatile_load, N, 1), 2),
           plain("scan", say("cost.scan"), prim::rt_load(), ceil_div(N, s.threads) - 1)};
      break;
    }
    case Barrier::own:
    case Barrier::own_stagger:
    case Barrier::own_paced:
    case Barrier::own_cluster: {
      // own's protocol on its C counters; own-stagger's with its K pollers a block, measured so.
      // own-paced and own-cluster differ from own in who polls how, which only the poll term,
      // measured apart, says (the contention is own's).
      const int C = std::min(s.counters, N), K = d == Barrier::own_stagger ? s.pollers : 1;
      const bool cluster = d == Barrier::own_cluster;
      t = with_contention(syncs(cluster ? 1 : 2),
                          {release, queue(C > 1 ? ceil_div(N, C) : N), polls(PollKind::relaxed, N, K), acquire},
                          prim::arrive_poll(Protocol::own, N, C, kDefaultTreeArity, K));
      if (cluster) {
        t[3] = polls(PollKind::relaxed, ceil_div(N, s.cluster), 1);  // the poll: one block per cluster
        t.push_back(plain("cluster", say("cost.cluster"), prim::cluster_barrier(N, s.cluster, s.threads)));
      }
      break;
    }
    case Barrier::own_ticket: {
      // grid.sync()'s arrival, own's polls and acquire; its sleep is in its protocol, measured whole.
      t = with_contention(syncs(2), {release, queue(N), polls(PollKind::relaxed, N, 1), acquire},
                          prim::arrive_poll(Protocol::ticket, N, 1, kDefaultTreeArity, 1, kTicketSleepNsPerArrival));
      break;
    }
    case Barrier::own_tree: {
      // The last arriver climbs: at each level one atom.acq_rel, behind up to `arity` others on its
      // node; its first fence is paid with every block fencing at once, the ones above it alone.
      const int levels = tree_levels(N, s.arity), K = std::min(s.arity, N);
      const Need f = prim::fence_under(Op::fence_rel, N), f1 = prim::fence_under(Op::fence_rel, 1),
                 q = prim::queue_atomic(K), rt = prim::rt_atomic();
      const std::string L = std::to_string(levels);
      const BarrierTerm fences{"fence", say("cost.tree-fences"), call(f) + " + " + L + " x " + call(f1), {f, f1},
                               [f, f1, levels](const Primitives& p) { return p.ns(f.key) + levels * p.ns(f1.key); }};
      const BarrierTerm climb{"climb", say("cost.tree-climb"), L + " x max(" + call(q) + ", rt-atomic)", {q, rt},
                              [q, rt, levels](const Primitives& p) { return levels * std::max(p.ns(q.key), p.ns(rt.key)); }};
      t = with_contention(syncs(2), {fences, climb, polls(PollKind::relaxed, N, 1), acquire},
                          prim::arrive_poll(Protocol::tree, N, 1, s.arity));
      break;
    }
    default: break;  // relaunch, graph and the transcription's barriers: not modelled
  }
  return t;
}

}  // namespace

std::vector<Need> barrier_needs(Barrier d, const BarrierShape& s) { return cost::needs_of(barrier_terms(d, s)); }

cost::Prediction predict_barrier(Barrier d, const BarrierShape& s, const Primitives& p) {
  return cost::predict(barrier_terms(d, s), p);
}

int tree_arity_for(const BarrierShape& s, const Primitives& p) {
  int best = kDefaultTreeArity;
  double best_ns = 0;
  for (int arity : kTreeArities) {
    BarrierShape t = s;
    t.arity = arity;
    const double ns = predict_barrier(Barrier::own_tree, t, p).ns();
    if (!std::isnan(ns) && (best_ns == 0 || ns < best_ns)) {
      best = arity;
      best_ns = ns;
    }
  }
  return best;
}

}  // namespace cudasync::lockfree_barrier
