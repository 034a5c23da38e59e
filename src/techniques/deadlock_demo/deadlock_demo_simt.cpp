#include "techniques/deadlock_demo/deadlock_demo_simt.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace cudasync::deadlock_demo::simt {

const char* to_string(Regime r) { return r == Regime::lockstep ? "lockstep" : "independent"; }

std::optional<Regime> parse_regime(const std::string& s) {
  if (s == "lockstep") return Regime::lockstep;
  if (s == "independent") return Regime::independent;
  return std::nullopt;
}

long long Result::word(const std::string& name) const {
  for (std::size_t i = 0; i < machine.words.size() && i < memory.size(); ++i)
    if (machine.words[i].name == name) return memory[i];
  return -1;
}

namespace {

struct Lane {
  int pc = 0;
  long long r = 0;
  int i = 0;  // loop counter
  bool exited = false;
  int wait_word = -1;  // the word its last spin read was on
  long long seen = 0;
};

struct Entry {
  int pc;
  std::vector<bool> mask;
  int rpc;
};

bool is_branch(Op op) { return op == Op::bra_ne0 || op == Op::bra_eq0 || op == Op::loop; }

class Sim {
 public:
  Sim(const Machine& m, int trace_lanes, int trace_rows)
      : m_(m), lanes_(static_cast<std::size_t>(m.lanes)), mem_(m.words.size(), 0),
        trace_lanes_(std::min(trace_lanes, m.lanes)), trace_rows_(trace_rows) {
    if (m.regime == Regime::lockstep) stack_.push_back({0, std::vector<bool>(lanes_.size(), true), -1});
  }

  Result run(long long max_steps) {
    Result res;
    res.machine = m_;
    for (int l = 0; l < trace_lanes_; ++l) res.columns.push_back(m_.noun + " " + std::to_string(l));
    std::unordered_map<std::string, long long> seen_at;
    seen_at.emplace(key(), 0);
    long long step = 0;
    while (step < max_steps) {
      if (all_exited()) {
        res.completed = true;
        break;
      }
      ++step;
      TraceRow row;
      row.step = step;
      row.cells.assign(static_cast<std::size_t>(trace_lanes_), "");
      if (m_.regime == Regime::lockstep) step_lockstep(row);
      else step_independent(row);
      row.memory = memory_text();
      const auto [it, fresh] = seen_at.emplace(key(), step);
      if (!fresh) {
        res.deadlock = true;
        res.repeat_from = it->second;
        row.note += std::string(row.note.empty() ? "" : "; ") +
                    (it->second == 0 ? std::string("the same state as at the start")
                                     : "the same state as after step " + std::to_string(it->second)) +
                    ": it repeats forever";
      }
      if (step <= trace_rows_) res.trace.push_back(std::move(row));
      else ++res.rows_not_shown;
      if (res.deadlock) break;
    }
    if (!res.deadlock && all_exited()) res.completed = true;
    res.steps = step;
    res.memory = mem_;
    fill_records(res);
    return res;
  }

 private:
  const Machine& m_;
  std::vector<Lane> lanes_;
  std::vector<long long> mem_;
  std::vector<Entry> stack_;
  int trace_lanes_;
  int trace_rows_;

  int n() const { return static_cast<int>(lanes_.size()); }
  Lane& lane(int l) { return lanes_[static_cast<std::size_t>(l)]; }

  bool all_exited() const {
    return std::all_of(lanes_.begin(), lanes_.end(), [](const Lane& l) { return l.exited; });
  }

  int word_of(const Instr& in, int l) const {
    switch (in.at) {
      case At::fixed: return in.base;
      case At::self: return in.base + l;
      case At::next: return in.base + (l + 1) % n();
    }
    return in.base;
  }
  const Word& w(int idx) const { return m_.words[static_cast<std::size_t>(idx)]; }

  std::string holder_text(long long v) const {
    return v > 0 ? " (held by " + m_.noun + " " + std::to_string(v - 1) + ")" : "";
  }

  // Executes the non-branch instruction at the lane's pc; returns what the lane did, in words.
  std::string exec(int l, const Instr& in) {
    Lane& ln = lane(l);
    const int wi = word_of(in, l);
    const long long val = in.value_self ? l + 1 : in.value;
    std::string cell;
    switch (in.op) {
      case Op::cas: {
        const long long old = mem_[static_cast<std::size_t>(wi)];
        if (old == 0) mem_[static_cast<std::size_t>(wi)] = val;
        ln.r = old;
        cell = "CAS " + w(wi).name + ": " + std::to_string(old) + (old == 0 ? ", takes it" : holder_text(old));
        break;
      }
      case Op::ld:
        ln.r = mem_[static_cast<std::size_t>(wi)];
        cell = "reads " + w(wi).name + " = " + std::to_string(ln.r);
        break;
      case Op::st:
        mem_[static_cast<std::size_t>(wi)] = val;
        cell = w(wi).name + " = " + std::to_string(val);
        break;
      case Op::add:
        cell = w(wi).name + " = " + std::to_string(++mem_[static_cast<std::size_t>(wi)]);
        break;
      case Op::exch:
        mem_[static_cast<std::size_t>(wi)] = val;
        cell = val == 0 ? "releases " + w(wi).name : w(wi).name + " = " + std::to_string(val);
        break;
      default: break;
    }
    if (in.wait) {
      ln.wait_word = wi;
      ln.seen = ln.r;  // what the spin read: the old lock word, or the flag
    }
    return cell;
  }

  bool taken(int l, const Instr& in) {
    Lane& ln = lane(l);
    switch (in.op) {
      case Op::bra_ne0: return ln.r != 0;
      case Op::bra_eq0: return ln.r == 0;
      case Op::loop: return ++ln.i < m_.iters;
      default: return false;
    }
  }

  static std::string branch_cell(const Instr& in, bool t, int pc) {
    if (in.op == Op::loop) return t ? "next round" : "done";
    if (t) return in.target <= pc ? "spins" : "jumps";
    return in.target <= pc ? "leaves the loop" : "goes on";
  }

  void step_independent(TraceRow& row) {
    for (int l = 0; l < n(); ++l) {
      Lane& ln = lane(l);
      std::string cell;
      if (ln.exited) {
        cell = "exited";
      } else {
        const Instr& in = m_.code[static_cast<std::size_t>(ln.pc)];
        if (in.op == Op::exit) {
          ln.exited = true;
          cell = "exits";
        } else if (is_branch(in.op)) {
          const bool t = taken(l, in);
          cell = branch_cell(in, t, ln.pc);
          ln.pc = t ? in.target : ln.pc + 1;
        } else {
          cell = exec(l, in);
          ++ln.pc;
        }
      }
      if (l < trace_lanes_) row.cells[static_cast<std::size_t>(l)] = cell;
    }
  }

  std::string lanes_text(const std::vector<bool>& mask) const {
    std::string s;
    int count = 0;
    for (int i = 0; i < n(); ++i) {
      if (!mask[static_cast<std::size_t>(i)]) continue;
      int j = i;
      while (j + 1 < n() && mask[static_cast<std::size_t>(j + 1)]) ++j;
      s += (s.empty() ? "" : ", ") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
      count += j - i + 1;
      i = j;
    }
    return (count == 1 ? m_.noun + " " : m_.noun + "s ") + s;
  }

  void step_lockstep(TraceRow& row) {
    // Entries that have reached their reconvergence point, or lost every lane, give way.
    while (!stack_.empty()) {
      const Entry& top = stack_.back();
      const bool empty = std::none_of(top.mask.begin(), top.mask.end(), [](bool b) { return b; });
      if (!empty && top.pc != top.rpc) break;
      stack_.pop_back();
    }
    if (stack_.empty()) return;
    const std::size_t t = stack_.size() - 1;
    const int pc = stack_[t].pc;
    const std::vector<bool> mask = stack_[t].mask;
    const Instr& in = m_.code[static_cast<std::size_t>(pc)];
    std::vector<std::string> cells(lanes_.size());
    if (in.op == Op::exit) {
      for (int l = 0; l < n(); ++l)
        if (mask[static_cast<std::size_t>(l)]) {
          lane(l).exited = true;
          cells[static_cast<std::size_t>(l)] = "exits";
          for (auto& e : stack_) e.mask[static_cast<std::size_t>(l)] = false;
        }
    } else if (is_branch(in.op)) {
      std::vector<bool> tk(lanes_.size(), false), nt(lanes_.size(), false);
      bool any_t = false, any_nt = false;
      for (int l = 0; l < n(); ++l) {
        if (!mask[static_cast<std::size_t>(l)]) continue;
        const bool tt = taken(l, in);
        (tt ? tk : nt)[static_cast<std::size_t>(l)] = true;
        (tt ? any_t : any_nt) = true;
        cells[static_cast<std::size_t>(l)] = branch_cell(in, tt, pc);
      }
      if (!any_nt) {
        stack_[t].pc = in.target;
      } else if (!any_t) {
        stack_[t].pc = pc + 1;
      } else {
        // Divergence: this entry waits at the reconvergence point with every lane; the sides that
        // are not already there are pushed, the taken side last, so it runs first.
        const int rpc = in.reconverge;
        stack_[t].pc = rpc;
        if (pc + 1 != rpc) stack_.push_back({pc + 1, nt, rpc});
        if (in.target != rpc) stack_.push_back({in.target, tk, rpc});
        row.note = lanes_text(tk) + " go to " + std::to_string(in.target) + ", " + lanes_text(nt) + " to " +
                   std::to_string(pc + 1) + "; they meet again at " + std::to_string(rpc);
      }
    } else {
      for (int l = 0; l < n(); ++l)
        if (mask[static_cast<std::size_t>(l)]) cells[static_cast<std::size_t>(l)] = exec(l, in);
      stack_[t].pc = pc + 1;
    }
    // Lanes the warp is not running: parked at the pc of the topmost entry that holds them.
    for (int l = 0; l < trace_lanes_; ++l) {
      std::string c = cells[static_cast<std::size_t>(l)];
      if (c.empty()) {
        if (lane(l).exited) c = "exited";
        else if (const int at = parked_at(l); at >= 0) c = "waits at " + std::to_string(at);
      }
      row.cells[static_cast<std::size_t>(l)] = c;
    }
  }

  // The pc a lane the warp is not running will resume at, -1 if the top entry holds it.
  int parked_at(int l) const {
    for (std::size_t k = stack_.size(); k-- > 0;) {
      if (!stack_[k].mask[static_cast<std::size_t>(l)]) continue;
      return k + 1 == stack_.size() ? -1 : stack_[k].pc;
    }
    return -1;
  }

  std::string memory_text() const {
    // Words of one family ("flag 0", "flag 1", ...) print as one item with the traced lanes' values.
    std::string s;
    std::map<std::string, std::vector<long long>> families;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < m_.words.size(); ++i) {
      const std::string& name = m_.words[i].name;
      const auto sp = name.find('[');
      const std::string fam = sp == std::string::npos ? name : name.substr(0, sp);
      if (!families.count(fam)) order.push_back(fam);
      families[fam].push_back(mem_[i]);
    }
    for (const auto& fam : order) {
      const auto& v = families[fam];
      std::string item = fam + " ";
      const std::size_t shown = v.size() == 1 ? 1 : std::min<std::size_t>(v.size(), static_cast<std::size_t>(trace_lanes_));
      for (std::size_t i = 0; i < shown; ++i) item += (i ? "," : "") + std::to_string(v[i]);
      if (shown < v.size()) item += ",...";
      s += (s.empty() ? "" : ", ") + item;
    }
    return s;
  }

  std::string key() const {
    std::string k;
    const auto put = [&k](long long v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
    for (const auto& l : lanes_) {
      put(m_.regime == Regime::independent ? l.pc : 0);
      put(l.r);
      put(l.i);
      put(l.exited);
    }
    for (const auto& e : stack_) {
      put(e.pc);
      put(e.rpc);
      for (bool b : e.mask) k.push_back(b ? '1' : '0');
    }
    for (long long v : mem_) put(v);
    return k;
  }

  void fill_records(Result& res) {
    res.records.assign(lanes_.size(), Record{});
    for (int l = 0; l < n(); ++l) {
      Record& r = res.records[static_cast<std::size_t>(l)];
      const Lane& ln = lanes_[static_cast<std::size_t>(l)];
      r.start_ns = 0;
      if (ln.exited) {
        r.state = static_cast<int>(State::finished);
        continue;
      }
      r.state = static_cast<int>(State::gave_up);
      const int at = m_.regime == Regime::lockstep ? parked_at(l) : -1;
      if (at >= 0) {
        r.on = -1;
        r.seen = at;
      } else if (ln.wait_word >= 0) {
        r.on = w(ln.wait_word).id;
        r.seen = ln.seen;
      }
    }
    if (!res.deadlock) return;
    // The wait-for graph, lane by lane.
    for (int l = 0; l < n(); ++l) res.graph.add_node(m_.noun + " " + std::to_string(l));
    struct Wait {
      std::vector<int> to;
      std::string on;
      bool next_flag = false;  // it waits for the flag of the lane after it
    };
    std::vector<Wait> waits(lanes_.size());
    std::vector<int> running;
    if (m_.regime == Regime::lockstep && !stack_.empty())
      for (int l = 0; l < n(); ++l)
        if (stack_.back().mask[static_cast<std::size_t>(l)]) running.push_back(l);
    for (int l = 0; l < n(); ++l) {
      const Lane& ln = lanes_[static_cast<std::size_t>(l)];
      if (ln.exited) continue;
      auto& [to, on, next_flag] = waits[static_cast<std::size_t>(l)];
      const int at = m_.regime == Regime::lockstep ? parked_at(l) : -1;
      if (at >= 0) {
        to = running;
        on = "the warp to reconverge at pc " + std::to_string(at) + " (it runs only them)";
      } else if (ln.wait_word >= 0) {
        const Word& wd = w(ln.wait_word);
        if (wd.kind == Word::Kind::lock && ln.seen > 0) {
          to = {static_cast<int>(ln.seen - 1)};
          on = wd.name + ", which it holds (read " + std::to_string(ln.seen) + ")";
        } else if (wd.kind == Word::Kind::flag && wd.owner >= 0) {
          to = {wd.owner};
          on = "its " + wd.name + " (read " + std::to_string(ln.seen) + ")";
          next_flag = wd.owner == (l + 1) % n();
        }
      }
      for (int t : to) res.graph.add_edge(l, t, on);
    }
    // Folded for the report: consecutive lanes that wait for the same lanes on the same thing, or
    // each for the next lane on the same kind of thing, form one line.
    const auto target_text = [&](int l) -> std::string {
      const auto& to = waits[static_cast<std::size_t>(l)].to;
      if (waits[static_cast<std::size_t>(l)].next_flag) return "the next " + m_.noun;
      std::vector<bool> mask(lanes_.size(), false);
      for (int t : to) mask[static_cast<std::size_t>(t)] = true;
      return to.empty() ? "nobody" : lanes_text(mask);
    };
    const auto on_text = [&](int l) {
      const std::string& on = waits[static_cast<std::size_t>(l)].on;
      const auto p = on.find('[');  // "its flag[3] (read 0)" folds with "its flag[4] (read 0)"
      return p == std::string::npos ? on : on.substr(0, p) + on.substr(on.find(']') + 1);
    };
    for (int l = 0; l < n();) {
      if (lanes_[static_cast<std::size_t>(l)].exited) {
        ++l;
        continue;
      }
      int j = l;
      while (j + 1 < n() && !lanes_[static_cast<std::size_t>(j + 1)].exited && target_text(j + 1) == target_text(l) &&
             on_text(j + 1) == on_text(l))
        ++j;
      res.waits.push_back(span_text(l, j, m_.noun) + (j > l ? " wait for " : " waits for ") + target_text(l) + ": " +
                          on_text(l) + (target_text(l) == "the next " + m_.noun && j == n() - 1 && l == 0
                                            ? " (" + m_.noun + " " + std::to_string(j) + " for " + m_.noun + " 0)"
                                            : ""));
      l = j + 1;
    }
  }
};

Instr make(Op op, std::string code) {
  Instr i;
  i.op = op;
  i.code = std::move(code);
  return i;
}
Instr on_word(Instr i, int base, At at, bool wait = false) {
  i.base = base;
  i.at = at;
  i.wait = wait;
  return i;
}
Instr branch(Op op, std::string code, int target, int reconverge) {
  Instr i = make(op, std::move(code));
  i.target = target;
  i.reconverge = reconverge;
  return i;
}
Instr writes(Instr i, int value, bool self = false) {
  i.value = value;
  i.value_self = self;
  return i;
}

}  // namespace

Result run(const Machine& m, int trace_lanes, int trace_rows, long long max_steps) {
  Sim sim(m, trace_lanes, trace_rows);
  return sim.run(max_steps);
}

Machine spinlock_machine(Regime r, int lanes) {
  Machine m;
  m.name = "the CAS lock in one warp: every lane takes it once";
  m.regime = r;
  m.lanes = lanes;
  m.words = {{"lock", Word::Kind::lock, -1, 0}, {"counter", Word::Kind::plain, -1, 0}};
  m.code = {
      writes(on_word(make(Op::cas, "while (atomicCAS(&lock, 0, lane + 1) != 0)"), 0, At::fixed, true), 0, true),
      branch(Op::bra_ne0, "  ;   // spin: try again", 0, 2),
      on_word(make(Op::add, "counter += 1;   // the critical section"), 1, At::fixed),
      writes(on_word(make(Op::exch, "atomicExch(&lock, 0);"), 0, At::fixed), 0),
      make(Op::exit, "return;"),
  };
  return m;
}

Machine ring_machine(Regime r, int lanes) {
  Machine m;
  m.name = "a wait-for cycle inside a warp: lane i sets its flag only after lane i+1 has set its own";
  m.regime = r;
  m.lanes = lanes;
  for (int l = 0; l < lanes; ++l) m.words.push_back({"flag[" + std::to_string(l) + "]", Word::Kind::flag, l, l});
  m.code = {
      on_word(make(Op::ld, "while (flag[(lane + 1) % 32] == 0)"), 0, At::next, true),
      branch(Op::bra_eq0, "  ;   // spin: the next lane has not set its flag", 0, 2),
      writes(on_word(make(Op::st, "flag[lane] = 1;"), 0, At::self), 1),
      make(Op::exit, "return;"),
  };
  return m;
}

Machine lock_order_machine(bool fixed, int iters) {
  Machine m;
  m.noun = "block";
  m.regime = Regime::independent;  // blocks never share a program counter
  m.lanes = 2;
  m.iters = iters;
  m.words = {{"lock A", Word::Kind::lock, -1, 0},       {"lock B", Word::Kind::lock, -1, 1},
             {"holding[0]", Word::Kind::flag, 0, 0},     {"holding[1]", Word::Kind::flag, 1, 1},
             {"count", Word::Kind::plain, -1, 0}};
  if (fixed) {
    m.name = "lock-order, fixed: both blocks take A, then B";
    m.code = {
        writes(on_word(make(Op::cas, "while (atomicCAS(&A, 0, b + 1) != 0)"), 0, At::fixed, true), 0, true),
        branch(Op::bra_ne0, "  ;   // spin on A", 0, 2),
        writes(on_word(make(Op::cas, "while (atomicCAS(&B, 0, b + 1) != 0)"), 1, At::fixed, true), 0, true),
        branch(Op::bra_ne0, "  ;   // spin on B", 2, 4),
        on_word(make(Op::add, "count += 1;   // under both locks"), 4, At::fixed),
        writes(on_word(make(Op::exch, "atomicExch(&B, 0);"), 1, At::fixed), 0),
        writes(on_word(make(Op::exch, "atomicExch(&A, 0);"), 0, At::fixed), 0),
        branch(Op::loop, "if (++i < iters) goto top;", 0, 8),
        make(Op::exit, "return;"),
    };
    return m;
  }
  m.name = "lock-order: block 0 takes A then B, block 1 takes B then A";
  m.code = {
      writes(on_word(make(Op::cas, "while (atomicCAS(first, 0, b + 1) != 0)   // A for block 0, B for block 1"), 0,
                     At::self, true),
             0, true),
      branch(Op::bra_ne0, "  ;", 0, 2),
      writes(on_word(make(Op::st, "holding[b] = 1;"), 2, At::self), 1),
      on_word(make(Op::ld, "while (holding[other] == 0)   // the window, made certain"), 2, At::next, true),
      branch(Op::bra_eq0, "  ;", 3, 5),
      writes(on_word(make(Op::cas, "while (atomicCAS(second, 0, b + 1) != 0)   // B for block 0, A for block 1"), 0,
                     At::next, true),
             0, true),
      branch(Op::bra_ne0, "  ;", 5, 7),
      on_word(make(Op::add, "count += 1;"), 4, At::fixed),
      writes(on_word(make(Op::exch, "atomicExch(second, 0);"), 0, At::next), 0),
      writes(on_word(make(Op::exch, "atomicExch(first, 0);"), 0, At::self), 0),
      make(Op::exit, "return;"),
  };
  return m;
}

}  // namespace cudasync::deadlock_demo::simt
