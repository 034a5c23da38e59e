#include "core/cost/lock_model.hpp"

#include <algorithm>

#include "core/cost/primitive_keys.hpp"

namespace cudasync::cost {

namespace {

// What the lock does, as the primitives its formula reads.
struct Recipe {
  bool fetch = false;      // ticket, alone: the fetch_add of its ticket is on the path
  bool detect = false;     // waiters poll with loads; the release must be seen first
  bool take = true;        // a compare-and-swap takes the lock
  Op fence_after = Op::fence_acquire;  // fence_sc (the CAS lock) or fence_acquire
  bool acquire = true;     // anything after taking (the book's lock has nothing)
  int loads = 1;           // L2 loads in the critical section (and, combining, around it)
  bool serve = false;      // combining: a store per request served
  Op release = Op::store_release;  // store_release, store_fence_sc, or load (book: nothing to wait for)
  bool releases = true;
  int lanes = 1;           // updates one handoff carries (the divisor)
};

int padded_slots(int w) { return (w + 3) / 4 * 4; }

Recipe recipe(LockDesign d, int blocks, int threads) {
  Recipe r;
  const int w = blocks * threads;
  switch (d) {
    case LockDesign::book: r.acquire = false, r.loads = 0, r.releases = false; break;
    case LockDesign::fenced: r.fence_after = Op::fence_sc, r.release = Op::store_fence_sc; break;
    case LockDesign::acq_rel:
    case LockDesign::backoff: break;
    case LockDesign::ttas:
    case LockDesign::ttas_same_line: r.detect = true; break;
    case LockDesign::ticket: r.fetch = w == 1, r.detect = true, r.take = false, r.acquire = false; break;
    case LockDesign::warp_aggregated: r.lanes = std::min(threads, 32); break;
    case LockDesign::combining:
      // cnt and the handoff count read under the lock, the slots 32 at a time (8 vector loads in
      // flight: one round trip per 32), and between two passes a waiter's three polls: its answer,
      // its next request still pending, the lock word free, before its compare-and-swap.
      r.loads = 2 + (padded_slots(w) + 31) / 32 + 3;
      r.serve = true;
      r.lanes = w;
      break;
  }
  return r;
}

}  // namespace

Background lock_background(LockDesign d, int blocks, int threads) {
  if (blocks * threads == 1) return Background::none;  // alone: nobody waits beside the actor
  switch (d) {
    case LockDesign::backoff: return Background::cas_sleep;
    case LockDesign::ttas:
    case LockDesign::ttas_same_line: return Background::poll;
    case LockDesign::ticket: return Background::ticket;
    case LockDesign::warp_aggregated: return threads == 1 ? Background::cas : Background::leaders;
    case LockDesign::combining: return Background::slots;
    default: return Background::cas;
  }
}

std::vector<Need> lock_needs(LockDesign d, int blocks, int threads) {
  const Recipe r = recipe(d, blocks, threads);
  const Background bg = lock_background(d, blocks, threads);
  std::vector<Need> n;
  if (r.fetch) add_need(n, prim::rt_atomic());
  if (r.detect) add_need(n, prim::under(Op::poll_round, bg, blocks, threads));
  if (r.take) add_need(n, prim::under(Op::cas_round, bg, blocks, threads));
  if (r.acquire)
    add_need(n, r.fence_after == Op::fence_sc ? prim::under(Op::fence_sc, bg, blocks, threads) : prim::fence_acquire());
  if (r.loads > 0) add_need(n, prim::under(Op::load, bg, blocks, threads));
  if (r.serve) add_need(n, prim::store_issue());
  if (r.releases) add_need(n, prim::under(r.release, bg, blocks, threads));
  return n;
}

Prediction predict_lock(LockDesign d, int blocks, int threads, const Primitives& p) {
  const Recipe r = recipe(d, blocks, threads);
  const Background bg = lock_background(d, blocks, threads);
  const double per = 1.0 / r.lanes;
  const std::string div = r.lanes > 1 ? " / " + std::to_string(r.lanes) : "";
  const auto under = [&](Op op) { return prim::under(op, bg, blocks, threads); };
  const auto name = [](const Need& n) { return n.key.id + (n.key.at.empty() ? "" : "(" + n.key.at + ")"); };
  Prediction out;
  if (r.fetch) {
    const Need f = prim::rt_atomic();
    out.add("fetch", "the ticket's fetch_add", p.ns(f.key), name(f));
  }
  if (r.detect) {
    const Need q = under(Op::poll_round);
    out.add("detect", "a waiter's poll sees the release", per * p.ns(q.key), name(q) + div);
  }
  if (r.take) {
    const Need c = under(Op::cas_round);
    out.add("take", "the winning CAS, behind the waiters'", per * p.ns(c.key), name(c) + div);
  }
  if (r.acquire) {
    const Need a = r.fence_after == Op::fence_sc ? under(Op::fence_sc) : prim::fence_acquire();
    out.add(r.fence_after == Op::fence_sc ? "fence" : "acquire",
            r.fence_after == Op::fence_sc ? "__threadfence() after taking" : "the acquire (L1 dropped)",
            per * p.ns(a.key), name(a) + div);
  }
  if (r.loads > 0) {
    const Need l = under(Op::load);
    out.add("load", r.loads == 1 ? "*cnt from the L2" : "loads from the L2 (cnt, count, slots, answer)",
            r.loads * per * p.ns(l.key), (r.loads > 1 ? std::to_string(r.loads) + " x " : "") + name(l) + div);
  }
  if (r.serve) {
    const Need s = prim::store_issue();
    out.add("serve", "one answer stored per request", p.ns(s.key), name(s) + " (x requests" + div + ")");
  }
  if (r.releases) {
    const Need s = under(r.release);
    out.add("release", r.release == Op::store_fence_sc ? "store, __threadfence(), atomicExch" : "store, then the release store",
            per * p.ns(s.key), name(s) + div);
  }
  return out;
}

}  // namespace cudasync::cost
