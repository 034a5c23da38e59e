// The step machine of core/simt/simt.hpp: the SIMT stack, the independent scheduler, memory with
// per-SM L1 lines, the repeat test and the trace.
#include "core/simt/simt.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace cudasync::simt {
namespace detail {

// The engine's own types, in detail rather than an anonymous namespace: Engine (declared in the
// header) holds them, and a type with internal linkage may not be a member of one with external.

struct Entry {
  int pc;
  std::uint32_t mask;
  int rpc;
};

struct Warp {
  int first = 0;  // global index of its lane 0
  int lanes = 0;
  std::vector<Entry> stack;  // lockstep only
};

// Two 64-bit hashes of a state: the repeat test keeps these instead of whole states.
struct Key {
  std::uint64_t a = 1469598103934665603ull, b = 0x9e3779b97f4a7c15ull;
  void put(long long x) {
    const auto u = static_cast<std::uint64_t>(x);
    for (int k = 0; k < 8; ++k) {
      a ^= (u >> (8 * k)) & 0xffu;
      a *= 1099511628211ull;
    }
    b = (b ^ u) * 0xff51afd7ed558ccdull;
    b ^= b >> 33;
  }
  bool operator==(const Key& o) const { return a == o.a && b == o.b; }
};
struct KeyHash {
  std::size_t operator()(const Key& k) const { return static_cast<std::size_t>(k.a ^ (k.b << 1)); }
};

static std::uint32_t full_mask(int lanes) { return lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u); }

class Engine {
 public:
  Engine(const Machine& m, const Trace& t) : m_(m) {
    if (m.blocks < 1 || m.threads < 1 || m.iters < 1 || m.code.empty())
      throw std::invalid_argument("simt::run: a machine needs blocks, threads, iterations and code");
    const int words = static_cast<int>(m.words.size());
    for (std::size_t pc = 0; pc < m.code.size(); ++pc) {
      const Instr& in = m.code[pc];
      const bool on_word = in.op == Op::branch && in.cond.lhs == Cond::Lhs::word;
      const bool needs_word = on_word || in.op == Op::cas || in.op == Op::load || in.op == Op::store ||
                              in.op == Op::add || in.op == Op::exch;
      const int first = on_word ? in.cond.word : in.word;
      const int last = first + (on_word || in.at == At::fixed ? 0 : m.lanes() - 1);
      if (needs_word && (first < 0 || last >= words))
        throw std::invalid_argument("simt::run: instruction " + std::to_string(pc) + " names no word of the machine");
      if (in.is_branch() && (in.target < 0 || in.target >= static_cast<int>(m.code.size())))
        throw std::invalid_argument("simt::run: branch " + std::to_string(pc) + " has no target in the program");
    }
    lanes_.resize(static_cast<std::size_t>(m.lanes()));
    const int per_block = (m.threads + kWarpSize - 1) / kWarpSize;
    for (int b = 0; b < m.blocks; ++b)
      for (int w = 0; w < per_block; ++w) {
        Warp wp;
        wp.first = b * m.threads + w * kWarpSize;
        wp.lanes = std::min(kWarpSize, m.threads - w * kWarpSize);
        if (m.scheduling == Scheduling::lockstep) wp.stack.push_back({0, full_mask(wp.lanes), -1});
        warps_.push_back(wp);
      }
    for (const Word& w : m.words) mem_.push_back(w.initial);
    l1_.assign(static_cast<std::size_t>(m.blocks) * m.words.size(), kAbsent);
    holder_.assign(m.words.size(), -1);
    tallies_.assign(static_cast<std::size_t>(std::max(0, m.tallies)), 0);
    trace_index_.assign(lanes_.size(), -1);
    for (int l : t.lanes)
      if (l >= 0 && l < m.lanes() && trace_index_[static_cast<std::size_t>(l)] < 0) {
        trace_index_[static_cast<std::size_t>(l)] = static_cast<int>(traced_.size());
        traced_.push_back(l);
      }
    rows_ = t.rows;
  }

  Result run(long long max_steps) {
    Result res;
    res.machine = m_;
    res.traced = traced_;
    std::unordered_map<Key, long long, KeyHash> seen;
    seen.emplace(key(), 0);
    for (long long step = 1; step <= max_steps; ++step) {
      step_ = step;
      row_ = Row{};
      row_.step = step;
      row_.lanes.assign(traced_.size(), Event{});
      bool progressed = false;
      if (m_.scheduling == Scheduling::lockstep) {
        for (std::size_t w = 0; w < warps_.size(); ++w) progressed = step_lockstep(static_cast<int>(w)) || progressed;
      } else {
        progressed = step_independent();
      }
      res.steps = step;
      const bool done = std::all_of(lanes_.begin(), lanes_.end(), [](const Lane& l) { return l.exited; });
      const auto [it, fresh] = seen.emplace(key(), step);
      if (!done && (!fresh || !progressed)) {
        res.outcome = Outcome::deadlock;
        res.repeat_from = fresh ? step : it->second;
        row_.repeats = fresh ? -1 : it->second;
        row_.stuck = fresh;
      }
      if (rows_ > 0) {
        if (static_cast<int>(res.trace.size()) < rows_) {
          row_.memory = mem_;
          row_.l1 = l1_;
          res.trace.push_back(std::move(row_));
        } else {
          ++res.rows_not_shown;
        }
      }
      if (done) res.outcome = Outcome::completed;
      if (done || res.outcome == Outcome::deadlock) break;
    }
    finish(res);
    return res;
  }

  // ---- what Exec reaches --------------------------------------------------------------------
  const Machine& m_;
  std::vector<Lane> lanes_;
  std::vector<long long> mem_, l1_, log_, tallies_;

  int block_of(int gl) const { return gl / m_.threads; }
  void drop_l1(int block) {
    const auto w = static_cast<long>(m_.words.size());
    std::fill(l1_.begin() + block * w, l1_.begin() + (block + 1) * w, kAbsent);
  }
  long long& l1(int block, int word) { return l1_[static_cast<std::size_t>(block) * m_.words.size() + static_cast<std::size_t>(word)]; }

 private:
  std::vector<Warp> warps_;
  std::vector<int> holder_, traced_, trace_index_;
  int rows_ = 0;
  long long step_ = 0;
  long long stale_ = 0;
  std::optional<Stale> first_stale_;
  Row row_;

  Lane& lane(int gl) { return lanes_[static_cast<std::size_t>(gl)]; }
  Warp& warp_of(int gl) {
    const int per_block = (m_.threads + kWarpSize - 1) / kWarpSize;
    return warps_[static_cast<std::size_t>(block_of(gl) * per_block + (gl % m_.threads) / kWarpSize)];
  }
  std::uint32_t live(const Warp& w) const {
    std::uint32_t mask = 0;
    for (int k = 0; k < w.lanes; ++k)
      if (!lanes_[static_cast<std::size_t>(w.first + k)].exited) mask |= 1u << k;
    return mask;
  }
  bool holds(int gl) const { return std::find(holder_.begin(), holder_.end(), gl) != holder_.end(); }
  Event* event(int gl) {
    const int i = trace_index_[static_cast<std::size_t>(gl)];
    return i < 0 ? nullptr : &row_.lanes[static_cast<std::size_t>(i)];
  }

  int address(const Instr& in, int gl) const {
    switch (in.at) {
      case At::fixed: return in.word;
      case At::self: return in.word + gl;
      case At::next: return in.word + (gl + 1) % m_.lanes();
    }
    return in.word;
  }

  long long eval(const Val& v, int gl) {
    long long x = v.from == Val::From::lane ? gl : v.from == Val::From::reg ? lane(gl).reg[v.reg] : 0;
    x += v.add;
    if (v.plus_live_lanes) {
      const std::uint32_t m = live(warp_of(gl));
      for (int k = 0; k < 32; ++k) x += (m >> k) & 1u;
    }
    return x;
  }

  void write(int w, long long v, int gl, bool plain) {
    mem_[static_cast<std::size_t>(w)] = v;
    if (plain && m_.words[static_cast<std::size_t>(w)].cached) l1(block_of(gl), w) = v;
    if (m_.words[static_cast<std::size_t>(w)].kind == Word::Kind::lock && v == 0) holder_[static_cast<std::size_t>(w)] = -1;
  }

  long long load(int w, int gl, Event& e) {
    const long long in_l2 = mem_[static_cast<std::size_t>(w)];
    e.l2 = in_l2;
    if (!m_.words[static_cast<std::size_t>(w)].cached) return in_l2;
    long long& line = l1(block_of(gl), w);
    if (line == kAbsent) {
      line = in_l2;
      return in_l2;
    }
    e.from = line == in_l2 ? Event::From::l1 : Event::From::l1_stale;
    if (line != in_l2) {
      ++stale_;
      if (!first_stale_) first_stale_ = Stale{step_, gl, w, line, in_l2};
    }
    return line;
  }

  // One instruction for one lane; returns whether a branch is taken.
  bool exec(const Instr& in, int gl, int pc) {
    Lane& L = lane(gl);
    Event e;
    e.kind = Event::Kind::ran;
    e.pc = pc;
    const int w = in.word >= 0 ? address(in, gl) : -1;
    e.word = w;
    bool taken = false;
    const auto put = [&](long long v) {
      if (in.reg >= 0) L.reg[in.reg] = v;
    };
    switch (in.op) {
      case Op::cas:
        e.read = mem_[static_cast<std::size_t>(w)];
        put(e.read);
        if (e.read == 0) {
          write(w, eval(in.val, gl), gl, false);
          if (m_.words[static_cast<std::size_t>(w)].kind == Word::Kind::lock) holder_[static_cast<std::size_t>(w)] = gl;
          if (in.acquire) drop_l1(block_of(gl));
          e.taken = true;
        }
        e.wrote = mem_[static_cast<std::size_t>(w)];
        break;
      case Op::load:
        e.read = load(w, gl, e);
        put(e.read);
        if (in.acquire) drop_l1(block_of(gl));
        break;
      case Op::store: write(w, e.wrote = eval(in.val, gl), gl, true); break;
      case Op::add:
        e.read = mem_[static_cast<std::size_t>(w)];
        put(e.read);
        write(w, e.wrote = e.read + eval(in.val, gl), gl, false);
        break;
      case Op::exch:
        e.read = mem_[static_cast<std::size_t>(w)];
        put(e.read);
        write(w, e.wrote = eval(in.val, gl), gl, false);
        break;
      case Op::fence: drop_l1(block_of(gl)); break;
      case Op::set: put(e.wrote = eval(in.val, gl)); break;
      case Op::nop:
      case Op::syncwarp: break;
      case Op::branch: {
        const Cond& c = in.cond;
        if (c.lhs == Cond::Lhs::always) {
          taken = true;
          break;
        }
        if (c.lhs == Cond::Lhs::not_leader) {
          const Warp& wp = warp_of(gl);
          const std::uint32_t m = live(wp);
          int leader = 0;
          while (leader < 32 && !((m >> leader) & 1u)) ++leader;
          taken = gl - wp.first != leader;
          break;
        }
        e.read = c.lhs == Cond::Lhs::reg ? L.reg[c.reg] : mem_[static_cast<std::size_t>(c.word)];
        taken = (e.read == eval(c.rhs, gl)) == c.equal;
        e.word = c.lhs == Cond::Lhs::word ? c.word : -1;
        if (!taken && in.acquire) drop_l1(block_of(gl));
        break;
      }
      case Op::loop: taken = ++L.iteration < m_.iters; break;
      case Op::exit:
        L.exited = true;
        for (int& h : holder_)
          if (h == gl) h = -1;
        break;
      case Op::custom: {
        Exec x(*this, gl);
        taken = in.custom(x);
        e.text = std::move(x.text);
        break;
      }
    }
    if (in.wait) {
      L.wait_word = w;
      L.seen = e.read;
    }
    if (in.is_branch()) e.taken = taken;
    if (Event* ev = event(gl)) *ev = std::move(e);
    return in.is_branch() && taken;
  }

  void normalize(Warp& w) {
    const std::uint32_t alive = live(w);
    while (!w.stack.empty() && ((w.stack.back().mask & alive) == 0 || w.stack.back().pc == w.stack.back().rpc))
      w.stack.pop_back();
  }

  // The pc the warp runs or resumes lane k at, and whether its top entry runs it.
  std::pair<int, bool> where(const Warp& w, int k) const {
    for (std::size_t i = w.stack.size(); i-- > 0;)
      if ((w.stack[i].mask >> k) & 1u) return {w.stack[i].pc, i + 1 == w.stack.size()};
    return {-1, false};
  }

  bool step_lockstep(int wi) {
    Warp& w = warps_[static_cast<std::size_t>(wi)];
    normalize(w);
    if (w.stack.empty()) {
      for (int k = 0; k < w.lanes; ++k)
        if (Event* ev = event(w.first + k)) *ev = Event{};
      return false;
    }
    const std::uint32_t mask = w.stack.back().mask & live(w);
    const int pc = w.stack.back().pc;
    const Instr& in = m_.code[static_cast<std::size_t>(pc)];
    std::uint32_t taken = 0;
    for (int k = 0; k < w.lanes; ++k)
      if ((mask >> k) & 1u && exec(in, w.first + k, pc)) taken |= 1u << k;
    for (int k = 0; k < w.lanes; ++k) {
      Event* ev = event(w.first + k);
      if (!ev || (mask >> k) & 1u) continue;
      *ev = Event{};
      if (lane(w.first + k).exited) continue;
      ev->kind = Event::Kind::parked;
      ev->pc = where(w, k).first;
      ev->holds = holds(w.first + k);
    }
    Entry& top = w.stack.back();
    const std::uint32_t fall = mask & ~taken;
    if (!in.is_branch() || taken == 0) {
      top.pc = pc + 1;
    } else if (fall == 0) {
      top.pc = in.target;
    } else {
      if (in.reconverge < 0)
        throw std::logic_error("simt::run: branch " + std::to_string(pc) + " diverged and names no reconvergence point");
      // The entry waits at the reconvergence point; the sides not already there are pushed, the
      // fall-through side last, so that it runs first.
      const int r = in.reconverge;
      top.pc = r;
      if (in.target != r) w.stack.push_back({in.target, taken, r});
      if (pc + 1 != r) w.stack.push_back({pc + 1, fall, r});
      row_.splits.push_back({wi, pc, taken, fall, in.target, pc + 1, r});
    }
    if (w.stack.back().pc >= static_cast<int>(m_.code.size()) && (w.stack.back().mask & live(w)) != 0)
      throw std::logic_error("simt::run: the program runs past its end without exit");
    normalize(w);
    return true;
  }

  void release_syncwarp(int gl) {
    const Warp& w = warp_of(gl);
    const int pc = lane(gl).pc;
    for (int k = 0; k < w.lanes; ++k) {
      const Lane& o = lanes_[static_cast<std::size_t>(w.first + k)];
      if (!o.exited && (!o.at_sync || o.pc != pc)) return;
    }
    for (int k = 0; k < w.lanes; ++k) {
      Lane& o = lanes_[static_cast<std::size_t>(w.first + k)];
      if (!o.exited) {
        o.at_sync = false;
        o.pc += 1;
      }
    }
  }

  bool step_independent() {
    bool any = false;
    for (int gl = 0; gl < m_.lanes(); ++gl) {
      Lane& L = lane(gl);
      if (L.exited || L.at_sync) {
        if (Event* ev = event(gl)) {
          *ev = Event{};
          if (L.at_sync) {
            ev->kind = Event::Kind::at_sync;
            ev->pc = L.pc;
            ev->holds = holds(gl);
          }
        }
        continue;
      }
      any = true;
      const Instr& in = m_.code[static_cast<std::size_t>(L.pc)];
      const bool taken = exec(in, gl, L.pc);
      if (in.op == Op::syncwarp) {
        L.at_sync = true;
        release_syncwarp(gl);
      } else if (in.op != Op::exit) {
        L.pc = taken ? in.target : L.pc + 1;
        if (L.pc >= static_cast<int>(m_.code.size()))
          throw std::logic_error("simt::run: the program runs past its end without exit");
      }
    }
    return any;
  }

  Key key() const {
    Key k;
    const bool independent = m_.scheduling == Scheduling::independent;
    for (const Lane& L : lanes_) {
      k.put(independent ? L.pc : 0);
      for (long long r : L.reg) k.put(r);
      k.put(L.iteration);
      k.put((L.exited ? 1 : 0) | (L.at_sync ? 2 : 0));
    }
    for (const Warp& w : warps_) {
      k.put(static_cast<long long>(w.stack.size()));
      for (const Entry& e : w.stack) k.put(e.pc), k.put(e.mask), k.put(e.rpc);
    }
    const std::size_t words = m_.words.size();
    for (std::size_t i = 0; i < words; ++i) {
      if (m_.words[i].history) continue;
      k.put(mem_[i]);
      k.put(holder_[i]);
      for (std::size_t b = 0; b < static_cast<std::size_t>(m_.blocks); ++b) k.put(l1_[b * words + i]);
    }
    return k;
  }

  void finish(Result& res) {
    res.memory = mem_;
    res.holder = holder_;
    res.lanes = lanes_;
    if (m_.scheduling == Scheduling::lockstep)
      for (const Warp& w : warps_) {
        res.warp_pc.push_back(w.stack.empty() ? -1 : w.stack.back().pc);
        res.warp_running.push_back(w.stack.empty() ? 0u : w.stack.back().mask & live(w));
        for (int k = 0; k < w.lanes; ++k) {
          Lane& L = res.lanes[static_cast<std::size_t>(w.first + k)];
          if (L.exited) continue;
          std::tie(L.pc, L.running) = where(w, k);
        }
      }
    res.stale_reads = stale_;
    res.first_stale = first_stale_;
    res.log = log_;
    res.tallies = tallies_;
  }
};

}  // namespace detail

int Exec::lanes() const { return engine_.m_.lanes(); }
int Exec::block() const { return engine_.block_of(lane_); }
int Exec::iteration() const { return engine_.lanes_[static_cast<std::size_t>(lane_)].iteration; }
long long& Exec::reg(int r) { return engine_.lanes_[static_cast<std::size_t>(lane_)].reg[r]; }
long long& Exec::word(int w) { return engine_.mem_.at(static_cast<std::size_t>(w)); }
void Exec::keep_in_l1(int w, long long v) {
  if (engine_.m_.words.at(static_cast<std::size_t>(w)).cached) engine_.l1(block(), w) = v;
}
void Exec::drop_l1() { engine_.drop_l1(block()); }
void Exec::log(long long v) { engine_.log_.push_back(v); }
long long& Exec::tally(int k) { return engine_.tallies_.at(static_cast<std::size_t>(k)); }

Result run(const Machine& m, const Trace& trace, long long max_steps) {
  detail::Engine e(m, trace);
  return e.run(max_steps);
}

}  // namespace cudasync::simt
