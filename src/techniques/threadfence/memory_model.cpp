// The PTX memory model of threadfence's litmus tests (declared, with a worked example, in fences.hpp).
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "core/litmus/relation.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {

// ---- the PTX program of a spec ------------------------------------------------------------------

namespace {

using Kind = MmEvent::Kind;
const char* kLoc[2] = {"x", "y"};

MmEvent write_ev(int thread, int loc, Access a, bool release) {
  MmEvent e;
  e.kind = Kind::write;
  e.thread = thread;
  e.loc = loc;
  if (release) {
    e.scope = Scope::gpu;
    e.release = true;
    e.text = std::string("st.release.gpu [") + kLoc[loc] + "], 1";
  } else if (a == Access::vol) {
    e.scope = Scope::sys;  // st.volatile: relaxed at system scope
    e.text = std::string("st.volatile.global [") + kLoc[loc] + "], 1";
  } else {
    e.text = std::string("st.global [") + kLoc[loc] + "], 1";
  }
  return e;
}

MmEvent read_ev(int thread, int loc, Access a, bool acquire, int reg) {
  MmEvent e;
  e.kind = Kind::read;
  e.thread = thread;
  e.loc = loc;
  e.reg = reg;
  const std::string dst = reg >= 0 ? "r" + std::to_string(reg) : std::string("_");
  if (acquire) {
    e.scope = Scope::gpu;
    e.acquire = true;
    e.text = "ld.acquire.gpu " + dst + ", [" + kLoc[loc] + "]";
  } else if (a == Access::vol) {
    e.scope = Scope::sys;
    e.text = "ld.volatile.global " + dst + ", [" + kLoc[loc] + "]";
  } else {
    e.text = "ld.global " + dst + ", [" + kLoc[loc] + "]";
  }
  return e;
}

void add_fence(std::vector<MmEvent>& ev, int thread, Fence f) {
  if (f != Fence::block && f != Fence::device && f != Fence::system) return;
  MmEvent e;
  e.kind = Kind::fence;
  e.thread = thread;
  e.sc = true;  // membar.{cta,gl,sys} is fence.sc.{cta,gpu,sys} (PTX ISA, "membar/fence", sm_70+)
  e.scope = f == Fence::block ? Scope::cta : f == Fence::device ? Scope::gpu : Scope::sys;
  e.text = f == Fence::block ? "membar.cta" : f == Fence::device ? "membar.gl" : "membar.sys";
  ev.push_back(e);
}

}  // namespace

MmProgram ptx_program(const LitmusSpec& s) {
  MmProgram p;
  p.same_cta = s.placement == Placement::same_block;
  auto& ev = p.events;
  const bool ra0 = s.fence[0] == Fence::rel_acq, ra1 = s.fence[1] == Fence::rel_acq;
  switch (s.test) {
    case Test::mp: {
      ev.push_back(write_ev(0, 0, s.access, false));
      add_fence(ev, 0, s.fence[0]);
      ev.push_back(write_ev(0, 1, Access::vol, ra0));
      ev.push_back(read_ev(1, 0, s.access, false, -1));  // the consumer's earlier look at x
      MmEvent flag = read_ev(1, 1, s.weak_wait ? Access::plain : Access::vol, ra1, 0);
      flag.must_read = 1;
      ev.push_back(flag);
      add_fence(ev, 1, s.fence[1]);
      ev.push_back(read_ev(1, 0, s.access, false, 1));
      break;
    }
    case Test::sb:
      ev.push_back(write_ev(0, 0, s.access, ra0));
      add_fence(ev, 0, s.fence[0]);
      ev.push_back(read_ev(0, 1, s.access, ra0, 0));
      ev.push_back(write_ev(1, 1, s.access, ra1));
      add_fence(ev, 1, s.fence[1]);
      ev.push_back(read_ev(1, 0, s.access, ra1, 1));
      break;
    case Test::lb:
      ev.push_back(read_ev(0, 0, s.access, ra0, 0));
      add_fence(ev, 0, s.fence[0]);
      ev.push_back(write_ev(0, 1, s.access, ra0));
      ev.push_back(read_ev(1, 1, s.access, ra1, 1));
      add_fence(ev, 1, s.fence[1]);
      ev.push_back(write_ev(1, 0, s.access, ra1));
      break;
    case Test::corr:
      add_fence(ev, 0, s.fence[0]);
      ev.push_back(write_ev(0, 0, s.access, ra0));
      ev.push_back(read_ev(1, 0, s.access, ra1, 0));
      add_fence(ev, 1, s.fence[1]);
      ev.push_back(read_ev(1, 0, s.access, ra1, 1));
      break;
  }
  return p;
}

MmProgram host_observer_program(Fence f) {
  MmProgram p;
  p.host_thread = 1;
  auto& ev = p.events;
  ev.push_back(write_ev(0, 0, Access::plain, false));
  ev.back().text = "st.global [data], 1";
  add_fence(ev, 0, f);
  ev.push_back(write_ev(0, 1, Access::vol, false));
  ev.back().text = "st.volatile.global [flag], 1";
  MmEvent flag = read_ev(1, 1, Access::vol, true, 0);
  flag.scope = Scope::sys;
  flag.must_read = 1;
  flag.text = "host: flag load, acquire at system scope";
  ev.push_back(flag);
  ev.push_back(read_ev(1, 0, Access::plain, false, 1));
  ev.back().text = "host: data load";
  return p;
}

// ---- the axioms ------------------------------------------------------------------------------------

namespace {

constexpr int kMaxEvents = 16;

using litmus::Rel;

int cta_of(const MmProgram& p, int thread) { return p.same_cta ? 0 : thread; }
bool on_gpu(const MmProgram& p, int thread) { return thread != p.host_thread; }

// Does event e's scope contain thread t? A weak access's scope is its own thread; a .cta or .gpu
// scope never contains a thread of the host, and .sys contains every thread.
bool contains(const MmProgram& p, const MmEvent& e, int t) {
  if (e.thread == t) return true;
  switch (e.scope) {
    case Scope::weak: return false;
    case Scope::cta: return on_gpu(p, e.thread) && on_gpu(p, t) && cta_of(p, e.thread) == cta_of(p, t);
    case Scope::gpu: return on_gpu(p, e.thread) == on_gpu(p, t);  // one GPU
    case Scope::sys: return true;
  }
  return false;
}

}  // namespace

ModelVerdict ptx_model(const MmProgram& p) {
  const auto& ev = p.events;
  const int n = static_cast<int>(ev.size());
  if (n > kMaxEvents) throw std::logic_error("ptx_model: more events than the model handles");
  std::vector<int> reads, writes, sc_fences;
  for (int i = 0; i < n; ++i) {
    if (ev[static_cast<std::size_t>(i)].kind == Kind::read) reads.push_back(i);
    if (ev[static_cast<std::size_t>(i)].kind == Kind::write) writes.push_back(i);
    if (ev[static_cast<std::size_t>(i)].kind == Kind::fence && ev[static_cast<std::size_t>(i)].sc) sc_fences.push_back(i);
  }
  // Every location is written once in these tests, so the coherence order between writes is empty.
  for (int a : writes)
    for (int b : writes)
      if (a < b && ev[static_cast<std::size_t>(a)].loc == ev[static_cast<std::size_t>(b)].loc)
        throw std::logic_error("ptx_model: a location written twice needs a coherence order");

  Rel po(n), po_loc(n), strong_r(n);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const MmEvent& ea = ev[static_cast<std::size_t>(a)];
      const MmEvent& eb = ev[static_cast<std::size_t>(b)];
      if (ea.thread == eb.thread && a < b) {
        po.add(a, b);
        if (ea.kind != Kind::fence && eb.kind != Kind::fence && ea.loc == eb.loc) po_loc.add(a, b);
      }
      // Morally strong: each one's scope contains the other's thread (PTX ISA, "Morally strong
      // operations"; weak accesses are strong only towards their own thread).
      if (contains(p, ea, eb.thread) && contains(p, eb, ea.thread)) strong_r.add(a, b);
    }
  const Rel po_star = po | litmus::identity(n);

  // prefix: from a release write to itself or a later write to the same location, or from a fence
  // to a later write. suffix: from a read to itself (if acquire) or to a later acquire read of the
  // same location, or to a later fence. (Every fence here is fence.sc, hence also acq_rel.)
  Rel prefix(n), suffix(n);
  std::vector<bool> releaser(static_cast<std::size_t>(n)), acquirer(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) {
    const MmEvent& ea = ev[static_cast<std::size_t>(a)];
    releaser[static_cast<std::size_t>(a)] = (ea.kind == Kind::write && ea.release) || ea.kind == Kind::fence;
    acquirer[static_cast<std::size_t>(a)] = (ea.kind == Kind::read && ea.acquire) || ea.kind == Kind::fence;
    for (int b = 0; b < n; ++b) {
      const MmEvent& eb = ev[static_cast<std::size_t>(b)];
      if (ea.kind == Kind::write && ea.release && eb.kind == Kind::write && (a == b || po_loc.has(a, b))) prefix.add(a, b);
      if (ea.kind == Kind::fence && eb.kind == Kind::write && po.has(a, b)) prefix.add(a, b);
      if (ea.kind == Kind::read && eb.kind == Kind::read && eb.acquire && (a == b || po_loc.has(a, b))) suffix.add(a, b);
      if (ea.kind == Kind::read && eb.kind == Kind::fence && po.has(a, b)) suffix.add(a, b);
    }
  }

  ModelVerdict v;
  // Per outcome: its rejected candidate executions, and how many of them each axiom rejected.
  std::array<int, kOutcomes> rejected{};
  std::array<std::array<int, 2>, kOutcomes> by_axiom{};  // [0]: SC per location, [1]: causality

  // Odometer over the rf choices: -1 is the initial value, else the index into `writes`.
  std::vector<std::vector<int>> options;
  for (int r : reads) {
    std::vector<int> o = {-1};
    for (int w : writes)
      if (ev[static_cast<std::size_t>(w)].loc == ev[static_cast<std::size_t>(r)].loc) o.push_back(w);
    options.push_back(o);
  }
  std::vector<std::size_t> pick(reads.size(), 0);
  std::vector<int> perm = sc_fences;
  std::sort(perm.begin(), perm.end());
  for (bool more = true; more;) {
    Rel rf(n), fr(n);
    std::array<int, 2> regs = {0, 0};
    bool wanted = true;
    for (std::size_t k = 0; k < reads.size(); ++k) {
      const int r = reads[k], w = options[k][pick[k]];
      const MmEvent& er = ev[static_cast<std::size_t>(r)];
      const int value = w >= 0 ? 1 : 0;
      if (er.must_read >= 0 && er.must_read != value) wanted = false;
      if (er.reg >= 0) regs[static_cast<std::size_t>(er.reg)] = value;
      if (w >= 0) {
        rf.add(w, r);
      } else {
        for (int w2 : writes)
          if (ev[static_cast<std::size_t>(w2)].loc == er.loc) fr.add(r, w2);
      }
    }
    if (wanted) {
      const int outcome = outcome_index(regs[0], regs[1]);
      const Rel com = rf | fr;
      const Rel obs = rf & strong_r;  // observation: morally strong reads-from (no RMWs here)
      // sync: a releaser and an acquirer, morally strong, linked by prefix; observation; suffix.
      const Rel link = seq(seq(prefix, obs), suffix);
      Rel sync(n);
      for (int h = 0; h < n; ++h)
        for (int t = 0; t < n; ++t)
          if (releaser[static_cast<std::size_t>(h)] && acquirer[static_cast<std::size_t>(t)] && strong_r.has(h, t) &&
              link.has(h, t))
            sync.add(h, t);
      std::sort(perm.begin(), perm.end());
      std::vector<Rel> orders;  // the distinct fence.sc orders already tried
      do {
        Rel sc(n);  // fence.sc order: total over morally strong pairs of fence.sc
        for (std::size_t i = 0; i < perm.size(); ++i)
          for (std::size_t j = i + 1; j < perm.size(); ++j)
            if (strong_r.has(perm[i], perm[j])) sc.add(perm[i], perm[j]);
        if (std::any_of(orders.begin(), orders.end(), [&](const Rel& o) { return o.row == sc.row; })) continue;
        orders.push_back(sc);
        ++v.executions;
        const Rel base = seq(seq(po_star, sync | sc), po_star);
        const Rel cause_base = plus(base);
        const Rel cause = cause_base | seq(obs, po_loc | cause_base);
        // SC per location: morally strong communication never contradicts program order.
        const bool location_sc = acyclic((com & strong_r) | po_loc);
        // Causality: nothing is causally before itself, and no read is causally before the write
        // it reads from or before a write it was from-read by.
        bool causality = irreflexive(cause);
        const Rel fr_rf = fr | rf;
        for (int a = 0; a < n && causality; ++a)
          for (int b = 0; b < n; ++b)
            if (fr_rf.has(a, b) && cause.has(b, a)) causality = false;
        // Coherence (writes to one location ordered by causality follow the coherence order),
        // atomicity (RMWs) and no-thin-air (rf + dependencies acyclic) constrain nothing here:
        // one write per location, no RMWs, no dependencies.
        if (location_sc && causality) {
          ++v.consistent;
          v.allowed[static_cast<std::size_t>(outcome)] = true;
        } else {
          const auto o = static_cast<std::size_t>(outcome);
          ++rejected[o];
          by_axiom[o][0] += location_sc ? 0 : 1;
          by_axiom[o][1] += causality ? 0 : 1;
        }
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
    // Next rf choice.
    more = false;
    for (std::size_t k = 0; k < pick.size(); ++k) {
      if (++pick[k] < options[k].size()) {
        more = true;
        break;
      }
      pick[k] = 0;
    }
    if (pick.empty()) more = false;
  }
  // The reason for a forbidden outcome: the axioms that reject every one of its candidate
  // executions (where no single axiom does, each rejects some).
  const char* kAxiom[2] = {"SC per location", "causality"};
  for (std::size_t o = 0; o < kOutcomes; ++o) {
    if (v.allowed[o] || rejected[o] == 0) continue;
    std::string all, some;
    for (std::size_t a = 0; a < 2; ++a) {  // the axioms' names stay as the PTX ISA has them
      if (by_axiom[o][a] == rejected[o])
        all = all.empty() ? kAxiom[a] : say("reason.and", {{"first", all}, {"second", kAxiom[a]}});
      if (by_axiom[o][a] > 0) some = some.empty() ? kAxiom[a] : say("reason.or", {{"first", some}, {"second", kAxiom[a]}});
    }
    v.reasons[o] = all.empty() ? some : all;
  }
  return v;
}

ModelVerdict ptx_model(const LitmusSpec& s) {
  ModelVerdict v = ptx_model(ptx_program(s));
  const int w = weak_outcome(s.test);
  if (!v.allowed[static_cast<std::size_t>(w)]) v.forbidden_by = v.reasons[static_cast<std::size_t>(w)];
  return v;
}

namespace {

// "10 11": the outcomes (r0 r1) for which `pick(index)` holds, in index order; "(none)" for none.
template <class Pick>
std::string outcomes_text(Pick pick) {
  std::string s;
  for (int o = 0; o < kOutcomes; ++o)
    if (pick(static_cast<std::size_t>(o))) s += (s.empty() ? "" : " ") + std::to_string(o / 2) + std::to_string(o % 2);
  return s.empty() ? std::string("(none)") : s;
}

}  // namespace

std::string impossible_text(const ModelVerdict& v) {
  return outcomes_text([&](std::size_t o) { return !v.allowed[o] && v.reasons[o].empty(); });
}

std::string allowed_text(const ModelVerdict& v) {
  return outcomes_text([&](std::size_t o) { return v.allowed[o]; });
}

}  // namespace cudasync::threadfence
