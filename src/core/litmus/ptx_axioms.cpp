#include "core/litmus/ptx_axioms.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/litmus/relation.hpp"

namespace cudasync::litmus {

namespace {

constexpr int kMaxEvents = 64;

struct Event {
  enum class Kind { read, write, fence, barrier } kind = Kind::read;
  int thread = 0, instr = 0;
  std::string loc;
  Sem sem = Sem::weak;
  Scope scope = Scope::none;
  int barrier_id = 0, barrier_instance = 0;
  int rmw_write = -1;  // a read of an atom: its write
  bool strong() const { return kind == Kind::fence || kind == Kind::barrier || sem != Sem::weak; }
  bool is_memory() const { return kind == Kind::read || kind == Kind::write; }
  bool acquire() const { return kind == Kind::read && (sem == Sem::acquire || sem == Sem::acq_rel); }
  bool release() const { return kind == Kind::write && (sem == Sem::release || sem == Sem::acq_rel); }
  bool fence_acq_rel() const { return kind == Kind::fence; }  // fence.sc is also acq_rel
  bool fence_sc() const { return kind == Kind::fence && sem == Sem::sc; }
};

struct InstrId {
  int thread = 0, instr = 0;
  bool operator<(const InstrId& o) const { return thread != o.thread ? thread < o.thread : instr < o.instr; }
  bool operator==(const InstrId& o) const { return thread == o.thread && instr == o.instr; }
};

bool reads_memory(const Instr& in) { return in.op == Op::load || in.op == Op::atom || in.op == Op::red; }
bool writes_memory(const Instr& in) { return in.op == Op::store || in.op == Op::atom || in.op == Op::red; }

long long rmw_value(RmwOp op, long long old, long long a, long long b) {
  switch (op) {
    case RmwOp::add: return old + a;
    case RmwOp::sub: return old - a;
    case RmwOp::mul: return old * a;
    case RmwOp::xor_: return old ^ a;
    case RmwOp::exch: return a;
    case RmwOp::cas: return b;
    case RmwOp::max: return std::max(old, a);
    case RmwOp::min: return std::min(old, a);
    case RmwOp::and_: return old & a;
    case RmwOp::or_: return old | a;
    case RmwOp::inc: return old >= a ? 0 : old + 1;
  }
  return old;
}

// What a thread ran, given the rf choices: its registers and which instructions executed.
struct ThreadRun {
  std::map<std::string, long long> regs;
  std::vector<bool> executed;
  std::vector<long long> read_value;   // per instruction: the value its read returned
  std::vector<long long> write_value;  // per instruction: the value it wrote
  std::vector<bool> wrote;             // per instruction: it wrote (a failed cas does not)
};

class Model {
 public:
  explicit Model(const LitmusTest& t) : t_(t) {
    for (std::size_t th = 0; th < t.threads.size(); ++th)
      for (std::size_t i = 0; i < t.threads[th].code.size(); ++i) {
        const Instr& in = t.threads[th].code[i];
        const InstrId id{static_cast<int>(th), static_cast<int>(i)};
        if (reads_memory(in)) reads_.push_back(id);
        if (writes_memory(in)) writes_by_loc_[in.loc].push_back(id);
      }
    for (const InstrId& r : reads_) {
      std::vector<std::optional<InstrId>> o = {std::nullopt};  // the initial value
      for (const InstrId& w : writes_by_loc_[instr(r).loc])
        if (!(w == r)) o.push_back(w);
      options_.push_back(o);
    }
  }

  Verdict run() {
    Verdict v;
    std::vector<std::size_t> pick(reads_.size(), 0);
    for (bool more = true; more;) {
      visit(pick, v);
      more = false;
      for (std::size_t k = 0; k < pick.size(); ++k) {
        if (++pick[k] < options_[k].size()) {
          more = true;
          break;
        }
        pick[k] = 0;
      }
    }
    v.holds = t_.quantifier == Quantifier::exists ? v.reachable : !v.reachable;
    if (!v.reachable) {
      static const char* kOrder[] = {"Coherence", "FenceSC", "Atomicity", "SC-per-Location", "Causality"};
      for (const char* a : kOrder)
        if (rejected_[a] > 0) v.rejected_by.push_back({a, rejected_[a]});
      for (const auto& [a, n] : v.rejected_by)
        if (n == v.target_candidates && v.axiom.empty()) v.axiom = a;
      // No candidate gives it, and some would take their values from nowhere: what the outcome
      // needs could only come out of thin air.
      if (v.target_candidates == 0 && v.thin_air > 0) {
        v.rejected_by.push_back({"No-Thin-Air", v.thin_air});
        v.axiom = "No-Thin-Air";
      }
      if (example_) explain(*example_, v);
    } else if (witness_) {
      explain(*witness_, v);
    }
    return v;
  }

 private:
  const Instr& instr(const InstrId& id) const {
    return t_.threads[static_cast<std::size_t>(id.thread)].code[static_cast<std::size_t>(id.instr)];
  }

  // ---- values ---------------------------------------------------------------------------------

  // Runs every thread under the rf choice `src` (per read: nullopt for the initial value), to a
  // fixpoint: a value read from a write not yet known is unknown, and a branch on an unknown value
  // stops its thread for this round. Returns nullopt where some value is never known (the
  // choice's values depend on themselves: out of thin air) or a read's write did not execute.
  std::optional<std::vector<ThreadRun>> values(const std::vector<std::optional<InstrId>>& src, bool& thin_air) const {
    thin_air = false;
    const std::size_t nt = t_.threads.size();
    std::map<InstrId, std::optional<long long>> known;  // a write's value, when known
    std::map<InstrId, int> done;                        // a write: 1 executed, 0 not, absent unknown
    std::vector<ThreadRun> runs(nt);
    std::vector<bool> finished(nt, false);
    std::map<InstrId, std::size_t> read_index;
    for (std::size_t k = 0; k < reads_.size(); ++k) read_index[reads_[k]] = k;
    for (int round = 0; round < 4 * kMaxEvents; ++round) {
      bool changed = false;
      for (std::size_t th = 0; th < nt; ++th) {
        const Thread& T = t_.threads[th];
        ThreadRun run;
        run.executed.assign(T.code.size(), false);
        run.read_value.assign(T.code.size(), 0);
        run.write_value.assign(T.code.size(), 0);
        run.wrote.assign(T.code.size(), false);
        std::map<std::string, std::optional<long long>> regs;
        for (const auto& [key, val] : t_.regs)
          if (key.first == static_cast<int>(th)) regs[key.second] = val;
        const auto val = [&](const Operand& o) -> std::optional<long long> {
          if (!o.is_reg) return o.value;
          const auto it = regs.find(o.reg);
          return it == regs.end() ? std::optional<long long>(0) : it->second;
        };
        bool blocked = false;
        std::size_t pc = 0;
        while (pc < T.code.size()) {
          const Instr& in = T.code[pc];
          const InstrId id{static_cast<int>(th), static_cast<int>(pc)};
          run.executed[pc] = true;
          std::optional<long long> old;
          if (reads_memory(in)) {
            const std::optional<InstrId>& w = src[read_index.at(id)];
            if (!w) {
              const auto it = t_.memory.find(in.loc);
              old = it == t_.memory.end() ? 0 : it->second;
            } else {
              const auto d = done.find(*w);
              if (d != done.end() && d->second == 0) return std::nullopt;  // reads a write that never ran
              const auto k = known.find(*w);
              if (k != known.end()) old = k->second;
            }
            if (old) run.read_value[pc] = *old;
          }
          std::optional<long long> wval;
          bool writes = writes_memory(in);
          switch (in.op) {
            case Op::load: regs[in.dst] = old; break;
            case Op::move: regs[in.dst] = val(in.a); break;
            case Op::alu: {
              const auto a = val(in.a), b = val(in.b);
              regs[in.dst] = a && b ? std::optional<long long>(rmw_value(in.rmw, *a, *b, 0)) : std::nullopt;
              break;
            }
            case Op::store: wval = val(in.a); break;
            case Op::atom:
            case Op::red:
              if (in.op == Op::atom) regs[in.dst] = old;
              if (old && val(in.a) && (in.rmw != RmwOp::cas || val(in.b))) {
                if (in.rmw == RmwOp::cas && *old != *val(in.a)) writes = false;
                wval = rmw_value(in.rmw, *old, *val(in.a), in.rmw == RmwOp::cas ? *val(in.b) : 0);
              } else {
                writes = writes && in.rmw != RmwOp::cas;  // a cas whose old value is unknown: unknown
                if (in.rmw == RmwOp::cas) {
                  blocked = true;
                }
              }
              break;
            case Op::branch: {  // goto: 0 == 0
              const auto a = val(in.a);
              const auto b = val(in.b);
              if (!a || !b) {
                blocked = true;
                break;
              }
              if ((*a == *b) == in.branch_if_equal) {
                std::size_t to = pc;
                for (std::size_t m = pc + 1; m < T.code.size(); ++m)
                  if (T.code[m].op == Op::label && T.code[m].target == in.target) {
                    to = m;
                    break;
                  }
                pc = to;
              }
              break;
            }
            default: break;
          }
          if (blocked) {
            run.executed[pc] = false;
            break;
          }
          if (writes_memory(in)) {
            if (writes) {
              run.wrote[pc] = true;
              if (done[id] != 1) {
                done[id] = 1;
                changed = true;
              }
              if (wval) {
                run.write_value[pc] = *wval;
                if (!known[id] || *known[id] != *wval) {
                  known[id] = wval;
                  changed = true;
                }
              }
            } else if (done.count(id) == 0) {
              done[id] = 0;
              changed = true;
            }
          }
          ++pc;
        }
        if (!blocked) {
          // Whatever this thread did not reach, it did not write.
          for (std::size_t i = 0; i < T.code.size(); ++i)
            if (writes_memory(T.code[i]) && !run.executed[i] && done.count({static_cast<int>(th), static_cast<int>(i)}) == 0) {
              done[{static_cast<int>(th), static_cast<int>(i)}] = 0;
              changed = true;
            }
          bool all_known = true;
          for (const auto& [name, v] : regs) {
            if (v) run.regs[name] = *v;
            else all_known = false;
          }
          finished[th] = all_known;
        } else {
          finished[th] = false;
        }
        runs[th] = run;
      }
      if (!changed) break;
    }
    for (std::size_t th = 0; th < nt; ++th)
      if (!finished[th]) {
        thin_air = true;
        return std::nullopt;
      }
    // Every read reads a write that ran; a read that did not run takes the first choice only.
    for (std::size_t k = 0; k < reads_.size(); ++k) {
      const InstrId& r = reads_[k];
      const bool ran = runs[static_cast<std::size_t>(r.thread)].executed[static_cast<std::size_t>(r.instr)];
      if (!ran && src[k]) return std::nullopt;
      if (ran && src[k] && !runs[static_cast<std::size_t>(src[k]->thread)].wrote[static_cast<std::size_t>(src[k]->instr)])
        return std::nullopt;
    }
    return runs;
  }

  // ---- one rf choice ----------------------------------------------------------------------------

  struct Candidate {
    std::vector<std::size_t> pick;
    Rel co;
    std::vector<int> sc_order;
  };

  struct Graph {  // the events of one rf choice and what does not depend on co or the fence order
    std::vector<Event> ev;
    std::vector<ThreadRun> runs;
    Rel po, po_loc, ms, rf, rmw, rel_pat, acq_pat, sb;
    std::vector<int> read_src;  // per event: the write it reads (-1 the initial value)
  };

  bool in_scope(const Event& e, const Placement& other, int other_thread) const {
    if (e.thread == other_thread) return true;
    const Placement& p = t_.threads[static_cast<std::size_t>(e.thread)].where;
    switch (e.scope) {
      case Scope::none: return false;
      case Scope::cta: return !p.host && !other.host && p.gpu == other.gpu && p.cta == other.cta;
      case Scope::gpu: return !p.host && !other.host && p.gpu == other.gpu;
      case Scope::sys: return true;
    }
    return false;
  }

  Graph graph(const std::vector<std::optional<InstrId>>& src, std::vector<ThreadRun> runs) const {
    Graph g;
    g.runs = std::move(runs);
    std::map<std::pair<InstrId, int>, int> at;  // (instr, 0 read / 1 write / 2 other) -> event
    for (std::size_t th = 0; th < t_.threads.size(); ++th) {
      std::map<int, int> instances;
      for (std::size_t i = 0; i < t_.threads[th].code.size(); ++i) {
        if (!g.runs[th].executed[i]) continue;
        const Instr& in = t_.threads[th].code[i];
        const InstrId id{static_cast<int>(th), static_cast<int>(i)};
        Event e;
        e.thread = static_cast<int>(th);
        e.instr = static_cast<int>(i);
        e.loc = in.loc;
        e.sem = in.sem;
        e.scope = in.scope;
        if (reads_memory(in)) {
          e.kind = Event::Kind::read;
          e.sem = in.sem == Sem::release ? Sem::relaxed : in.sem;  // an atom.release reads relaxed
          at[{id, 0}] = static_cast<int>(g.ev.size());
          g.ev.push_back(e);
        }
        if (writes_memory(in) && g.runs[th].wrote[i]) {
          e.kind = Event::Kind::write;
          e.sem = in.sem == Sem::acquire ? Sem::relaxed : in.sem;  // an atom.acquire writes relaxed
          at[{id, 1}] = static_cast<int>(g.ev.size());
          g.ev.push_back(e);
          if (reads_memory(in)) g.ev[static_cast<std::size_t>(at[{id, 0}])].rmw_write = static_cast<int>(g.ev.size()) - 1;
        }
        if (in.op == Op::fence || in.op == Op::barrier) {
          e.kind = in.op == Op::fence ? Event::Kind::fence : Event::Kind::barrier;
          e.barrier_id = in.barrier_id;
          e.barrier_instance = instances[in.barrier_id]++;
          at[{id, 2}] = static_cast<int>(g.ev.size());
          g.ev.push_back(e);
        }
      }
    }
    const int n = static_cast<int>(g.ev.size());
    if (n > kMaxEvents)
      throw ModelLimitError(std::to_string(n) + " events; the model handles at most " + std::to_string(kMaxEvents));
    g.po = Rel(n);
    g.po_loc = Rel(n);
    g.ms = Rel(n);
    g.rf = Rel(n);
    g.rmw = Rel(n);
    g.sb = Rel(n);
    g.read_src.assign(static_cast<std::size_t>(n), -1);
    for (int a = 0; a < n; ++a) {
      const Event& ea = g.ev[static_cast<std::size_t>(a)];
      if (ea.rmw_write >= 0) g.rmw.add(a, ea.rmw_write);
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        const Event& eb = g.ev[static_cast<std::size_t>(b)];
        const bool same_thread = ea.thread == eb.thread;
        if (same_thread && a < b) {
          g.po.add(a, b);
          if (ea.is_memory() && eb.is_memory() && ea.loc == eb.loc) g.po_loc.add(a, b);
        }
        // Morally strong: related in program order, or both strong and each in the other's scope;
        // two memory operations overlap (here: the same location).
        const Placement& pa = t_.threads[static_cast<std::size_t>(ea.thread)].where;
        const Placement& pb = t_.threads[static_cast<std::size_t>(eb.thread)].where;
        const bool scoped = same_thread || (ea.strong() && eb.strong() && in_scope(ea, pb, eb.thread) && in_scope(eb, pa, ea.thread));
        const bool overlap = !(ea.is_memory() && eb.is_memory()) || ea.loc == eb.loc;
        if (scoped && overlap) g.ms.add(a, b);
        // Barriers: the same id in one CTA of one GPU, the same instance, meet.
        if (ea.kind == Event::Kind::barrier && eb.kind == Event::Kind::barrier && !same_thread && !pa.host && !pb.host &&
            pa.gpu == pb.gpu && pa.cta == pb.cta && ea.barrier_id == eb.barrier_id && ea.barrier_instance == eb.barrier_instance)
          g.sb.add(a, b);
      }
    }
    for (std::size_t k = 0; k < reads_.size(); ++k) {
      const auto r = at.find({reads_[k], 0});
      if (r == at.end()) continue;
      if (src[k]) {
        const int w = at.at({*src[k], 1});
        g.rf.add(w, r->second);
        g.read_src[static_cast<std::size_t>(r->second)] = w;
      }
    }
    // Release pattern: a release write to a strong write of the same location after it (or
    // itself), or a fence to a strong write after it. Acquire pattern: a strong read to an acquire
    // read of the same location after it (or itself), or a strong read to a fence after it.
    g.rel_pat = Rel(n);
    g.acq_pat = Rel(n);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const Event& ea = g.ev[static_cast<std::size_t>(a)];
        const Event& eb = g.ev[static_cast<std::size_t>(b)];
        const bool strong_write = eb.kind == Event::Kind::write && eb.strong();
        if (ea.release() && strong_write && (a == b || g.po_loc.has(a, b))) g.rel_pat.add(a, b);
        if (ea.fence_acq_rel() && strong_write && g.po.has(a, b)) g.rel_pat.add(a, b);
        const bool strong_read = ea.kind == Event::Kind::read && ea.strong();
        if (strong_read && eb.acquire() && (a == b || g.po_loc.has(a, b))) g.acq_pat.add(a, b);
        if (strong_read && eb.fence_acq_rel() && g.po.has(a, b)) g.acq_pat.add(a, b);
      }
    return g;
  }

  // ---- one candidate -------------------------------------------------------------------------------

  struct Checked {
    std::set<std::string> broken;  // the axioms it breaks
    Rel fr, cause, sf, obs, sync;
  };

  Checked check(const Graph& g, const Rel& co, const std::vector<int>& sc_order) const {
    const int n = static_cast<int>(g.ev.size());
    Checked c;
    c.fr = Rel(n);
    for (int r = 0; r < n; ++r) {
      if (g.ev[static_cast<std::size_t>(r)].kind != Event::Kind::read) continue;
      const int w = g.read_src[static_cast<std::size_t>(r)];
      for (int w2 = 0; w2 < n; ++w2) {
        const Event& e2 = g.ev[static_cast<std::size_t>(w2)];
        if (e2.kind != Event::Kind::write || e2.loc != g.ev[static_cast<std::size_t>(r)].loc) continue;
        if (w < 0 ? true : co.has(w, w2)) c.fr.add(r, w2);
      }
    }
    c.sf = Rel(n);
    for (std::size_t i = 0; i < sc_order.size(); ++i)
      for (std::size_t j = i + 1; j < sc_order.size(); ++j)
        if (g.ms.has(sc_order[i], sc_order[j])) c.sf.add(sc_order[i], sc_order[j]);
    // Observation: a morally strong rf, or through atomics: obs ; rmw ; obs.
    c.obs = g.ms & g.rf;
    for (;;) {
      const Rel next = c.obs | seq(seq(c.obs, g.rmw), c.obs);
      if (next == c.obs) break;
      c.obs = next;
    }
    c.sync = g.ms & seq(seq(g.rel_pat, c.obs), g.acq_pat);
    const Rel po_opt = g.po | identity(n);
    const Rel step = seq(c.sync | c.sf | g.sb, po_opt);
    const Rel cause_base = seq(po_opt, plus(step));
    c.cause = cause_base | seq(c.obs, cause_base | g.po_loc);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const Event& ea = g.ev[static_cast<std::size_t>(a)];
        const Event& eb = g.ev[static_cast<std::size_t>(b)];
        if (!c.cause.has(a, b)) continue;
        if (ea.kind == Event::Kind::write && eb.kind == Event::Kind::write && ea.loc == eb.loc && !co.has(a, b))
          c.broken.insert("Coherence");
        if (ea.fence_sc() && eb.fence_sc() && !c.sf.has(a, b)) c.broken.insert("FenceSC");
      }
    const Rel ms_co = g.ms & co;
    if (!((seq(g.ms & c.fr, ms_co) & g.rmw) == Rel(n))) c.broken.insert("Atomicity");
    if (!acyclic((g.ms & (g.rf | co | c.fr)) | g.po_loc)) c.broken.insert("SC-per-Location");
    if (!irreflexive(seq(g.rf | c.fr, c.cause))) c.broken.insert("Causality");
    return c;
  }

  // Coherence orders: per location, each pair of writes ordered either way, or (where the two are
  // not morally strong) unordered; transitively closed, acyclic, each once.
  std::vector<Rel> coherence_orders(const Graph& g) const {
    const int n = static_cast<int>(g.ev.size());
    std::vector<std::pair<int, int>> pairs;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        const Event& ea = g.ev[static_cast<std::size_t>(a)];
        const Event& eb = g.ev[static_cast<std::size_t>(b)];
        if (ea.kind == Event::Kind::write && eb.kind == Event::Kind::write && ea.loc == eb.loc) pairs.push_back({a, b});
      }
    std::set<Rel> seen;
    std::vector<Rel> out;
    std::vector<int> pick(pairs.size(), 0);
    for (bool more = true; more;) {
      Rel co(n);
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const auto [a, b] = pairs[k];
        if (pick[k] == 0) co.add(a, b);
        else if (pick[k] == 1) co.add(b, a);
      }
      co = plus(co);
      if (irreflexive(co) && seen.insert(co).second) out.push_back(co);
      more = false;
      for (std::size_t k = 0; k < pick.size(); ++k) {
        const int choices = g.ms.has(pairs[k].first, pairs[k].second) ? 2 : 3;
        if (++pick[k] < choices) {
          more = true;
          break;
        }
        pick[k] = 0;
      }
    }
    return out;
  }

  // Does the candidate give the outcome in question? Final memory: the value of a write last in
  // coherence order (several where the order leaves them unordered: any of them).
  bool gives_target(const Graph& g, const Rel& co, std::vector<std::string>* state = nullptr) const {
    std::map<std::string, std::vector<long long>> finals;
    std::set<std::string> locs;
    for (const auto& [l, v] : t_.memory) locs.insert(l);
    for (const Event& e : g.ev)
      if (e.is_memory()) locs.insert(e.loc);
    for (const std::string& l : locs) {
      std::vector<long long> vals;
      for (int w = 0; w < static_cast<int>(g.ev.size()); ++w) {
        const Event& e = g.ev[static_cast<std::size_t>(w)];
        if (e.kind != Event::Kind::write || e.loc != l) continue;
        bool last = true;
        for (int w2 = 0; w2 < static_cast<int>(g.ev.size()); ++w2)
          if (co.has(w, w2)) last = false;
        if (last) vals.push_back(g.runs[static_cast<std::size_t>(e.thread)].write_value[static_cast<std::size_t>(e.instr)]);
      }
      if (vals.empty()) {
        const auto it = t_.memory.find(l);
        vals.push_back(it == t_.memory.end() ? 0 : it->second);
      }
      finals[l] = vals;
    }
    // Each combination of last writes is a final state.
    std::vector<std::string> names;
    for (const auto& [l, v] : finals) names.push_back(l);
    std::vector<std::size_t> pick(names.size(), 0);
    for (bool more = true; more;) {
      std::map<std::string, long long> mem;
      for (std::size_t k = 0; k < names.size(); ++k) mem[names[k]] = finals[names[k]][pick[k]];
      const bool c = eval(t_.condition, g, mem);
      const bool target = t_.quantifier == Quantifier::forall ? !c : c;
      if (target) {
        if (state) {
          for (std::size_t th = 0; th < t_.threads.size(); ++th)
            for (const auto& [r, v] : g.runs[th].regs)
              state->push_back(t_.threads[th].name + ":" + r + " = " + std::to_string(v));
          for (const auto& [l, v] : mem) state->push_back(l + " = " + std::to_string(v));
        }
        return true;
      }
      more = false;
      for (std::size_t k = 0; k < pick.size(); ++k) {
        if (++pick[k] < finals[names[k]].size()) {
          more = true;
          break;
        }
        pick[k] = 0;
      }
    }
    return false;
  }

  long long term(const Term& x, const Graph& g, const std::map<std::string, long long>& mem) const {
    switch (x.kind) {
      case Term::Kind::value: return x.value;
      case Term::Kind::loc: {
        const auto it = mem.find(x.name);
        return it == mem.end() ? 0 : it->second;
      }
      case Term::Kind::reg: {
        const auto& regs = g.runs[static_cast<std::size_t>(x.thread)].regs;
        const auto it = regs.find(x.name);
        if (it != regs.end()) return it->second;
        const auto init = t_.regs.find({x.thread, x.name});
        return init == t_.regs.end() ? 0 : init->second;
      }
    }
    return 0;
  }

  bool eval(const Cond& c, const Graph& g, const std::map<std::string, long long>& mem) const {
    switch (c.kind) {
      case Cond::Kind::truth: return true;
      case Cond::Kind::eq: return term(c.lhs, g, mem) == term(c.rhs, g, mem);
      case Cond::Kind::ne: return term(c.lhs, g, mem) != term(c.rhs, g, mem);
      case Cond::Kind::not_: return !eval(*c.kids[0], g, mem);
      case Cond::Kind::and_: return eval(*c.kids[0], g, mem) && eval(*c.kids[1], g, mem);
      case Cond::Kind::or_: return eval(*c.kids[0], g, mem) || eval(*c.kids[1], g, mem);
    }
    return false;
  }

  void visit(const std::vector<std::size_t>& pick, Verdict& v) {
    std::vector<std::optional<InstrId>> src;
    for (std::size_t k = 0; k < pick.size(); ++k) src.push_back(options_[k][pick[k]]);
    bool thin_air = false;
    auto runs = values(src, thin_air);
    if (!runs) {
      if (thin_air) ++v.thin_air;
      return;
    }
    const Graph g = graph(src, std::move(*runs));
    std::vector<int> fences;
    for (int e = 0; e < static_cast<int>(g.ev.size()); ++e)
      if (g.ev[static_cast<std::size_t>(e)].fence_sc()) fences.push_back(e);
    for (const Rel& co : coherence_orders(g)) {
      const bool target = gives_target(g, co);
      std::vector<int> order = fences;
      std::set<Rel> orders;
      do {
        Rel sf(static_cast<int>(g.ev.size()));
        for (std::size_t i = 0; i < order.size(); ++i)
          for (std::size_t j = i + 1; j < order.size(); ++j)
            if (g.ms.has(order[i], order[j])) sf.add(order[i], order[j]);
        if (!orders.insert(sf).second) continue;
        if (++v.candidates > kMaxCandidates)
          throw ModelLimitError("more than " + std::to_string(kMaxCandidates) + " candidate executions");
        const Checked c = check(g, co, order);
        if (c.broken.empty()) ++v.consistent;
        if (!target) continue;
        ++v.target_candidates;
        if (c.broken.empty()) {
          if (!v.reachable) witness_ = Candidate{pick, co, order};
          v.reachable = true;
        } else {
          for (const std::string& a : c.broken) ++rejected_[a];
          if (!example_ || (c.broken.size() < example_broken_)) {
            example_ = Candidate{pick, co, order};
            example_broken_ = c.broken.size();
          }
        }
      } while (std::next_permutation(order.begin(), order.end()));
    }
  }

  // ---- the explanation ---------------------------------------------------------------------------

  std::string event_text(const Graph& g, int e) const {
    const Event& ev = g.ev[static_cast<std::size_t>(e)];
    const Instr& in = t_.threads[static_cast<std::size_t>(ev.thread)].code[static_cast<std::size_t>(ev.instr)];
    std::string s = in.text;
    if (in.op == Op::atom || in.op == Op::red) s += ev.kind == Event::Kind::read ? " (read)" : " (write)";
    return s;
  }

  static std::string letter(int e) {
    std::string s;
    do {
      s = static_cast<char>('a' + e % 26) + s;
      e = e / 26 - 1;
    } while (e >= 0);
    return s;
  }

  // A path from `from` to `to` over the named relations, breadth first.
  std::vector<Step> path(const std::vector<std::pair<std::string, Rel>>& rels, int from, int to) const {
    const int n = rels.front().second.n();
    std::vector<int> prev(static_cast<std::size_t>(n), -1);
    std::vector<std::string> how(static_cast<std::size_t>(n));
    std::vector<int> queue = {from};
    std::vector<bool> seen(static_cast<std::size_t>(n), false);
    seen[static_cast<std::size_t>(from)] = true;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const int a = queue[q];
      for (const auto& [name, r] : rels)
        for (int b = 0; b < n; ++b)
          if (r.has(a, b) && (!seen[static_cast<std::size_t>(b)] || (b == to && b == from))) {
            if (b == to) {
              std::vector<Step> steps = {{a, b, name}};
              for (int x = a; x != from; x = prev[static_cast<std::size_t>(x)])
                steps.insert(steps.begin(), {prev[static_cast<std::size_t>(x)], x, how[static_cast<std::size_t>(x)]});
              return steps;
            }
            seen[static_cast<std::size_t>(b)] = true;
            prev[static_cast<std::size_t>(b)] = a;
            how[static_cast<std::size_t>(b)] = name;
            queue.push_back(b);
          }
    }
    return {};
  }

  void explain(const Candidate& cand, Verdict& v) const {
    std::vector<std::optional<InstrId>> src;
    for (std::size_t k = 0; k < cand.pick.size(); ++k) src.push_back(options_[k][cand.pick[k]]);
    bool thin_air = false;
    const Graph g = graph(src, *values(src, thin_air));
    const int n = static_cast<int>(g.ev.size());
    for (int e = 0; e < n; ++e)
      v.events.push_back({letter(e), g.ev[static_cast<std::size_t>(e)].thread, event_text(g, e),
                          t_.threads[static_cast<std::size_t>(g.ev[static_cast<std::size_t>(e)].thread)]
                              .code[static_cast<std::size_t>(g.ev[static_cast<std::size_t>(e)].instr)].line});
    for (int r = 0; r < n; ++r)
      if (g.ev[static_cast<std::size_t>(r)].kind == Event::Kind::read) {
        const int w = g.read_src[static_cast<std::size_t>(r)];
        v.rf.emplace_back(letter(r), w < 0 ? std::string() : letter(w));
      }
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (cand.co.has(a, b)) v.co.emplace_back(letter(a), letter(b));
    gives_target(g, cand.co, &v.final_state);
    const Checked c = check(g, cand.co, cand.sc_order);
    if (c.broken.empty()) return;
    const Rel cause_steps_po = g.po;
    const std::vector<std::pair<std::string, Rel>> cause_rels = {
        {"obs", c.obs}, {"sync", c.sync}, {"fence-sc", c.sf}, {"bar", g.sb}, {"po", cause_steps_po}, {"po-loc", g.po_loc}};
    // The first axiom it breaks, in the order the PTX ISA lists them.
    for (const char* axiom : {"SC-per-Location", "Causality", "Coherence", "FenceSC", "Atomicity"}) {
      if (c.broken.count(axiom) == 0) continue;
      v.example_axiom = axiom;
      const std::string a = axiom;
      if (a == "SC-per-Location") {
        const std::vector<std::pair<std::string, Rel>> rels = {
            {"rf", g.ms & g.rf}, {"co", g.ms & cand.co}, {"fr", g.ms & c.fr}, {"po-loc", g.po_loc}};
        for (int e = 0; e < n && v.cycle.empty(); ++e) v.cycle = path(rels, e, e);
      } else if (a == "Causality") {
        const Rel rffr = g.rf | c.fr;
        for (int x = 0; x < n && v.cycle.empty(); ++x)
          for (int y = 0; y < n && v.cycle.empty(); ++y)
            if (rffr.has(x, y) && c.cause.has(y, x)) {
              v.cycle = {{x, y, g.rf.has(x, y) ? "rf" : "fr"}};
              const auto back = path(cause_rels, y, x);
              if (back.empty()) v.cycle.push_back({y, x, "cause"});
              v.cycle.insert(v.cycle.end(), back.begin(), back.end());
            }
      } else if (a == "Coherence" || a == "FenceSC") {
        for (int x = 0; x < n && v.cycle.empty(); ++x)
          for (int y = 0; y < n && v.cycle.empty(); ++y) {
            const Event& ex = g.ev[static_cast<std::size_t>(x)];
            const Event& ey = g.ev[static_cast<std::size_t>(y)];
            const bool bad = a == "Coherence"
                                 ? ex.kind == Event::Kind::write && ey.kind == Event::Kind::write && ex.loc == ey.loc &&
                                       c.cause.has(x, y) && !cand.co.has(x, y)
                                 : ex.fence_sc() && ey.fence_sc() && c.cause.has(x, y) && !c.sf.has(x, y);
            if (!bad) continue;
            v.cycle = path(cause_rels, x, y);
            if (v.cycle.empty()) v.cycle = {{x, y, "cause"}};
            if (a == "Coherence" ? cand.co.has(y, x) : c.sf.has(y, x)) v.cycle.push_back({y, x, a == "Coherence" ? "co" : "fence-sc"});
          }
      } else {  // Atomicity
        for (int r = 0; r < n && v.cycle.empty(); ++r)
          for (int w = 0; w < n && v.cycle.empty(); ++w)
            if (g.rmw.has(r, w))
              for (int w2 = 0; w2 < n && v.cycle.empty(); ++w2)
                if ((g.ms & c.fr).has(r, w2) && (g.ms & cand.co).has(w2, w))
                  v.cycle = {{r, w2, "fr"}, {w2, w, "co"}, {w, r, "rmw"}};
      }
      break;
    }
  }

  const LitmusTest& t_;
  std::vector<InstrId> reads_;
  std::map<std::string, std::vector<InstrId>> writes_by_loc_;
  std::vector<std::vector<std::optional<InstrId>>> options_;
  std::map<std::string, long long> rejected_;
  std::optional<Candidate> witness_, example_;
  std::size_t example_broken_ = 0;
};

}  // namespace

Verdict judge(const LitmusTest& test) { return Model(test).run(); }

}  // namespace cudasync::litmus
