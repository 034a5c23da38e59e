#pragma once
// A litmus test as data: threads with their placement, their PTX instructions, the initial values
// and a final condition. Written in the PTX subset of Dat3M's .litmus format (docs/litmus.md), so
// that the tests of Dat3M's PTX suite read as they are; core/litmus/litmus_parse.hpp reads one,
// core/litmus/ptx_axioms.hpp judges it.
//
//   PTX MP-gpu
//   { x=0; y=0; }
//    P0@cta 0,gpu 0        | P1@cta 1,gpu 0        ;
//    st.weak x, 1          | ld.acquire.gpu r0, y  ;
//    st.release.gpu y, 1   | ld.weak r1, x         ;
//   exists (P1:r0 == 1 /\ P1:r1 == 0)
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cudasync::litmus {

// The scope an instruction names; `none` for a weak access (ld, ld.weak, st, st.weak).
enum class Scope { none, cta, gpu, sys };
// Memory-order semantics. A fence is acq_rel or sc; ld.volatile and st.volatile are relaxed.sys.
enum class Sem { weak, relaxed, acquire, release, acq_rel, sc };

enum class Op {
  load,     // ld[.sem.scope] r, x        (or ld r, 5: a register set to a constant)
  store,    // st[.sem.scope] x, v
  atom,     // atom[.sem][.scope].op r, x, v[, v2]: a read and a write, one atomic step
  red,      // red[.sem][.scope].op x, v: atom without the result
  fence,    // fence.sc.scope, fence.acq_rel.scope, membar.cta/gl/sys
  barrier,  // bar.sync N, bar.cta.sync N, barrier.sync N: the threads of one CTA meet
  move,     // mov r, v (and ld r, 5)
  alu,      // add/sub/mul/and/or/xor r, a, b: registers only (the op in `rmw`)
  branch,   // beq/bne a, b, L (forward only), goto L (forward only)
  label,    // L:
};
enum class RmwOp { add, sub, exch, cas, max, min, and_, or_, xor_, inc, mul };

// A register or a constant.
struct Operand {
  bool is_reg = false;
  std::string reg;
  long long value = 0;
};

struct Instr {
  Op op = Op::load;
  Sem sem = Sem::weak;
  Scope scope = Scope::none;
  RmwOp rmw = RmwOp::add;
  std::string loc;      // load, store, atom, red
  std::string dst;      // load, atom, move: the register written
  Operand a, b;         // store/red/move: a; atom: a (cas: compare a, swap in b); branch: a == b?
  bool branch_if_equal = true;  // beq (true), bne (false); goto: a and b both 0
  std::string target;   // branch: the label; label: its name
  int barrier_id = 0;
  std::string text;     // as written, trimmed
  int line = 0, column = 0;
};

// Where a thread runs. Two threads of one CTA share `.cta` scope; of one GPU `.gpu`; `.sys`
// reaches every thread, the host's included (a host thread is in no CTA and on no GPU).
struct Placement {
  int gpu = 0;
  int cta = 0;
  int warp = -1;  // same warp: only where it matters to the hardware run; -1 unsaid
  bool host = false;
};

struct Thread {
  std::string name;  // P0, P1, ...
  Placement where;
  std::vector<Instr> code;
};

// A term of the final condition: a register of a thread, a location's final value, or a number.
struct Term {
  enum class Kind { reg, loc, value } kind = Kind::value;
  int thread = -1;
  std::string name;
  long long value = 0;
};

struct Cond {
  enum class Kind { truth, eq, ne, and_, or_, not_ } kind = Kind::truth;
  Term lhs, rhs;                            // eq, ne
  std::vector<std::shared_ptr<Cond>> kids;  // and, or: two; not: one
};

enum class Quantifier { exists, not_exists, forall };

struct LitmusTest {
  std::string name;
  std::string doc;   // the quoted lines under the name
  std::string file;  // where it was read from ("" for text given directly)
  std::map<std::string, long long> memory;                // initial values (0 when unsaid)
  std::map<std::pair<int, std::string>, long long> regs;  // initial register values
  std::vector<Thread> threads;
  Quantifier quantifier = Quantifier::exists;
  Cond condition;
  std::string condition_text;
};

const char* to_string(Scope s);       // "cta", "gpu", "sys", "" for none
const char* to_string(Sem s);         // "weak", "relaxed", ...
const char* to_string(Quantifier q);  // "exists", "~exists", "forall"
std::string to_string(const Cond& c, const LitmusTest& t);  // "P1:r0 == 1 /\ x == 2"
std::string placement_text(const Placement& p);             // "cta 0, gpu 0", "host"

}  // namespace cudasync::litmus
