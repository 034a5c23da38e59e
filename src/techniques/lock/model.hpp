#pragma once
// The reference model of the lock lesson: each lock protocol written as a short program of the
// operations that matter (atomicCAS, the spin branch, the counter's load and store, atomicExch,
// fences, tickets, __syncwarp) for core/simt's step machine, run by a few threads under lockstep
// (pre-Volta: one program counter per warp, a SIMT stack) or independent scheduling, and its trace
// told in this lesson's words and drawn as report tables.
//
// Memory: the lock word, the counter and the ticket words live in L2; every block runs on its own
// SM with its own L1. The counter is `cached`: a plain load goes through the SM's L1 (a hit returns
// the line it holds, which may be stale: L1s are not coherent for global data); atomics act in L2;
// a plain store writes through to L2 and keeps the new value in its own L1 (what the H100 does:
// with the book's lock and no fence, every block went on adding to its own copy); an acquire (a
// fence, compare_exchange with acquire on success, an acquire load that sees its turn) drops the
// SM's L1 lines. The model does not reorder stores: it shows only the cache effect.
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "core/simt/simt.hpp"
#include "techniques/lock/locks.hpp"

namespace cudasync::lock {

using Regime = simt::Scheduling;
using Outcome = simt::Outcome;
const char* to_string(Outcome o);  // "completes", "deadlock", "round limit"

// The lesson's names for its instructions (simt::Instr::tag): the trace says what each one did.
enum class Op {
  cas, bra_r_ne0, bra_retry, bra_r_eq0, bra_done, jmp, clear_done, set_done, ld_cnt, st_cnt, add_cnt, exch,
  fence, sleep, take_ticket, bra_not_turn, st_serving, bra_not_leader, syncwarp, loop, exit, publish,
  bra_slot_done, bra_lock_held, combine, delay,
};

// The protocols the lesson runs, as the model writes them: one per Variant.
enum class Protocol {
  book,             // parts 1 and 3: the blog's class, inline in the kernel, no fence
  book_atomic_add,  // the same lock, atomicAdd as the critical section (fix 1)
  lock_functions,   // part 2: the blog's class with __threadfence, lock()/unlock() as functions
  fenced,           // fix 2: __threadfence() after taking and before releasing
  acq_rel,          // fix 3: compare_exchange with acquire, store with release
  thread_lock,      // part 7: the blog's inline acquire-work-release loop
  backoff,          // bench protocols
  ticket,
  warp_aggregated,
  combining,        // beyond the blog: flat combining, requests in slots, the holder serves them all
  ttas,             // test-and-test-and-set (the counter's line is not modelled: both ttas variants)
  delay_after,      // part 4: the book's lock with the blog's delay after the increment
  delay_before,     // the same with the delay after taking the lock, before the load
};
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

// The protocol as core/simt runs it at `c`'s shape (its words: mutex, cnt, next, serving, and for
// the combining lock one slot per thread).
simt::Machine machine_of(const SimConfig& c);
// Its name and code, for the program table.
simt::Machine program_of(Protocol p);

// One row of a trace: one instruction of each warp (lockstep) or of each thread (independent).
struct TraceRow {
  long long step = 0;
  std::vector<std::string> cells;  // one per traced lane/thread
  long long mutex = 0;             // L2 values after the row
  long long cnt = 0;
  std::string l1;                  // "SM0 0, SM1 -": what each traced SM's L1 holds for the counter
  std::string note;
};

struct SimResult {
  SimConfig config;
  Outcome outcome = Outcome::step_limit;
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
  std::string first_stale;    // "step 8: block 1 read cnt = 0 from its SM's L1 while L2 held 1"
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

// Table "program": pc and the source line of each instruction.
report::Table program_table(Protocol p);
// A run's trace, one row per step, one column per traced lane (or block); `show_l1` adds what each
// traced SM's L1 holds for the counter.
report::Table trace_table(const SimResult& r, const std::string& id, const std::string& title, bool show_l1);
std::string trace_id(Regime r);        // "trace-lockstep"
std::string regime_title(Regime r);    // "lockstep (one pc per warp: pre-Volta, cc < 7.0)"

}  // namespace cudasync::lock
