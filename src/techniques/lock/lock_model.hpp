#pragma once
// The reference model of the lock lesson: an interleaving simulator. A few threads run one lock
// protocol, written as a short program of the operations that matter (atomicCAS, the spin branch,
// the counter's load and store, atomicExch, fences, tickets, __syncwarp), under one of two warp
// scheduling regimes:
//
//   lockstep     (pre-Volta, compute capability < 7.0) a warp has one program counter. At a
//                divergent branch the lanes split and the warp runs one side until it reaches the
//                branch's reconvergence point (its immediate post-dominator), then the other: the
//                SIMT stack. The lanes of a warp that execute one atomic do so in lane order.
//   independent  (Volta and newer) every lane has its own program counter; the scheduler gives
//                each unfinished lane one instruction per round, in lane order.
//
// Memory: the lock word, the counter and the ticket words live in L2; every block runs on its own
// SM with its own L1. A plain load goes through the SM's L1 (a hit returns the line it holds, which
// may be stale: L1s are not coherent for global data, PTX ISA "Cache operators"); atomics act in
// L2; a plain store writes through to L2 and keeps the new value in its own L1 (what the H100 does:
// with the book's lock and no fence, every block went on adding to its own copy); an acquire (a
// fence, compare_exchange with acquire on success, an acquire load that sees its turn) drops the
// SM's L1 lines. The model does not reorder stores: it shows only the cache effect.
//
// The run is deterministic, so a state that comes back means the run repeats forever: that is how
// the lockstep deadlock is detected (Brent's cycle detection on the state after each round).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "techniques/lock/lock.hpp"

namespace cudasync::lock {

enum class Regime { lockstep, independent };
const char* to_string(Regime r);           // "lockstep", "independent"
std::optional<Regime> parse_regime(const std::string& s);

enum class Op {
  cas,             // r = atomicCAS(mutex, 0, 1)        (acquire: drops L1 on success)
  bra_r_ne0,       // if (r != 0) goto target
  bra_r_eq0,       // if (r == 0) goto target
  bra_done,        // if (!blocked) goto target          (while (blocked))
  jmp,             // goto target
  clear_done,      // blocked = true
  set_done,        // blocked = false
  ld_cnt,          // v = *cnt                            (through L1)
  st_cnt,          // *cnt = v + 1, or v + lanes of the warp (warp-aggregated)
  add_cnt,         // atomicAdd(cnt, 1)
  exch,            // atomicExch(mutex, 0)
  fence,           // __threadfence()                     (drops L1)
  sleep,           // __nanosleep()
  take_ticket,     // t = atomicAdd(next, 1)
  bra_not_turn,    // if (ld.acquire(serving) != t) goto target   (drops L1 when it is its turn)
  st_serving,      // st.release(serving, t + 1)
  bra_not_leader,  // if (lane != lowest lane of the warp) goto target
  syncwarp,        // __syncwarp()
  loop,            // if (++i < iters) goto target
  exit,
  publish,         // slot[me] = {pending, +1}              (combining: the request)
  bra_slot_done,   // if (slot[me] is done) { answer = its value; goto target }
  bra_lock_held,   // if (ld.relaxed(mutex) != 0) goto target   (test before test-and-set)
  combine,         // for every slot: if pending { slot = {done, cnt}; cnt += 1 }   (the holder's pass)
};

struct Instr {
  Op op;
  std::string code;       // the source line it stands for
  int target = -1;        // branches
  int reconverge = -1;    // branches: where the two sides meet again (lockstep)
  bool acquire = false;   // cas: drops L1 on success
  bool whole_warp = false;  // st_cnt: v + lanes of the warp
  std::string fall_cell;    // branches: the trace's word for not taking it, when the default misleads
};

struct Program {
  std::string name;
  std::vector<Instr> code;
};

// The protocols the lesson runs, as the model writes them: one per Variant.
enum class Protocol {
  book,             // parts 1 and 3: the seed's class, inline in the kernel, no fence
  book_atomic_add,  // the same lock, atomicAdd as the critical section (fix 1)
  lock_functions,   // part 2: the class with __threadfence, lock()/unlock() as functions
  fenced,           // fix 2: __threadfence() after taking and before releasing
  acq_rel,          // fix 3: compare_exchange with acquire, store with release
  thread_lock,      // part 5: the seed's inline acquire-work-release loop
  backoff,          // bench protocols
  ticket,
  warp_aggregated,
  combining,        // beyond the seed: flat combining, requests in slots, the holder serves them all
  ttas,             // test-and-test-and-set (the counter's line is not modelled: both ttas variants)
};
Program program_of(Protocol p);
Protocol protocol_of(Variant v);

struct SimConfig {
  Protocol protocol = Protocol::book;
  Regime regime = Regime::independent;
  int blocks = 1;
  int threads = 4;        // per block; warps of 32
  int iters = 1;
  long long max_rounds = 200000;
  int trace_lanes = 4;    // lanes (of block 0, warp 0) with a column in the trace; blocks when threads == 1
  int trace_rows = 0;     // 0: no trace
};

enum class Outcome { completed, deadlock, round_limit };
const char* to_string(Outcome o);

// One row of a trace: one instruction of warp 0 (lockstep) or one round (independent).
struct TraceRow {
  long long step = 0;
  std::vector<std::string> cells;  // one per traced lane/thread
  int mutex = 0;                   // L2 values after the row
  long long cnt = 0;
  std::string l1;                  // "SM0 0, SM1 -": what each traced SM's L1 holds for the counter
  std::string note;
};

struct SimResult {
  SimConfig config;
  Outcome outcome = Outcome::round_limit;
  long long rounds = 0;
  long long count = 0;     // the counter at the end (in L2)
  long long expected = 0;  // threads x iterations
  // deadlock: the state after round `repeat_from` came back `cycle_rounds` rounds later
  long long repeat_from = 0, cycle_rounds = 0;
  std::string holder;      // deadlock: who holds the lock and where it is
  std::string spinners;    // deadlock: who spins, and where
  std::vector<std::string> columns;  // titles of TraceRow::cells
  std::vector<TraceRow> trace;
  long long rows_not_shown = 0;
  long long stale_reads = 0;  // loads that returned a value older than L2's
  std::string first_stale;    // "round 8: block 1 read cnt = 0 from its L1 while L2 held 1"
  // combining: every answer a request returned, in the order they were read; the passes over the
  // slots (lock handoffs); the most requests one pass served; requests another thread served.
  std::vector<long long> answers;
  long long handoffs = 0, largest_pass = 0, served_by_others = 0;
  // 0 .. expected-1, each once: no critical sections overlapped and every answer is its own.
  bool answers_exact() const;
  bool exact() const {
    return outcome == Outcome::completed && count == expected &&
           (config.protocol != Protocol::combining || answers_exact());
  }
};

SimResult simulate(const SimConfig& c);

}  // namespace cudasync::lock
