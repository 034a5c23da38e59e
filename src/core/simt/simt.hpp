#pragma once
// One SIMT step machine for the lessons that show, lane by lane, what a warp does with a spin loop:
// a few lanes run a short program over a few words of memory, one instruction per step, under one
// of two schedulers:
//
//   lockstep     one program counter per warp (before Volta, compute capability < 7.0). At a
//                divergent branch the warp runs the fall-through side first, with the other lanes
//                masked off, until it reaches the branch's reconvergence point (its immediate
//                post-dominator); then the other side. The SIMT stack holds {pc, mask, reconvergence
//                pc}; an entry that reaches its reconvergence point, or loses every lane, is popped at
//                once. A spinning side therefore starves the side parked at the reconvergence point.
//   independent  a program counter per lane (Volta and newer, and always between blocks): in each
//                step every unfinished lane runs one instruction, in lane order.
//
// Lanes are blocks x threads, warps of 32 consecutive threads of a block; every block runs on its
// own SM. Memory is L2, coherent; a word marked `cached` is read by plain loads through the SM's L1,
// which other SMs' stores do not update (PTX ISA "Cache operators"): a line kept there can be
// stale. A plain store writes through and keeps its line in its own L1; atomics act in L2; an
// acquire (a fence, a successful CAS marked acquire, a branch marked acquire falling through) drops
// the SM's L1. The run is deterministic, so a state that comes back means the run repeats forever:
// that is the deadlock (livelock), as is a step in which nobody could move.
//
// A lesson supplies a program (and renders the trace in its own words; the machine says what
// happened, never how to phrase it). CUDA by Example's CAS lock, every lane of one warp once:
//
//   enum Reg { r };                              // the lesson names its (four) registers
//   enum Mem { lock, counter };                  // and its words, by index
//   simt::Machine m;
//   m.name = "the CAS lock in one warp";
//   m.scheduling = simt::Scheduling::lockstep;
//   m.threads = 32;                              // one block of one warp
//   m.words = {{"lock", simt::Word::Kind::lock}, {"counter"}};
//   m.code = {
//       simt::cas(lock, simt::value(1), r, "while (atomicCAS(&lock, 0, 1) != 0)"),    // 0
//       simt::branch(simt::reg_ne(r, 0), 0, 2, "  ;   // spin"),                      // 1: to 0; sides meet at 2
//       simt::atomic_add(counter, simt::value(1), -1, "atomicAdd(&counter, 1);"),       // 2
//       simt::exch(lock, simt::value(0), "atomicExch(&lock, 0);"),                     // 3
//       simt::exit("return;"),                                                          // 4
//   };
//   simt::Result a = simt::run(m, {{0, 1, 2, 3}, 40});   // lanes 0-3 traced, 40 steps kept
//   // a.outcome == Outcome::deadlock: lane 0 took the lock and is parked at 2 (a.lanes[0].pc) while
//   // the warp runs lanes 1-31 round 0 -> 1 -> 0; a.repeat_from says which step came back.
//   m.scheduling = simt::Scheduling::independent;
//   simt::Result b = simt::run(m);                        // completed, b.word("counter") == 32
//
// Each trace row has one Event per traced lane (the instruction it ran and what it read and wrote,
// or that its warp parked it, or that it exited), the memory after the step, any divergence, and
// whether the state repeats an earlier one. `Instr::tag` carries the lesson's own name for an
// instruction, so its renderer can say "spins" or "tries" where the machine says "branch taken".
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace cudasync::simt {

inline constexpr int kWarpSize = 32;
inline constexpr int kRegisters = 4;
inline constexpr long long kAbsent = std::numeric_limits<long long>::min();  // an L1 without the line

enum class Scheduling { lockstep, independent };
const char* to_string(Scheduling s);  // "lockstep", "independent"
std::optional<Scheduling> parse_scheduling(const std::string& s);

struct Word {
  enum class Kind { plain, lock, flag };
  std::string name;
  Kind kind = Kind::plain;  // lock: a successful CAS makes the lane its holder, a store of 0 frees it
  bool cached = false;      // plain loads go through the SM's (non-coherent) L1
  bool history = false;     // bookkeeping the program never decides on: left out of the repeat test
  int owner = -1;           // flag: the lane that sets it
  int id = 0;               // the lesson's own number for it
  long long initial = 0;
};

// Which word an instruction touches: `word`, word + lane (its own), word + (lane + 1) % lanes.
enum class At { fixed, self, next };

// A value an instruction writes or compares with.
struct Val {
  enum class From { constant, lane, reg };
  From from = From::constant;
  int reg = 0;
  long long add = 0;
  bool plus_live_lanes = false;  // + the warp's live lanes (one lane makes the warp's n updates)
};
Val value(long long k);
Val lane_plus(long long k);  // the lane's index + k: a lock word that names its holder
Val reg_plus(int reg, long long k = 0);
Val reg_plus_live_lanes(int reg);

// A branch's condition: taken when lhs == rhs (equal) or lhs != rhs.
struct Cond {
  enum class Lhs { always, reg, word, not_leader };
  Lhs lhs = Lhs::always;
  int reg = 0;
  int word = -1;
  bool equal = false;
  Val rhs;
};
Cond always();
Cond reg_eq(int reg, long long k);
Cond reg_ne(int reg, long long k);
Cond word_ne(int word, Val rhs);  // reads the word in L2 (a relaxed or acquire load)
Cond not_leader();                // the lane is not its warp's lowest live lane

enum class Op { cas, load, store, add, exch, fence, set, nop, branch, loop, syncwarp, exit, custom };

class Exec;
// A lesson's own instruction: does its work through Exec, says what it did (Exec::text), and
// returns whether it branches (only when the instruction has a target).
using Custom = std::function<bool(Exec&)>;

struct Instr {
  Op op = Op::nop;
  std::string code;       // the source line it stands for
  int tag = 0;            // the lesson's own name for it
  int word = -1;
  At at = At::fixed;
  int reg = -1;           // the register it writes (cas, load, add, exch, set); -1: none
  Val val;                // cas: the new value; store, exch, add, set: the value
  Cond cond;              // branch
  int target = -1;        // branch, loop, custom: where a taken branch goes
  int reconverge = -1;    // where both sides meet again (lockstep)
  bool acquire = false;   // drops the SM's L1: cas on success, load, branch when it falls through
  bool wait = false;      // a spin's read: the lane waits on this word (Lane::wait_word, seen)
  Custom custom;

  Instr tagged(int t) const;
  Instr acquiring() const;
  Instr waiting() const;
  Instr addressed(At a) const;
  bool is_branch() const;
};

Instr cas(int word, Val desired, int reg, std::string code);  // reg = old; if old == 0: word = desired
Instr load(int word, int reg, std::string code);
Instr store(int word, Val v, std::string code);
Instr atomic_add(int word, Val v, int reg, std::string code);  // reg = old (-1: unused); word += v
Instr exch(int word, Val v, std::string code);
Instr fence(std::string code);
Instr set(int reg, Val v, std::string code);
Instr nop(std::string code);
Instr branch(Cond c, int target, int reconverge, std::string code);
Instr jump(int target, std::string code);
Instr loop(int target, int reconverge, std::string code);  // if (++i < iters) goto target
Instr syncwarp(std::string code);
Instr exit(std::string code);
Instr custom(Custom f, std::string code, int target = -1, int reconverge = -1);

struct Machine {
  std::string name;
  Scheduling scheduling = Scheduling::independent;
  int blocks = 1;
  int threads = 1;  // per block
  int iters = 1;    // the loop instruction's bound
  int tallies = 0;  // counters custom instructions keep (Result::tallies)
  std::vector<Word> words;
  std::vector<Instr> code;

  int lanes() const { return blocks * threads; }
  int word_index(const std::string& name) const;  // -1 when none
};

namespace detail {
class Engine;
}

// What a custom instruction may touch.
class Exec {
 public:
  Exec(detail::Engine& e, int lane) : engine_(e), lane_(lane) {}
  int lane() const { return lane_; }  // global: block * threads + thread
  int lanes() const;
  int block() const;
  int iteration() const;              // the lane's loop counter
  long long& reg(int r);
  long long& word(int w);             // in L2
  void keep_in_l1(int w, long long v);  // a plain store's line stays in this SM's L1
  void drop_l1();
  void log(long long v);              // Result::log, in order
  long long& tally(int k);            // Result::tallies[k]
  std::string text;                   // what the lane did, for the trace

 private:
  detail::Engine& engine_;
  int lane_;
};

// One lane in one step of the trace.
struct Event {
  enum class Kind { ran, parked, exited, at_sync };
  enum class From { l2, l1, l1_stale };
  Kind kind = Kind::exited;
  int pc = -1;            // ran: its instruction; parked: where its warp resumes it
  bool taken = false;     // a branch taken; a CAS that swapped
  long long read = 0;     // what it read: the old value (cas, add, exch), a load's value, a branch's lhs
  long long wrote = 0;    // what the word (or register) holds after it
  long long l2 = 0;       // load: what L2 held
  From from = From::l2;   // load: where the value came from
  int word = -1;          // the word it touched
  bool holds = false;     // parked, at_sync: it holds a lock word
  std::string text;       // custom instructions
};

// A divergent branch: lanes (bits of the warp) `taken` go to `target`, `fall` to `next`.
struct Split {
  int warp = 0;
  int pc = 0;
  std::uint32_t taken = 0, fall = 0;
  int target = 0, next = 0, reconverge = 0;
};

struct Row {
  long long step = 0;
  std::vector<Event> lanes;       // one per traced lane
  std::vector<long long> memory;  // every word in L2 after the step
  std::vector<long long> l1;      // [block * words + word]: each SM's L1 line, kAbsent
  std::vector<Split> splits;
  long long repeats = -1;         // the state after this step is the state after step `repeats` (0: the start)
  bool stuck = false;             // nobody could move
};

enum class Outcome { completed, deadlock, step_limit };
// The outcome as an id, for a report's data beside its words: "completes", "deadlocks",
// "undecided" (the step limit came first). Exercises read it; the words may be translated.
const char* outcome_id(Outcome o);

struct Lane {
  bool exited = false;
  bool running = false;  // lockstep: its warp's top entry holds it
  int pc = 0;            // lockstep: where its warp runs or resumes it
  int iteration = 0;
  long long reg[kRegisters] = {};
  bool at_sync = false;
  int wait_word = -1;    // the word its last spin read (Instr::wait), and the value it read
  long long seen = 0;
};

struct Stale {
  long long step = 0;
  int lane = 0, word = 0;
  long long read = 0, l2 = 0;
};

struct Result {
  Machine machine;
  Outcome outcome = Outcome::step_limit;
  long long steps = 0;
  long long repeat_from = 0;  // deadlock: the state after `steps` is the state after this (== steps: stuck)
  std::vector<long long> memory;  // L2 at the end
  std::vector<int> holder;        // per word: the lane holding a lock word, -1
  std::vector<Lane> lanes;        // at the end
  std::vector<int> warp_pc;       // lockstep, at the end: each warp's top entry (-1: empty)
  std::vector<std::uint32_t> warp_running;  // and the live lanes it runs
  std::vector<int> traced;
  std::vector<Row> trace;
  long long rows_not_shown = 0;
  long long stale_reads = 0;      // loads that returned an L1 line older than L2's
  std::optional<Stale> first_stale;
  std::vector<long long> log;
  std::vector<long long> tallies;

  bool completed() const { return outcome == Outcome::completed; }
  bool deadlock() const { return outcome == Outcome::deadlock; }
  long long word(const std::string& name) const;  // at the end; -1 when there is none
};

// `lanes` (global indices) get one Event each per row; `rows` steps are kept (0: no trace).
struct Trace {
  std::vector<int> lanes;
  int rows = 0;
};

// Throws std::invalid_argument for an empty machine or an instruction that names no word it needs.
Result run(const Machine& m, const Trace& trace = {}, long long max_steps = 200000);

// "0-3, 5" for the bits of a warp mask.
std::string mask_text(std::uint32_t mask);

}  // namespace cudasync::simt
