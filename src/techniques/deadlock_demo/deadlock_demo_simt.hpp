#pragma once
// The small SIMT machine the reference model runs the lane-level scenarios on (warp-spinlock, the
// wait-for cycle inside a warp, lock-order): a few lanes execute a program of a handful of
// instructions (atomicCAS, load, store, atomicAdd, atomicExch, a conditional branch, a loop,
// exit) over a few words of memory, under one of two schedulers:
//
//   lockstep     one program counter per warp (before Volta, compute capability < 7.0). At a
//                divergent branch the warp runs the taken side first, with the other lanes masked
//                off, until it reaches the branch's reconvergence point (its immediate
//                post-dominator); then the other side. The SIMT stack of entries {pc, mask,
//                reconvergence pc}. Lanes execute one instruction in lane order.
//   independent  a program counter per lane (Volta and newer, and always between blocks): in each
//                step every unfinished lane executes one instruction, in lane order.
//
// The run is deterministic, so a state (program counters, stack, registers, memory) that comes
// back means it repeats forever: that is the deadlock. The wait-for graph at that point says who
// waits for whom: a lane spinning on a lock waits for the lane holding it (the word holds the
// holder's index + 1), a lane spinning on a flag waits for the lane that sets it, and in lockstep a
// lane parked at a reconvergence point waits for the lanes the warp is running.
//
// This lesson writes its own machine rather than use the lock lesson's simulator: techniques do not
// include each other, and this one needs only these few instructions, but wait-for graphs.
#include <optional>
#include <string>
#include <vector>

#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_graph.hpp"

namespace cudasync::deadlock_demo::simt {

enum class Regime { lockstep, independent };
const char* to_string(Regime r);  // "lockstep", "independent"
std::optional<Regime> parse_regime(const std::string& s);

enum class Op { cas, ld, st, add, exch, bra_ne0, bra_eq0, loop, exit };
// Which word an instruction touches: `base`, base + lane, or base + (lane + 1) % lanes.
enum class At { fixed, self, next };

struct Word {
  enum class Kind { plain, lock, flag };
  std::string name;
  Kind kind = Kind::plain;
  int owner = -1;  // flag: the lane that sets it
  int id = 0;      // what a record's `on` says for it: a lock's number, a flag's owner
};

struct Instr {
  Op op = Op::exit;
  std::string code;          // the source line it stands for
  int base = 0;
  At at = At::fixed;
  int value = 0;             // cas (new value), st, exch
  bool value_self = false;   // the value is lane + 1 (a lock word names its holder)
  int target = -1;           // branches, loop
  int reconverge = -1;       // branches, loop: where both sides meet again
  bool wait = false;         // cas / ld of a spin loop: what the lane waits for
};

struct Machine {
  std::string name;
  std::string noun = "lane";  // "lane", or "block" where each lane stands for a block
  Regime regime = Regime::independent;
  int lanes = 1;
  int iters = 1;              // the loop instruction's bound
  std::vector<Word> words;
  std::vector<Instr> code;
};

struct TraceRow {
  long long step = 0;
  std::vector<std::string> cells;  // one per traced lane
  std::string memory;              // "lock 1, counter 0"
  std::string note;
};

struct Result {
  Machine machine;
  bool completed = false;     // every lane exited
  bool deadlock = false;      // a state came back
  long long steps = 0;        // steps run; deadlock: the step whose state had been seen
  long long repeat_from = 0;  // deadlock: the step it had been seen after
  std::vector<std::string> columns;  // titles of TraceRow::cells
  std::vector<TraceRow> trace;
  long long rows_not_shown = 0;
  std::vector<long long> memory;  // at the end
  // Per lane: finished, or (deadlock) gave_up with `on` = the waited word's id and `seen` = the
  // value it last read; a lane parked at a reconvergence point has on = -1 and seen = that pc.
  std::vector<Record> records;
  WaitGraph graph;                 // lane level, at the deadlock
  std::vector<std::string> waits;  // the graph folded: "lanes 1-31 wait for lane 0: the lock it holds (read 1)"
  long long word(const std::string& name) const;  // final value of a word, -1 if there is none
};

// `trace_lanes` lanes get a column in the trace; `trace_rows` steps are kept (0: no trace).
Result run(const Machine& m, int trace_lanes, int trace_rows, long long max_steps = 200000);

// warp-spinlock: `lanes` lanes of one warp each take the CAS lock once (the lock word holds the
// holder's lane + 1), add one to the counter, release.
Machine spinlock_machine(Regime r, int lanes);
// The wait-for cycle inside a warp: lane i waits for lane i+1's flag (mod lanes), then sets its own.
Machine ring_machine(Regime r, int lanes);
// lock-order: two blocks (independent lanes). Broken: block b takes its first lock (A for 0, B for
// 1), says so, waits until the other holds its first, then takes its second. Fixed: both take A then
// B, `iters` times, adding one to a counter under each.
Machine lock_order_machine(bool fixed, int iters);

}  // namespace cudasync::deadlock_demo::simt
