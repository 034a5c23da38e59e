#include "techniques/lock/lock_model.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

namespace cudasync::lock {

const char* to_string(Regime r) { return r == Regime::lockstep ? "lockstep" : "independent"; }

std::optional<Regime> parse_regime(const std::string& s) {
  if (s == "lockstep") return Regime::lockstep;
  if (s == "independent") return Regime::independent;
  return std::nullopt;
}

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::completed: return "completes";
    case Outcome::deadlock: return "deadlock";
    case Outcome::round_limit: return "round limit";
  }
  return "round limit";
}

namespace {

Instr I(Op op, std::string code, int target = -1, int reconverge = -1) {
  Instr i;
  i.op = op;
  i.code = std::move(code);
  i.target = target;
  i.reconverge = reconverge;
  return i;
}
Instr acquire(Instr i) {
  i.acquire = true;
  return i;
}

// The book's lock/unlock around the seed's critical section, with optional extras. `first` is the
// pc of the CAS.
void book_body(std::vector<Instr>& c, bool fences, bool atomic_ref, bool atomic_add) {
  const int cas_pc = static_cast<int>(c.size());
  if (atomic_ref) c.push_back(acquire(I(Op::cas, "lock: while (!m.compare_exchange_strong(z = 0, 1, acquire))")));
  else c.push_back(I(Op::cas, "lock: while (atomicCAS(mutex, 0, 1) != 0)"));
  c.push_back(I(Op::bra_r_ne0, "        ;   // spin: try again", cas_pc, cas_pc + 2));
  if (fences) c.push_back(I(Op::fence, "      __threadfence();"));
  if (atomic_add) {
    c.push_back(I(Op::add_cnt, "atomicAdd(cnt, 1);"));
  } else {
    c.push_back(I(Op::ld_cnt, "*cnt = *cnt + 1;   // load"));
    c.push_back(I(Op::st_cnt, "*cnt = *cnt + 1;   // store"));
  }
  if (fences) c.push_back(I(Op::fence, "unlock: __threadfence();"));
  if (atomic_ref) c.push_back(I(Op::exch, "unlock: m.store(0, release);"));
  else c.push_back(I(Op::exch, fences ? "        atomicExch(mutex, 0);" : "unlock: atomicExch(mutex, 0);"));
}

// The test before the test-and-set: a plain load of the lock word, and compare_exchange (acquire)
// only when it read 0; both go back to `target` to wait again.
void test_then_set(std::vector<Instr>& c, int target, const std::string& poll, int poll_reconverge,
                   const std::string& swap, const std::string& retry, int retry_reconverge) {
  c.push_back(I(Op::bra_lock_held, poll, target, poll_reconverge));
  c.push_back(acquire(I(Op::cas, swap)));
  Instr again = I(Op::bra_r_ne0, retry, target, retry_reconverge);
  again.fall_cell = "has the lock";
  c.push_back(again);
}

void loop_exit(std::vector<Instr>& c) {
  const int pc = static_cast<int>(c.size());
  c.push_back(I(Op::loop, "if (++i < iters) goto top;", 0, pc + 1));
  c.push_back(I(Op::exit, "return;"));
}

}  // namespace

Program program_of(Protocol p) {
  Program prog;
  auto& c = prog.code;
  switch (p) {
    case Protocol::book:
      prog.name = "the book's lock, no fence (seed: Lock.lock(); *cnt = *cnt + 1; Lock.unlock();)";
      book_body(c, false, false, false);
      break;
    case Protocol::book_atomic_add:
      prog.name = "fix 1: the book's lock around atomicAdd(cnt, 1)";
      book_body(c, false, false, true);
      break;
    case Protocol::lock_functions:
      prog.name = "lock() and unlock() as functions (the seed's class with __threadfence), every lane calls them";
      c.push_back(I(Op::cas, "lock() { while (atomicCAS(mutex, 0, 1) != 0)"));
      c.push_back(I(Op::bra_r_ne0, "          ;   // spin: try again", 0, 2));
      c.push_back(I(Op::fence, "        __threadfence(); }   // lock() returns"));
      c.push_back(I(Op::ld_cnt, "*cnt = *cnt + 1;   // load"));
      c.push_back(I(Op::st_cnt, "*cnt = *cnt + 1;   // store"));
      c.push_back(I(Op::fence, "unlock() { __threadfence();"));
      c.push_back(I(Op::exch, "          atomicExch(mutex, 0); }"));
      break;
    case Protocol::fenced:
      prog.name = "fix 2: __threadfence() in lock() and unlock() (the seed's fixed class)";
      book_body(c, true, false, false);
      break;
    case Protocol::acq_rel:
      prog.name = "fix 3: cuda::atomic_ref, acquire on lock, release on unlock";
      book_body(c, false, true, false);
      break;
    case Protocol::thread_lock:
      prog.name = "the seed's \"true thread lock\": acquire, work and release inside one loop iteration";
      c.push_back(I(Op::clear_done, "bool blocked = true;"));
      c.push_back(I(Op::bra_done, "while (blocked) {", 9, 9));
      c.push_back(I(Op::cas, "  if (0 == atomicCAS(mutex, 0, 1)) {"));
      c.push_back(I(Op::bra_r_ne0, "  (else: on to the end of the loop body)", 8, 8));
      c.push_back(I(Op::add_cnt, "    atomicAdd(cnt, 1);"));
      c.push_back(I(Op::fence, "    __threadfence();"));
      c.push_back(I(Op::exch, "    atomicExch(mutex, 0);"));
      c.push_back(I(Op::set_done, "    blocked = false; }"));
      c.push_back(I(Op::jmp, "}", 1));
      break;
    case Protocol::backoff:
      prog.name = "CAS with exponential back-off";
      c.push_back(acquire(I(Op::cas, "lock: r = m.compare_exchange(z = 0, 1, acquire)")));
      c.push_back(I(Op::bra_r_eq0, "      while (!r) {", 4, 4));
      c.push_back(I(Op::sleep, "        __nanosleep(ns); ns = min(2 * ns, max);"));
      c.push_back(I(Op::jmp, "        r = m.compare_exchange(...); }", 0));
      c.push_back(I(Op::ld_cnt, "*cnt = *cnt + 1;   // load"));
      c.push_back(I(Op::st_cnt, "*cnt = *cnt + 1;   // store"));
      c.push_back(I(Op::exch, "unlock: m.store(0, release);"));
      break;
    case Protocol::ticket:
      prog.name = "ticket lock";
      c.push_back(I(Op::take_ticket, "lock: t = atomicAdd(&next, 1);"));
      c.push_back(I(Op::bra_not_turn, "      while (serving.load(acquire) != t) back_off(t - serving);", 1, 2));
      c.push_back(I(Op::ld_cnt, "*cnt = *cnt + 1;   // load"));
      c.push_back(I(Op::st_cnt, "*cnt = *cnt + 1;   // store"));
      c.push_back(I(Op::st_serving, "unlock: serving.store(t + 1, release);"));
      break;
    case Protocol::combining: {
      prog.name = "combining lock: publish a request, then wait for its answer or take the lock and serve every request";
      c.push_back(I(Op::publish, "slot[me] = {pending, +1};   // the request: fetch-and-add(1)"));
      c.push_back(I(Op::bra_slot_done, "wait: if (slot[me] is done) goto 8;   // its answer is in the slot", 8, 8));
      test_then_set(c, 1, "      if (m.load(relaxed) != 0) goto wait;", 8,
                    "      r = m.compare_exchange(z = 0, 1, acquire);", "      if (!r) goto wait;", 8);
      c.push_back(I(Op::combine, "      for each slot s: if pending { slot[s] = {done, cnt}; cnt += 1; }"));
      c.push_back(I(Op::exch, "      m.store(0, release);"));
      c.push_back(I(Op::jmp, "      goto wait;   // its own request was served too", 1));
      break;
    }
    case Protocol::ttas: {
      prog.name = "test-and-test-and-set: poll with plain loads, compare-and-swap (acquire) when it reads 0";
      test_then_set(c, 0, "lock: while (m.load(relaxed) != 0) ;   // test", 1,
                    "      r = m.compare_exchange(z = 0, 1, acquire);   // test-and-set", "      if (!r) goto lock;", 3);
      c.push_back(I(Op::ld_cnt, "*cnt = *cnt + 1;   // load"));
      c.push_back(I(Op::st_cnt, "*cnt = *cnt + 1;   // store"));
      c.push_back(I(Op::exch, "unlock: m.store(0, release);"));
      break;
    }
    case Protocol::warp_aggregated: {
      prog.name = "warp-aggregated: the warp's lowest lane takes the lock for the whole warp";
      c.push_back(I(Op::bra_not_leader, "if (lane == leader) {", 6, 6));
      c.push_back(acquire(I(Op::cas, "  while (!m.compare_exchange_strong(z = 0, 1, acquire))")));
      c.push_back(I(Op::bra_r_ne0, "    ;   // spin", 1, 3));
      c.push_back(I(Op::ld_cnt, "  v = *cnt;"));
      Instr st = I(Op::st_cnt, "  *cnt = v + n;   // the warp's n updates");
      st.whole_warp = true;
      c.push_back(st);
      c.push_back(I(Op::exch, "  m.store(0, release); }"));
      c.push_back(I(Op::syncwarp, "__syncwarp();"));
      break;
    }
  }
  loop_exit(c);
  return prog;
}

Protocol protocol_of(Variant v) {
  switch (v) {
    case Variant::book: return Protocol::book;
    case Variant::book_atomic_add: return Protocol::book_atomic_add;
    case Variant::lock_functions: return Protocol::lock_functions;
    case Variant::fenced: return Protocol::fenced;
    case Variant::acq_rel: return Protocol::acq_rel;
    case Variant::thread_lock: return Protocol::thread_lock;
    case Variant::backoff: return Protocol::backoff;
    case Variant::ticket: return Protocol::ticket;
    case Variant::warp_aggregated: return Protocol::warp_aggregated;
    case Variant::combining: return Protocol::combining;
    case Variant::ttas:
    case Variant::ttas_same_line: return Protocol::ttas;
  }
  return Protocol::book;
}

bool SimResult::answers_exact() const {
  if (static_cast<long long>(answers.size()) != expected) return false;
  std::vector<long long> sorted = answers;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k)
    if (sorted[k] != static_cast<long long>(k)) return false;
  return true;
}

namespace {

bool is_branch(Op op) {
  switch (op) {
    case Op::bra_r_ne0:
    case Op::bra_r_eq0:
    case Op::bra_done:
    case Op::jmp:
    case Op::bra_not_turn:
    case Op::bra_not_leader:
    case Op::loop:
    case Op::bra_slot_done:
    case Op::bra_lock_held: return true;
    default: return false;
  }
}

// "blocks 0, 2-4" / "lane 3": who a combiner's pass served.
std::string ids_text(const std::string& noun, const std::vector<int>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(ids[i]) + (j > i ? "-" + std::to_string(ids[j]) : "");
    i = j + 1;
  }
  return noun + (ids.size() == 1 ? " " : "s ") + s;
}

struct Slot {
  int state = 0;       // 0 idle, 1 pending, 2 done
  long long value = 0; // the request's argument, then its answer
  int server = -1;     // the thread whose pass answered it
};

struct Lane {
  int pc = 0;
  long long r = 0, v = 0, t = 0;
  int i = 0;
  bool blocked = true;
  bool exited = false;
  bool at_sync = false;
};

struct Entry {
  int pc;
  std::uint32_t mask;
  int rpc;
};

struct Warp {
  int block = 0;
  int first = 0;  // global index of lane 0
  int lanes = 0;
  std::vector<Entry> stack;
};

std::string lanes_text(std::uint32_t mask) {
  std::string s;
  int i = 0;
  while (i < 32) {
    if (!(mask >> i & 1u)) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < 32 && (mask >> (j + 1) & 1u)) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
    i = j + 1;
  }
  return s;
}

// "lane 0 goes to 2", "lanes 1-3 go to 0"
std::string lanes_go(std::uint32_t mask, int pc) {
  const bool one = (mask & (mask - 1u)) == 0;
  return (one ? "lane " : "lanes ") + lanes_text(mask) + (one ? " goes to " : " go to ") + std::to_string(pc);
}

class Machine {
 public:
  Machine(const SimConfig& c) : cfg_(c), prog_(program_of(c.protocol)) {
    if (c.blocks < 1 || c.threads < 1 || c.iters < 1) throw std::invalid_argument("simulate: empty configuration");
    const int warps_per_block = (c.threads + kWarpSize - 1) / kWarpSize;
    for (int b = 0; b < c.blocks; ++b)
      for (int w = 0; w < warps_per_block; ++w) {
        Warp wp;
        wp.block = b;
        wp.first = b * c.threads + w * kWarpSize;
        wp.lanes = std::min(kWarpSize, c.threads - w * kWarpSize);
        const std::uint32_t all = wp.lanes == 32 ? 0xffffffffu : ((1u << wp.lanes) - 1u);
        wp.stack.push_back({0, all, -1});
        warps_.push_back(wp);
      }
    lanes_.resize(static_cast<std::size_t>(c.blocks) * static_cast<std::size_t>(c.threads));
    l1_.assign(static_cast<std::size_t>(c.blocks), -1);
    slots_.resize(lanes_.size());
    by_block_ = c.threads == 1;
    const int traced = by_block_ ? std::min(cfg_.trace_lanes, c.blocks) : std::min(cfg_.trace_lanes, c.threads);
    for (int k = 0; k < traced; ++k) traced_.push_back(k);  // global lane k: block k (by_block_) or lane k of block 0
  }

  SimResult run() {
    SimResult res;
    res.config = cfg_;
    res.expected = static_cast<long long>(cfg_.blocks) * cfg_.threads * cfg_.iters;
    for (int k : traced_) res.columns.push_back((by_block_ ? "block " : "lane ") + std::to_string(k));
    std::unordered_map<std::uint64_t, long long> seen;
    seen.emplace(state_hash(), 0);
    for (long long round = 1; round <= cfg_.max_rounds; ++round) {
      cells_.assign(traced_.size(), "");
      note_.clear();
      const bool progressed = cfg_.regime == Regime::lockstep ? lockstep_round() : independent_round();
      res.rounds = round;
      const bool done = all_exited();
      const auto [it, fresh] = seen.emplace(state_hash(), round);
      if (!done && (!fresh || !progressed)) {
        res.outcome = Outcome::deadlock;
        res.repeat_from = fresh ? round : it->second;
        res.cycle_rounds = fresh ? 0 : round - it->second;
        note_ += (note_.empty() ? "" : "; ") +
                 (fresh ? std::string("nobody can move")
                        : "the same state as after step " + std::to_string(it->second) + ": it repeats forever");
      }
      record(res, round);
      if (done) {
        res.outcome = Outcome::completed;
        break;
      }
      if (res.outcome == Outcome::deadlock) {
        describe_deadlock(res);
        break;
      }
    }
    res.count = cnt_;
    res.stale_reads = stale_;
    res.first_stale = first_stale_;
    res.answers = answers_;
    res.handoffs = handoffs_;
    res.largest_pass = largest_pass_;
    res.served_by_others = served_by_others_;
    return res;
  }

 private:
  // ---- one instruction for a set of lanes (lockstep: the warp's active lanes; independent: one)
  // Returns which lanes take the branch (for branch ops).
  bool exec(const Instr& in, int gl, long long round) {
    Lane& L = lanes_[static_cast<std::size_t>(gl)];
    const int block = block_of(gl);
    std::string cell;
    bool taken = false;
    auto drop_l1 = [&] { l1_[static_cast<std::size_t>(block)] = -1; };
    switch (in.op) {
      case Op::cas:
        L.r = mutex_;
        if (mutex_ == 0) {
          mutex_ = 1;
          holder_ = gl;
          if (in.acquire) drop_l1();
          cell = "CAS: 0, takes the lock";
        } else {
          cell = "CAS: 1 (taken)";
        }
        break;
      case Op::bra_r_ne0:
        taken = L.r != 0;
        cell = taken ? (in.target <= pc_of(in) ? "spins" : "skips")
                     : !in.fall_cell.empty() ? in.fall_cell : (in.target <= pc_of(in) ? "leaves the loop" : "goes in");
        break;
      case Op::bra_r_eq0:
        taken = L.r == 0;
        cell = taken ? "leaves the loop" : "stays in the loop";
        break;
      case Op::bra_done:
        taken = !L.blocked;
        cell = taken ? "leaves the loop" : "tries";
        break;
      case Op::jmp:
        taken = true;
        cell = "loops back";
        break;
      case Op::clear_done:
        L.blocked = true;
        cell = "blocked = true";
        break;
      case Op::set_done:
        L.blocked = false;
        cell = "blocked = false";
        break;
      case Op::ld_cnt: {
        long long& dst = L.v;
        const long long line = l1_[static_cast<std::size_t>(block)];
        const char* name = "v";
        if (line >= 0) {
          dst = line;
          if (line != cnt_) {
            ++stale_;
            cell = std::string(name) + " = " + std::to_string(line) + " from L1, L2 has " + std::to_string(cnt_) + ": stale";
            if (first_stale_.empty())
              first_stale_ = "step " + std::to_string(round) + ": " + who(gl) + " read cnt = " + std::to_string(line) +
                             " from its SM's L1 while L2 held " + std::to_string(cnt_);
          } else {
            cell = std::string(name) + " = " + std::to_string(line) + " (L1 hit)";
          }
        } else {
          dst = cnt_;
          l1_[static_cast<std::size_t>(block)] = cnt_;
          cell = std::string(name) + " = " + std::to_string(cnt_) + " (from L2)";
        }
        break;
      }
      case Op::st_cnt: {
        const long long n = in.whole_warp ? live_lanes_of_warp(gl) : 1;
        cnt_ = L.v + n;
        l1_[static_cast<std::size_t>(block)] = cnt_;  // write-through, and this SM's L1 keeps the new value
        cell = "cnt = " + std::to_string(cnt_);
        break;
      }
      case Op::add_cnt:
        cnt_ += 1;
        cell = "atomicAdd: cnt = " + std::to_string(cnt_);
        break;
      case Op::exch:
        mutex_ = 0;
        holder_ = -1;
        cell = "releases";
        break;
      case Op::fence:
        drop_l1();
        cell = "fence";
        break;
      case Op::sleep:
        cell = "sleeps";
        break;
      case Op::take_ticket:
        L.t = next_++;
        cell = "ticket " + std::to_string(L.t);
        break;
      case Op::bra_not_turn:
        taken = serving_ != L.t;
        if (taken) {
          cell = "serving " + std::to_string(serving_) + ", waits";
        } else {
          holder_ = gl;
          drop_l1();
          cell = "its turn: has the lock";
        }
        break;
      case Op::st_serving:
        serving_ = L.t + 1;
        holder_ = -1;
        cell = "serving = " + std::to_string(serving_);
        break;
      case Op::bra_not_leader:
        taken = lane_in_warp(gl) != leader_of_warp(gl);
        cell = taken ? "not the leader" : "leader";
        break;
      case Op::syncwarp:
        cell = "__syncwarp";
        break;
      case Op::loop:
        ++L.i;
        taken = L.i < cfg_.iters;
        cell = taken ? "next iteration" : "last one done";
        break;
      case Op::exit:
        L.exited = true;
        if (holder_ == gl) holder_ = -1;
        cell = "exits";
        break;
      case Op::publish:
        slots_[static_cast<std::size_t>(gl)] = {1, 1, -1};
        cell = "requests +1";
        break;
      case Op::bra_slot_done: {
        const Slot& m = slots_[static_cast<std::size_t>(gl)];
        taken = m.state == 2;
        if (taken) {
          answers_.push_back(m.value);
          if (m.server != gl) ++served_by_others_;
          cell = "answer " + std::to_string(m.value) + (m.server == gl ? " (its own pass)" : " from " + who(m.server));
        } else {
          cell = "no answer yet";
        }
        break;
      }
      case Op::bra_lock_held:
        taken = mutex_ != 0;
        cell = taken ? "lock taken: polls" : "reads 0";
        break;
      case Op::combine: {
        long long c = cnt_;  // from L2: the acquire that took the lock dropped this SM's L1
        std::vector<int> served;
        for (std::size_t k = 0; k < slots_.size(); ++k)
          if (slots_[k].state == 1) {
            const long long arg = slots_[k].value;
            slots_[k] = {2, c, gl};
            c += arg;
            served.push_back(by_block_ ? block_of(static_cast<int>(k)) : static_cast<int>(k));
          }
        cell = "serves " + (served.empty() ? std::string("nobody") : ids_text(by_block_ ? "block" : "lane", served)) +
               ": cnt " + std::to_string(cnt_) + " -> " + std::to_string(c);
        cnt_ = c;
        l1_[static_cast<std::size_t>(block)] = cnt_;
        ++handoffs_;
        largest_pass_ = std::max<long long>(largest_pass_, static_cast<long long>(served.size()));
        break;
      }
    }
    set_cell(gl, cell);
    return taken;
  }

  int pc_of(const Instr& in) const { return static_cast<int>(&in - prog_.code.data()); }

  bool lockstep_round() {
    bool any = false;
    for (Warp& w : warps_) any = lockstep_step(w) || any;
    return any;
  }

  bool lockstep_step(Warp& w) {
    const std::uint32_t live = live_mask(w);
    while (!w.stack.empty()) {
      Entry& top = w.stack.back();
      if ((top.mask & live) == 0 || top.pc == top.rpc) {
        w.stack.pop_back();
        continue;
      }
      break;
    }
    if (w.stack.empty()) {
      for (int k = 0; k < w.lanes; ++k) set_cell(w.first + k, "exited");
      return false;
    }
    Entry& top = w.stack.back();
    const std::uint32_t mask = top.mask & live;
    const int pc = top.pc;
    const Instr& in = prog_.code[static_cast<std::size_t>(pc)];
    std::uint32_t taken = 0;
    for (int k = 0; k < w.lanes; ++k)
      if (mask >> k & 1u) {
        if (exec(in, w.first + k, round_now_)) taken |= 1u << k;
        lanes_[static_cast<std::size_t>(w.first + k)].pc = pc;  // lockstep: the warp's pc is the truth
      }
    // The lanes of the warp that are not active wait where the stack will resume them.
    for (int k = 0; k < w.lanes; ++k)
      if (!(mask >> k & 1u)) {
        const int gl = w.first + k;
        if (lanes_[static_cast<std::size_t>(gl)].exited) {
          set_cell(gl, "exited");
        } else {
          const int at = resume_pc(w, k);
          set_cell(gl, std::string(holder_ == gl ? "holds the lock, " : "") + "waits at " + std::to_string(at));
        }
      }
    if (!is_branch(in.op)) {
      top.pc = pc + 1;
      return true;
    }
    const std::uint32_t fall = mask & ~taken;
    if (fall == 0) {
      top.pc = in.target;
    } else if (taken == 0) {
      top.pc = pc + 1;
    } else {
      // Divergence: the entry waits at the reconvergence point; both sides run to it, the
      // fall-through side first.
      const int r = in.reconverge;
      top.pc = r;
      w.stack.push_back({in.target, taken, r});
      w.stack.push_back({pc + 1, fall, r});
      if (&w == &warps_.front())
        note_ = lanes_go(fall, pc + 1) + ", " + lanes_go(taken, in.target) + "; they meet again at " +
                std::to_string(r);
    }
    return true;
  }

  int resume_pc(const Warp& w, int k) const {
    for (auto it = w.stack.rbegin(); it != w.stack.rend(); ++it)
      if (it->mask >> k & 1u) return it->pc;
    return -1;
  }

  bool independent_round() {
    bool any = false;
    for (std::size_t gl = 0; gl < lanes_.size(); ++gl) {
      Lane& L = lanes_[gl];
      if (L.exited) {
        set_cell(static_cast<int>(gl), "exited");
        continue;
      }
      if (L.at_sync) {
        set_cell(static_cast<int>(gl), "waits at __syncwarp");
        continue;
      }
      const Instr& in = prog_.code[static_cast<std::size_t>(L.pc)];
      any = true;
      const bool taken = exec(in, static_cast<int>(gl), round_now_);
      if (in.op == Op::syncwarp) {
        L.at_sync = true;
        release_syncwarp(static_cast<int>(gl));
      } else if (in.op != Op::exit) {
        L.pc = is_branch(in.op) && taken ? in.target : L.pc + 1;
      }
    }
    return any;
  }

  // The last lane of a warp to reach __syncwarp lets them all go on.
  void release_syncwarp(int gl) {
    const Warp& w = warp_of(gl);
    for (int k = 0; k < w.lanes; ++k) {
      const Lane& o = lanes_[static_cast<std::size_t>(w.first + k)];
      if (!o.exited && (!o.at_sync || o.pc != lanes_[static_cast<std::size_t>(gl)].pc)) return;
    }
    for (int k = 0; k < w.lanes; ++k) {
      Lane& o = lanes_[static_cast<std::size_t>(w.first + k)];
      if (!o.exited) {
        o.at_sync = false;
        o.pc += 1;
      }
    }
  }

  // ---- bookkeeping ------------------------------------------------------------------------
  int block_of(int gl) const { return gl / cfg_.threads; }
  int lane_in_warp(int gl) const { return (gl % cfg_.threads) % kWarpSize; }
  const Warp& warp_of(int gl) const {
    const int per_block = (cfg_.threads + kWarpSize - 1) / kWarpSize;
    return warps_[static_cast<std::size_t>(block_of(gl) * per_block + (gl % cfg_.threads) / kWarpSize)];
  }
  std::uint32_t live_mask(const Warp& w) const {
    std::uint32_t m = 0;
    for (int k = 0; k < w.lanes; ++k)
      if (!lanes_[static_cast<std::size_t>(w.first + k)].exited) m |= 1u << k;
    return m;
  }
  int leader_of_warp(int gl) const {
    const Warp& w = warp_of(gl);
    for (int k = 0; k < w.lanes; ++k)
      if (!lanes_[static_cast<std::size_t>(w.first + k)].exited) return k;
    return -1;
  }
  long long live_lanes_of_warp(int gl) const {
    const Warp& w = warp_of(gl);
    long long n = 0;
    for (int k = 0; k < w.lanes; ++k) n += lanes_[static_cast<std::size_t>(w.first + k)].exited ? 0 : 1;
    return n;
  }
  bool all_exited() const {
    return std::all_of(lanes_.begin(), lanes_.end(), [](const Lane& l) { return l.exited; });
  }
  std::string who(int gl) const {
    return by_block_ ? "block " + std::to_string(gl) : "lane " + std::to_string(gl % cfg_.threads);
  }
  void set_cell(int gl, const std::string& s) {
    for (std::size_t k = 0; k < traced_.size(); ++k)
      if (traced_[k] == gl) cells_[k] = s;
  }

  std::uint64_t state_hash() const {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](long long x) {
      std::uint64_t u = static_cast<std::uint64_t>(x);
      for (int k = 0; k < 8; ++k) {
        h ^= (u >> (8 * k)) & 0xffu;
        h *= 1099511628211ull;
      }
    };
    mix(mutex_), mix(cnt_), mix(next_), mix(serving_), mix(holder_);
    for (long long l : l1_) mix(l);
    for (const Slot& m : slots_) mix(m.state), mix(m.value);
    for (const Lane& L : lanes_) {
      mix(L.pc), mix(L.r), mix(L.v), mix(L.t), mix(L.i);
      mix((L.blocked ? 1 : 0) | (L.exited ? 2 : 0) | (L.at_sync ? 4 : 0));
    }
    if (cfg_.regime == Regime::lockstep)
      for (const Warp& w : warps_) {
        mix(static_cast<long long>(w.stack.size()));
        for (const Entry& e : w.stack) mix(e.pc), mix(e.mask), mix(e.rpc);
      }
    return h;
  }

  void record(SimResult& res, long long round) {
    round_now_ = round + 1;
    if (cfg_.trace_rows <= 0) return;
    if (static_cast<int>(res.trace.size()) >= cfg_.trace_rows) {
      ++res.rows_not_shown;
      return;
    }
    TraceRow row;
    row.step = round;
    row.cells = cells_;
    row.mutex = mutex_;
    row.cnt = cnt_;
    for (int k : traced_) {
      const int b = by_block_ ? k : 0;
      if (!by_block_ && k > 0) break;
      const long long line = l1_[static_cast<std::size_t>(b)];
      row.l1 += (row.l1.empty() ? "" : ", ") + std::string("SM") + std::to_string(b) + " " +
                (line < 0 ? std::string("-") : std::to_string(line));
    }
    row.note = note_;
    res.trace.push_back(row);
  }

  void describe_deadlock(SimResult& res) {
    if (holder_ >= 0) {
      const Lane& h = lanes_[static_cast<std::size_t>(holder_)];
      std::string where = "pc " + std::to_string(h.pc);
      if (cfg_.regime == Regime::lockstep) {
        const Warp& w = warp_of(holder_);
        where = "pc " + std::to_string(resume_pc(w, holder_ - w.first)) +
                ", the spin loop's reconvergence point, until its warp's other lanes get there too";
      }
      res.holder = who(holder_) + (cfg_.threads > kWarpSize ? " of warp " + std::to_string((holder_ % cfg_.threads) / kWarpSize) : "") +
                   " holds the lock and waits at " + where;
    } else {
      res.holder = "nobody holds the lock";
    }
    std::uint32_t spin = 0;
    int spin_pc = -1, others = 0;
    for (const Warp& w : warps_) {
      if (w.stack.empty()) continue;
      const Entry& top = w.stack.back();
      const std::uint32_t m = top.mask & live_mask(w);
      if (&w == &warps_.front()) {
        spin = m;
        spin_pc = top.pc;
      } else if (m) {
        ++others;
      }
    }
    if (cfg_.regime == Regime::lockstep && spin) {
      res.spinners = "lanes " + lanes_text(spin) + " of warp 0 spin at pc " + std::to_string(spin_pc) +
                     " for the lock the waiting lane holds";
      if (others) res.spinners += "; " + std::to_string(others) + " more warps spin for it too";
    } else {
      res.spinners = "every other thread spins";
    }
  }

  SimConfig cfg_;
  Program prog_;
  std::vector<Lane> lanes_;
  std::vector<Warp> warps_;
  std::vector<long long> l1_;  // per block (SM): the counter's line in L1, -1 when absent
  std::vector<Slot> slots_;    // combining: one per thread
  std::vector<long long> answers_;
  long long handoffs_ = 0, largest_pass_ = 0, served_by_others_ = 0;
  int mutex_ = 0;
  long long cnt_ = 0, next_ = 0, serving_ = 0;
  int holder_ = -1;
  bool by_block_ = false;
  std::vector<int> traced_;
  std::vector<std::string> cells_;
  std::string note_;
  long long stale_ = 0;
  std::string first_stale_;
  long long round_now_ = 1;
};

}  // namespace

SimResult simulate(const SimConfig& c) {
  Machine m(c);
  return m.run();
}

}  // namespace cudasync::lock
