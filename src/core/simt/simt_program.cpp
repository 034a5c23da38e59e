// How a lesson writes a program for core/simt: values, conditions, instructions and their modifiers.
#include "core/simt/simt.hpp"

#include <vector>

#include "core/report/text_format.hpp"

namespace cudasync::simt {

const char* to_string(Scheduling s) { return s == Scheduling::lockstep ? "lockstep" : "independent"; }

const char* outcome_id(Outcome o) {
  switch (o) {
    case Outcome::completed: return "completes";
    case Outcome::deadlock: return "deadlocks";
    case Outcome::step_limit: return "undecided";
  }
  return "undecided";
}

std::optional<Scheduling> parse_scheduling(const std::string& s) {
  if (s == "lockstep") return Scheduling::lockstep;
  if (s == "independent") return Scheduling::independent;
  return std::nullopt;
}

Val value(long long k) {
  Val v;
  v.add = k;
  return v;
}
Val lane_plus(long long k) {
  Val v;
  v.from = Val::From::lane;
  v.add = k;
  return v;
}
Val reg_plus(int reg, long long k) {
  Val v;
  v.from = Val::From::reg;
  v.reg = reg;
  v.add = k;
  return v;
}
Val reg_plus_live_lanes(int reg) {
  Val v = reg_plus(reg);
  v.plus_live_lanes = true;
  return v;
}

Cond always() { return Cond{}; }
Cond reg_eq(int reg, long long k) {
  Cond c;
  c.lhs = Cond::Lhs::reg;
  c.reg = reg;
  c.equal = true;
  c.rhs = value(k);
  return c;
}
Cond reg_ne(int reg, long long k) {
  Cond c = reg_eq(reg, k);
  c.equal = false;
  return c;
}
Cond word_ne(int word, Val rhs) {
  Cond c;
  c.lhs = Cond::Lhs::word;
  c.word = word;
  c.rhs = rhs;
  return c;
}
Cond not_leader() {
  Cond c;
  c.lhs = Cond::Lhs::not_leader;
  return c;
}

Instr Instr::tagged(int t) const {
  Instr i = *this;
  i.tag = t;
  return i;
}
Instr Instr::acquiring() const {
  Instr i = *this;
  i.acquire = true;
  return i;
}
Instr Instr::waiting() const {
  Instr i = *this;
  i.wait = true;
  return i;
}
Instr Instr::addressed(At a) const {
  Instr i = *this;
  i.at = a;
  return i;
}
bool Instr::is_branch() const { return op == Op::branch || op == Op::loop || (op == Op::custom && target >= 0); }

namespace {

Instr make(Op op, std::string code, int word = -1, int reg = -1, Val v = {}) {
  Instr i;
  i.op = op;
  i.code = std::move(code);
  i.word = word;
  i.reg = reg;
  i.val = v;
  return i;
}

}  // namespace

Instr cas(int word, Val desired, int reg, std::string code) { return make(Op::cas, std::move(code), word, reg, desired); }
Instr load(int word, int reg, std::string code) { return make(Op::load, std::move(code), word, reg); }
Instr store(int word, Val v, std::string code) { return make(Op::store, std::move(code), word, -1, v); }
Instr atomic_add(int word, Val v, int reg, std::string code) { return make(Op::add, std::move(code), word, reg, v); }
Instr exch(int word, Val v, std::string code) { return make(Op::exch, std::move(code), word, -1, v); }
Instr fence(std::string code) { return make(Op::fence, std::move(code)); }
Instr set(int reg, Val v, std::string code) { return make(Op::set, std::move(code), -1, reg, v); }
Instr nop(std::string code) { return make(Op::nop, std::move(code)); }
Instr branch(Cond c, int target, int reconverge, std::string code) {
  Instr i = make(Op::branch, std::move(code));
  i.cond = c;
  i.target = target;
  i.reconverge = reconverge;
  return i;
}
Instr jump(int target, std::string code) { return branch(always(), target, -1, std::move(code)); }
Instr loop(int target, int reconverge, std::string code) {
  Instr i = make(Op::loop, std::move(code));
  i.target = target;
  i.reconverge = reconverge;
  return i;
}
Instr syncwarp(std::string code) { return make(Op::syncwarp, std::move(code)); }
Instr exit(std::string code) { return make(Op::exit, std::move(code)); }
Instr custom(Custom f, std::string code, int target, int reconverge) {
  Instr i = make(Op::custom, std::move(code));
  i.custom = std::move(f);
  i.target = target;
  i.reconverge = reconverge;
  return i;
}

int Machine::word_index(const std::string& n) const {
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i].name == n) return static_cast<int>(i);
  return -1;
}

long long Result::word(const std::string& name) const {
  const int i = machine.word_index(name);
  return i < 0 || static_cast<std::size_t>(i) >= memory.size() ? -1 : memory[static_cast<std::size_t>(i)];
}

std::string mask_text(std::uint32_t mask) {
  std::vector<int> lanes;
  for (int i = 0; i < 32; ++i)
    if ((mask >> i) & 1u) lanes.push_back(i);
  return report::ranges_text(lanes);
}

}  // namespace cudasync::simt
