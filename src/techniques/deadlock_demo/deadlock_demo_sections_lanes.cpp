// The lane-level scenarios: warp-spinlock, lock-order, and the two barrier scenarios run in a child.
#include <algorithm>
#include <sstream>

#include "techniques/deadlock_demo/deadlock_demo_section_util.hpp"
#include "techniques/deadlock_demo/deadlock_demo_sections.hpp"

namespace cudasync::deadlock_demo {

using namespace detail;  // NOLINT: this file's own helpers
using report::Check;
using report::LaneTable;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;

namespace {

std::string verdict(const simt::Result& r) {
  if (r.completed) {
    const long long count = r.word("counter");
    return "completes in " + std::to_string(r.steps) + " steps" +
           (count >= 0 ? ", counter " + std::to_string(count) + " of " + std::to_string(r.machine.lanes) : "");
  }
  if (r.deadlock)
    return "deadlock: the state after step " + std::to_string(r.steps) + " is the state " +
           (r.repeat_from == 0 ? std::string("it started in") : "after step " + std::to_string(r.repeat_from));
  return "undecided after " + std::to_string(r.steps) + " steps";
}

LaneTable program_table(const simt::Machine& m, const std::string& id) {
  LaneTable t;
  t.id = id;
  t.title = "the program the model runs: " + m.name;
  t.columns = {{"pc", "pc", ""}, {"code", "code", ""}};
  for (std::size_t i = 0; i < m.code.size(); ++i) t.add_row({static_cast<I>(i), m.code[i].code});
  return t;
}

LaneTable trace_table(const simt::Result& r, const std::string& id, const std::string& title) {
  LaneTable t;
  t.id = id;
  t.title = title;
  t.columns = {{"step", "step", ""}};
  for (std::size_t k = 0; k < r.columns.size(); ++k) t.columns.push_back({"l" + std::to_string(k), r.columns[k], ""});
  t.columns.push_back({"memory", "memory", ""});
  t.columns.push_back({"note", "note", ""});
  for (const auto& row : r.trace) {
    std::vector<Value> v{static_cast<I>(row.step)};
    for (const auto& c : row.cells) v.push_back(c.empty() ? Value{Undefined{}} : Value{c});
    v.push_back(row.memory);
    v.push_back(row.note);
    t.add_row(std::move(v));
  }
  if (r.rows_not_shown > 0)
    t.legend.push_back("... " + std::to_string(r.rows_not_shown) + " more steps, not shown; " + verdict(r));
  if (r.machine.regime == simt::Regime::lockstep)
    t.legend.push_back("waits at N: the warp is not running this lane; it resumes at pc N when the warp reconverges");
  return t;
}

std::string regime_title(simt::Regime r) {
  return r == simt::Regime::lockstep ? "lockstep (one pc per warp: pre-Volta, cc < 7.0)"
                                     : "independent (a pc per lane: Volta and newer)";
}

void add_waits(Section& s, const simt::Result& r, const std::string& label) {
  for (const auto& w : r.waits) s.facts.push_back({label + ": who waits for whom", w, "", ""});
  const std::string cycle = r.graph.cycle_text();
  if (!cycle.empty()) s.facts.push_back({label + ": wait-for cycle", cycle, "", ""});
}

Check cycle_check(const std::string& what, const simt::Result& r) {
  const std::string cycle = r.graph.cycle_text();
  return {"reference model: " + what + " deadlocks, with a cycle in its wait-for graph", r.deadlock && !cycle.empty(),
          r.deadlock ? (cycle.empty() ? "no cycle found" : cycle) : verdict(r)};
}

}  // namespace

Section warp_section(const WarpPart& p) {
  const WarpModel& m = p.model;
  Section s;
  s.id = "warp_spinlock";
  s.title = "warp-spinlock: a spin lock taken by the lanes of one warp, and a cycle no scheduler can break";
  s.paragraphs.push_back(
      "The CAS lock of seed 001, while (atomicCAS(&lock, 0, lane + 1) != 0); ... atomicExch(&lock, 0), taken by "
      "all 32 lanes of one warp. Before Volta a warp had one program counter: at the spin loop's branch the lane "
      "that got the lock leaves the loop and waits at its exit, the reconvergence point, while the warp keeps "
      "running the loop for the other lanes, which wait for the lock that lane holds. The model's lockstep "
      "trace shows the SIMT stack doing exactly that. Since Volta every lane has its own program counter "
      "(independent thread scheduling) and the scheduler also runs the lane holding the lock: the warp finishes. "
      "CUDA 13 builds for compute capability 7.5 and up only, so the lockstep case can only be run by the model.");
  s.paragraphs.push_back(
      "What still hangs on this GPU: a real wait-for cycle. Lane i sets its flag only after lane i + 1 has set its "
      "own (lane 31 waits for lane 0). Every lane waits for a write that can only come after its own wait ends; "
      "no scheduler can help, independent or not. It is a deadlock of the program, not of the warp: between "
      "blocks it hangs the same way.");
  LaneTable v;
  v.id = "verdicts";
  v.title = "32 lanes of one warp: the model's two schedulers beside this GPU";
  v.columns = {{"program", "program", ""}, {"lockstep", "model, lockstep", ""},
               {"independent", "model, independent", ""}, {"gpu", "this GPU", ""}};
  std::string lock_gpu = "needs a GPU", ring_gpu = "needs a GPU";
  if (p.lock)
    lock_gpu = std::string(p.lock->timed_out ? "stuck: a lane gave up" : "completes") + ", counter " +
               std::to_string(p.lock->count) + " of " + std::to_string(p.lock->expected) + " (" +
               std::to_string(p.lock->iters) + " per lane), " + fixed(p.lock->ms, 3) + " ms";
  if (p.ring)
    ring_gpu = std::string(p.ring->timed_out ? "deadlock: every lane gave up at the deadline" : "completes") + ", " +
               std::to_string(p.ring->count) + " of 32 flags set";
  v.add_row({"CAS lock, every lane once", verdict(m.lock_lockstep), verdict(m.lock_independent), lock_gpu});
  v.add_row({"lane i waits for lane i + 1's flag", verdict(m.ring_lockstep), verdict(m.ring_independent), ring_gpu});
  s.tables.push_back(std::move(v));
  add_waits(s, m.lock_lockstep, "lockstep lock");
  add_waits(s, m.ring_independent, "cycle");
  s.checks.push_back(cycle_check("the lock in a lockstep warp", m.lock_lockstep));
  s.checks.push_back({"reference model: the lock in an independent warp completes with every lane counted",
                      m.lock_independent.completed && m.lock_independent.word("counter") == kWarpSize,
                      verdict(m.lock_independent)});
  s.checks.push_back(cycle_check("the cycle between lanes, scheduled independently,", m.ring_independent));
  if (!m.lock_traces.empty()) s.tables.push_back(program_table(m.lock_traces.front().machine, "program"));
  for (const auto& t : m.lock_traces)
    s.tables.push_back(trace_table(t, std::string("trace_") + simt::to_string(t.machine.regime),
                                   "the lock, trace, " + regime_title(t.machine.regime) + ": 4 lanes"));
  s.tables.push_back(program_table(m.ring_trace.machine, "ring_program"));
  s.tables.push_back(trace_table(m.ring_trace, "ring_trace", "the cycle, trace, independent: 4 lanes"));
  if (!p.lock || !p.ring) {
    s.measurements.push_back(launch_time("the cycle's launch, until every lane gave up", std::nullopt, ""));
    return s;
  }
  const LaneRun& lk = *p.lock;
  s.checks.push_back({"GPU agrees with the reference model (independent): the lock in one warp completes, count exact",
                      !lk.timed_out && lk.count == lk.expected,
                      "counter " + std::to_string(lk.count) + " of " + std::to_string(lk.expected) +
                          (lk.timed_out ? "; a lane gave up" : "")});
  const LaneRun& rg = *p.ring;
  const Describe ring = ring_describe();
  s.tables.push_back(ranges_table(rg.records, ring, "lane", "gpu_ring", "this GPU, the cycle: what every lane did", true));
  s.facts.push_back({"this GPU, the cycle: who was stuck", ranges_text(fold(rg.records, ring), "lane"), "", ""});
  s.measurements.push_back(launch_time("the cycle's launch, until every lane gave up", rg.ms, "CUDA events"));
  s.checks.push_back(ended_check(rg.records, rg.timed_out, p.deadline_ms, "lane"));
  s.checks.push_back(stuck_agreement(rg.records, m.ring_independent.records, ring, "lane"));
  add_health(s, p.health, "warp-spinlock");
  return s;
}

Section lock_order_section(const LockOrderPart& p) {
  const LockOrderModel& m = p.model;
  Section s;
  s.id = "lock_order";
  s.title = "lock-order: two blocks take two locks in opposite orders (AB / BA)";
  s.paragraphs.push_back(
      "Block 0 takes lock A, then B; block 1 takes B, then A. Whether they deadlock depends on timing: it happens "
      "when each holds its first lock before the other tries its second. Here each block waits (with a deadline) "
      "until the other holds its first lock, so the bad interleaving happens every run. Of the four conditions for "
      "a deadlock (Coffman et al., 1971: mutual exclusion, hold and wait, no preemption, circular wait) the fix "
      "removes the circular wait: one global order, A before B, for everybody.");
  s.tables.push_back(program_table(m.broken.machine, "program"));
  s.tables.push_back(trace_table(m.broken, "trace", "trace: the two blocks, each as one independent lane"));
  const Describe describe = lock_order_describe();
  add_model_facts(s, m.m, describe, "block");
  add_model_checks(s, m.m, true);
  s.facts.push_back({"model: the fix", verdict(m.fixed), "", m.m.fix_result});
  if (!p.gpu) {
    s.tables.push_back(steps_table(m.m.fix_steps, "fix", "the fix: one global order"));
    s.measurements.push_back(launch_time("the AB / BA launch, until both gave up", std::nullopt, ""));
    return s;
  }
  const LockOrderRun& g = *p.gpu;
  s.tables.push_back(ranges_table(g.records, describe, "block", "gpu_blocks", "this GPU: what each block did", true));
  s.facts.push_back({"this GPU: who was stuck", ranges_text(fold(g.records, describe), "block"), "", ""});
  s.facts.push_back({"first locks both held", g.handshake ? "yes" : "no", "",
                     g.handshake ? "before either block tried its second"
                                 : "a block never saw the other holding its lock: the window was not made"});
  s.measurements.push_back(launch_time("the AB / BA launch, until both gave up", g.ms, "CUDA events"));
  s.checks.push_back(ended_check(g.records, g.timed_out, p.deadline_ms, "block"));
  s.checks.push_back(stuck_agreement(g.records, m.m.records, describe, "block"));
  const bool exact = g.count_a == g.expected && g.count_b == g.expected;
  s.facts.push_back({"fix: both take A, then B", "counts " + std::to_string(g.count_a) + " and " +
                                                     std::to_string(g.count_b) + " of " + std::to_string(g.expected),
                     "", "2 blocks x " + std::to_string(g.iters) + " rounds, each counter guarded by both locks"});
  s.checks.push_back({"the fix (one global order) completes with exact counts", exact,
                      std::to_string(g.count_a) + ", " + std::to_string(g.count_b) + " of " + std::to_string(g.expected)});
  add_health(s, p.health, "lock-order");
  return s;
}

namespace {

// "whole warps", "if / else", "inside a warp", "lanes 0-15": short, for fact names.
std::string case_name(bool syncwarp, const BarrierCase& c) {
  if (syncwarp) return "lanes 0-" + std::to_string(c.present - 1);
  if (c.variant == BarrierVariant::if_else) return "if / else";
  return c.present % kWarpSize == 0 ? "whole warps" : "inside a warp";
}

// The same, in full, for table titles.
std::string case_title(bool syncwarp, const BarrierCase& c) {
  const std::string last = std::to_string(c.present - 1);
  if (syncwarp) return "lanes 0-" + last + " of 32 call __syncwarp(0xffffffff)";
  if (c.variant == BarrierVariant::if_else)
    return "if / else: threads 0-" + last + " and " + std::to_string(c.present) + "-63 at two __syncthreads()";
  return case_name(false, c) + ": threads 0-" + last + " of 64 call __syncthreads()";
}

// What one case did on this GPU, from the child's records.
void add_observed_case(Section& s, const BarrierObservation& o, const BarrierCase& c, bool sw, std::size_t k) {
  const Describe describe = barrier_child_describe(sw, c.variant);
  const std::string noun = sw ? "lane" : "thread";
  const std::string name = case_name(sw, c);
  const auto records = barrier_records(o);
  s.tables.push_back(ranges_table(records, describe, noun, "gpu_threads_" + std::to_string(k),
                                  "this GPU, " + case_title(sw, c) + " (times: arrived or gave up; left, or last seen)",
                                  true));
  s.facts.push_back({"GPU, " + name, ranges_text(fold(records, describe), noun), "", ""});
  if (o.hung)
    s.facts.push_back({"kernel, " + name, std::string("never ended"), "",
                       "the child's watchdog waited " + std::to_string(o.watched_ms) +
                           " ms (deadline + grace), read what the threads had written to host memory, and ended the "
                           "child; its CUDA context went with it"});
  const bool as_specified = fold(records, describe) == fold(c.model.records, describe);
  s.facts.push_back({"as the model reads it, " + name, as_specified ? "yes" : "no", "",
                     as_specified ? "what the barrier as specified would do"
                                  : "not what the specified barrier would do: undefined behaviour, observed"});
}

}  // namespace

Section barrier_section(const BarrierPart& p) {
  Section s;
  const bool sw = p.syncwarp;
  const std::string call = sw ? "__syncwarp(0xffffffff)" : "__syncthreads()";
  const std::string noun = sw ? "lane" : "thread";
  s.id = sw ? "syncwarp_mask" : "divergent_syncthreads";
  if (sw) {
    s.title = "syncwarp-mask: __syncwarp(mask) whose mask names lanes that never arrive";
    s.paragraphs.push_back(
        "Lanes 0-15 call __syncwarp(0xffffffff); lanes 16-31, named in that mask, wait for a flag lanes 0-15 set "
        "after it. The CUDA C++ Programming Guide (\"Synchronization Functions\", __syncwarp): each calling thread "
        "must have its own bit in the mask, and all non-exited threads named in the mask must execute a "
        "corresponding __syncwarp() with the same mask, or the result is undefined. The same holds for the mask of "
        "every *_sync intrinsic.");
  } else {
    s.title = "divergent-syncthreads: __syncthreads() reached by only part of a block";
    s.paragraphs.push_back(
        "Part of a block of 64 calls __syncthreads(); the other threads wait for a flag the first set after it. "
        "Three cases: whole warps (threads 0-31 call it, warp 1 does not); if / else (threads 0-31 call one "
        "__syncthreads(), threads 32-63 another, at once: the common form of this bug); and a split inside a warp "
        "(threads 0-47: warp 1 is divided). The CUDA C++ Programming Guide (\"Synchronization Functions\"): __syncthreads() is "
        "allowed in conditional code only if the condition evaluates identically across the entire thread block, "
        "otherwise the code execution is likely to hang or produce unintended side effects. __syncthreads() is "
        "bar.sync, the aligned barrier: the PTX ISA lets it be used only where every thread executes the same "
        "barrier instruction.");
  }
  s.paragraphs.push_back(
      "A hardware barrier has no deadline, so the kernels run in a child process of this binary. The " + noun +
      "s that do not reach the barrier wait for the flag with a deadline; when it passes they call " +
      std::string(sw ? "__syncwarp(0xffffffff)" : "barrier.sync 0 (the unaligned form, which may be used in "
                                                  "divergent code)") +
      " themselves (the rescue). Every " + noun + " writes what it does to host memory as it goes, and the child "
      "watches each kernel: if one has not ended a little after the deadline, it is hung, and the child reports "
      "what was written and ends itself. What this GPU did is read from those records: observed, not promised.");
  for (std::size_t k = 0; k < p.cases.size(); ++k) {
    const BarrierCase& c = p.cases[k];
    const std::string name = case_name(sw, c);
    s.tables.push_back(steps_table(c.model.steps, "schedule_" + std::to_string(k),
                                   "the model's schedule, " + case_title(sw, c) + ", as the guide specifies the barrier"));
    s.facts.push_back({"model, " + name, ranges_text(fold(c.model.records, barrier_child_describe(sw, c.variant)), noun),
                       "", ""});
    if (!c.model.deadlock) continue;  // if / else: nobody waits for a thread that is not coming
    const std::string cycle = c.model.graph.cycle_text();
    s.facts.push_back({"cycle, " + name, cycle, "", ""});
    s.checks.push_back({"reference model, " + name + ": as specified, the barrier and the flag wait for each other",
                        !cycle.empty(), cycle});
  }
  if (!sw) {
    s.facts.push_back({"compute-sanitizer", synccheck_command_text(), "",
                       "synccheck looks for barriers used wrongly; --sanitize runs it here"});
  }
  if (!p.gpu) {
    s.facts.push_back({"this GPU", std::string("needs a GPU"), "", "what the hardware does here is undefined; only a run says"});
    return s;
  }
  if (!p.child) {
    s.checks.push_back({"the child process ran", false, "it could not be started"});
  } else {
    const ChildOutcome& c = *p.child;
    s.facts.push_back({"child process", std::string(to_string(c.status)), "",
                       (c.status == ChildOutcome::Status::ok ? "" : c.message + "; ") + "ran " +
                           fixed(c.seconds, 3) + " s, CUDA start-up included"});
    const bool ended = c.status == ChildOutcome::Status::ok || c.status == ChildOutcome::Status::cuda_error;
    s.checks.push_back({"the child ended by itself, hung kernel or not, without this process's timeout", ended,
                        ended ? (c.status == ChildOutcome::Status::ok ? "it answered" : "its kernel stopped with " + c.message)
                              : c.message});
    if (c.status == ChildOutcome::Status::ok) {
      for (std::size_t k = 0; k < c.seen.size() && k < p.cases.size(); ++k) add_observed_case(s, c.seen[k], p.cases[k], sw, k);
      if (c.seen.size() < p.cases.size())
        s.notes.push_back("the cases after a hung kernel were not run: the child's CUDA context was lost with it");
      s.facts.push_back({"child's health check",
                         !c.health.ran ? std::string("not run") : c.health.ok ? std::string("passed") : std::string("FAILED"),
                         "", c.health.detail});
    }
  }
  add_health(s, p.health, sw ? "syncwarp-mask" : "divergent-syncthreads");
  if (!sw && p.sanitize) {
    if (!p.sanitizer_missing.empty()) {
      s.facts.push_back({"--sanitize", std::string("compute-sanitizer not found"), "", "looked in " + p.sanitizer_missing});
      s.notes.push_back("--sanitize: compute-sanitizer was not found (looked in " + p.sanitizer_missing +
                        "); install the CUDA toolkit's compute-sanitizer or put it on PATH");
    } else if (p.sanitizer) {
      const SanitizerRun& r = *p.sanitizer;
      s.facts.push_back({"--sanitize: ran", r.command, "", r.result.describe()});
      s.facts.push_back({"--sanitize: synccheck says", r.summary.empty() ? std::string("(no summary line)") : r.summary,
                         "", ""});
      LaneTable t;
      t.id = "synccheck";
      t.title = "compute-sanitizer --tool synccheck, its report";
      t.columns = {{"line", "line", ""}};
      std::istringstream in(r.log);
      int shown = 0, total = 0;
      for (std::string line; std::getline(in, line);) {
        ++total;
        if (shown < 40) {
          t.add_row({line});
          ++shown;
        }
      }
      if (total > shown) t.legend.push_back(std::to_string(total - shown) + " more lines not shown");
      s.tables.push_back(std::move(t));
    }
  }
  return s;
}

}  // namespace cudasync::deadlock_demo
