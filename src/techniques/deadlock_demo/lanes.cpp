// The lane-level parts, run on core's SIMT step machine: warp-spinlock (the CAS lock in one warp
// under the two schedulers, and a wait-for cycle between lanes that no scheduler can break) and
// lock-order (two blocks take locks A and B in opposite orders; the fix is one global order): their
// programs, the model's runs and traces in this lesson's words, and their sections.
#include "techniques/deadlock_demo/lesson.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

namespace cudasync::deadlock_demo {

using simt::At;
using simt::Word;
using report::Table;
using report::Value;
using I = std::int64_t;
using report::Format;

namespace {

enum Reg { r };

// lock-order: two blocks of one thread (independent). Broken: block b takes its first lock (A for
// 0, B for 1), says so, waits until the other holds its first, then takes its second. Fixed: both
// take A then B, `iters` times, adding one to a counter under both.
simt::Machine lock_order_machine(bool fixed, int iters) {
  enum Mem { lock_a, lock_b, holding, count = 4 };
  simt::Machine m;
  m.scheduling = simt::Scheduling::independent;  // blocks never share a program counter
  m.blocks = 2;
  m.iters = iters;
  // A word's id is what a record's `on` says for it: a lock's number, a flag's owner.
  m.words = {{"lock A", Word::Kind::lock, false, false, -1, 0},
             {"lock B", Word::Kind::lock, false, false, -1, 1},
             {"holding[0]", Word::Kind::flag, false, false, 0, 0},
             {"holding[1]", Word::Kind::flag, false, false, 1, 1},
             {"count"}};
  if (fixed) {
    m.name = say("program.lock-order-fixed");
    m.code = {
        simt::cas(lock_a, simt::lane_plus(1), r, "while (atomicCAS(&A, 0, b + 1) != 0)").waiting(),  // 0
        simt::branch(simt::reg_ne(r, 0), 0, 2, "  ;   // spin on A"),                                // 1
        simt::cas(lock_b, simt::lane_plus(1), r, "while (atomicCAS(&B, 0, b + 1) != 0)").waiting(),  // 2
        simt::branch(simt::reg_ne(r, 0), 2, 4, "  ;   // spin on B"),                                // 3
        simt::atomic_add(count, simt::value(1), -1, "count += 1;   // under both locks"),            // 4
        simt::exch(lock_b, simt::value(0), "atomicExch(&B, 0);"),                                   // 5
        simt::exch(lock_a, simt::value(0), "atomicExch(&A, 0);"),                                   // 6
        simt::loop(0, 8, "if (++i < iters) goto top;"),                                             // 7
        simt::exit("return;"),                                                                      // 8
    };
    return m;
  }
  m.name = say("program.lock-order");
  m.code = {
      simt::cas(lock_a, simt::lane_plus(1), r, "while (atomicCAS(first, 0, b + 1) != 0)   // A for block 0, B for block 1")
          .addressed(At::self)
          .waiting(),                                                                                      // 0
      simt::branch(simt::reg_ne(r, 0), 0, 2, "  ;"),                                                       // 1
      simt::store(holding, simt::value(1), "holding[b] = 1;").addressed(At::self),                         // 2
      simt::load(holding, r, "while (holding[other] == 0)   // the window, made certain").addressed(At::next).waiting(),  // 3
      simt::branch(simt::reg_eq(r, 0), 3, 5, "  ;"),                                                       // 4
      simt::cas(lock_a, simt::lane_plus(1), r, "while (atomicCAS(second, 0, b + 1) != 0)   // B for block 0, A for block 1")
          .addressed(At::next)
          .waiting(),                                                                                      // 5
      simt::branch(simt::reg_ne(r, 0), 5, 7, "  ;"),                                                       // 6
      simt::atomic_add(count, simt::value(1), -1, "count += 1;"),                                          // 7
      simt::exch(lock_a, simt::value(0), "atomicExch(second, 0);").addressed(At::next),                    // 8
      simt::exch(lock_a, simt::value(0), "atomicExch(first, 0);").addressed(At::self),                     // 9
      simt::exit("return;"),                                                                               // 10
  };
  return m;
}

constexpr int kTraceLanes = 4;
constexpr int kTraceRows = 12;

std::vector<int> bits(std::uint32_t mask) {
  std::vector<int> out;
  for (int k = 0; k < 32; ++k)
    if ((mask >> k) & 1u) out.push_back(k);
  return out;
}

// The program: pc, code; and the trace: one row per step, a column per traced lane ("lane-0" ...),
// memory, note.
Table program_table(const simt::Machine& m, const std::string& id) {
  Table t(id, say("trace.program-title", {{"name", m.name}}));
  t.column("pc", "pc").column("code", say("trace.code"));
  for (std::size_t i = 0; i < m.code.size(); ++i) t.row({{"pc", static_cast<I>(i)}, {"code", m.code[i].code}});
  return t;
}

Table trace_table(const ModelRun& r, const std::string& id, const std::string& title) {
  const simt::Result& res = r.result;
  Table t(id, title);
  t.column("step", say("column.step"));
  for (int lane : res.traced) t.column(r.noun + "-" + number_text(lane), span_text(lane, lane, r.noun));
  t.column("memory", say("trace.memory")).column("note", say("trace.note"));
  for (const auto& row : res.trace) {
    std::vector<std::pair<std::string, Value>> cells{{"step", static_cast<I>(row.step)}};
    for (std::size_t k = 0; k < row.lanes.size(); ++k) {
      const std::string text = event_text(r, row.lanes[k]);
      cells.emplace_back(r.noun + "-" + number_text(res.traced[k]), text.empty() ? Value{report::Undefined{}} : Value{text});
    }
    cells.emplace_back("memory", memory_text(r, row.memory));
    cells.emplace_back("note", row_note(r, row));
    t.row(cells);
  }
  std::vector<std::string> lanes;
  for (int lane : res.traced) lanes.push_back(r.noun + "-" + number_text(lane));
  t.picture = report::grid_picture("step", lanes);  // --html draws it
  if (res.rows_not_shown > 0)
    t.legend.push_back(say("trace.more-steps", {{"count", res.rows_not_shown}, {"verdict", verdict(r)}}));
  if (res.machine.scheduling == simt::Scheduling::lockstep) t.legend.push_back(say("trace.waits-at-legend"));
  return t;
}

// The run's wait-for graph as facts: "<id>-waits-1" ..., "<id>-cycle", "<id>-cycle-nodes" (titles
// "<label>: ...").
void add_waits(report::Section& s, const ModelRun& r, const std::string& id, const std::string& label) {
  for (std::size_t i = 0; i < r.waits.size(); ++i)
    s.fact(id + "-waits-" + std::to_string(i + 1), say("facts.who-waits", {{"label", label}}), r.waits[i]);
  const std::string cycle = r.graph.cycle_text();
  if (cycle.empty()) return;
  s.fact(id + "-cycle", say("facts.wait-for-cycle", {{"label", label}}), cycle);
  s.fact(id + "-cycle-nodes", say("facts.cycle-nodes", {{"label", label}}),
         static_cast<std::int64_t>(r.graph.find_cycle().size()), report::Format::count);
}

// A run that must deadlock did, with a cycle in its wait-for graph.
Verdict run_cycle(const ModelRun& r) {
  const std::string cycle = r.graph.cycle_text();
  return {r.deadlock() && !cycle.empty(), r.deadlock() ? (cycle.empty() ? say("judge.no-cycle") : cycle) : verdict(r)};
}

std::string scheduling_title(simt::Scheduling s) {
  return say(s == simt::Scheduling::lockstep ? "warp.scheduling-lockstep" : "warp.scheduling-independent");
}

// The run's outcome as an id ("deadlocks"), beside its verdict in words.
report::Value run_outcome_id(const ModelRun& r) { return std::string(simt::outcome_id(r.result.outcome)); }

}  // namespace

simt::Machine spinlock_machine(simt::Scheduling s, int lanes) {
  enum Mem { lock, counter };
  simt::Machine m;
  m.name = say("program.spinlock");
  m.scheduling = s;
  m.threads = lanes;
  m.words = {{"lock", Word::Kind::lock}, {"counter"}};
  m.code = {
      simt::cas(lock, simt::lane_plus(1), r, "while (atomicCAS(&lock, 0, lane + 1) != 0)").waiting(),  // 0
      simt::branch(simt::reg_ne(r, 0), 0, 2, "  ;   // spin: try again"),                              // 1
      simt::atomic_add(counter, simt::value(1), -1, "counter += 1;   // the critical section"),         // 2
      simt::exch(lock, simt::value(0), "atomicExch(&lock, 0);"),                                       // 3
      simt::exit("return;"),                                                                           // 4
  };
  return m;
}

simt::Machine ring_machine(simt::Scheduling s, int lanes) {
  simt::Machine m;
  m.name = say("program.ring");
  m.scheduling = s;
  m.threads = lanes;
  for (int l = 0; l < lanes; ++l) m.words.push_back({"flag[" + std::to_string(l) + "]", Word::Kind::flag, false, false, l, l});
  m.code = {
      simt::load(0, r, "while (flag[(lane + 1) % 32] == 0)").addressed(At::next).waiting(),  // 0
      simt::branch(simt::reg_eq(r, 0), 0, 2, "  ;   // spin: the next lane has not set its flag"),  // 1
      simt::store(0, simt::value(1), "flag[lane] = 1;").addressed(At::self),                  // 2
      simt::exit("return;"),                                                                  // 3
  };
  return m;
}

// ---- warp-spinlock --------------------------------------------------------------------------------

Describe ring_describe() {
  return describe_as(say("state.finished"), [](const Record& r) {
    return parked_or(r, say("describe.spun-on-next-lane", {{"seen", r.seen}}));
  });
}

WarpModel warp_model(const std::vector<simt::Scheduling>& traces) {
  using simt::Scheduling;
  WarpModel w;
  w.lock_lockstep = run_model(spinlock_machine(Scheduling::lockstep, kWarpSize));
  w.lock_independent = run_model(spinlock_machine(Scheduling::independent, kWarpSize));
  w.ring_lockstep = run_model(ring_machine(Scheduling::lockstep, kWarpSize));
  w.ring_independent = run_model(ring_machine(Scheduling::independent, kWarpSize));
  for (Scheduling s : traces) w.lock_traces.push_back(run_model(spinlock_machine(s, kTraceLanes), kTraceLanes, kTraceRows));
  w.ring_trace = run_model(ring_machine(Scheduling::independent, kTraceLanes), kTraceLanes, kTraceRows);
  return w;
}

// ---- lock-order ------------------------------------------------------------------------------------

Describe lock_order_describe() {
  return describe_as(say("state.finished"), [](const Record& r) {
    return say("describe.gave-up-on-lock-ab", {{"lock", r.on == 0 ? "A" : "B"}, {"holder", r.seen - 1}});
  });
}

LockOrderModel lock_order_model() {
  LockOrderModel lo;
  lo.broken = run_model(lock_order_machine(false, 1), 2, 40);
  lo.fixed = run_model(lock_order_machine(true, 2), 2, 40);
  ScenarioModel& m = lo.m;
  m.deadlock = lo.broken.deadlock();
  m.graph = lo.broken.graph;
  m.waits = lo.broken.waits;
  m.records = lo.broken.records;
  const std::string block0 = blocks_text(0, 0), block1 = blocks_text(1, 1);
  m.steps = {
      {block0, say("lock-model.takes-a")},
      {say("lock-model.both"), say("lock-model.both-what")},
      {block0, say("lock-model.tries-b")},
      {block1, say("lock-model.tries-a")},
      {say("model.deadlock"), say("lock-model.deadlock")},
  };
  m.fix_steps = {
      {say("lock-model.fix-order"), say("lock-model.fix-order-what")},
      {block0, say("lock-model.fix-block-0")},
      {block1, say("lock-model.fix-block-1")},
  };
  m.fix_completes = lo.fixed.completed();
  m.fix_result = say("lock-model.fix-result", {{"count", lo.fixed.word("count")}});
  return lo;
}

std::string verdict(const ModelRun& r) {
  const simt::Result& res = r.result;
  if (res.completed()) {
    const long long count = res.word("counter");
    if (count < 0) return say("verdict.completes", {{"steps", res.steps}});
    return say("verdict.completes-counter", {{"steps", res.steps}, {"count", count}, {"lanes", res.machine.lanes()}});
  }
  if (res.deadlock())
    return res.repeat_from == 0 ? say("verdict.deadlock-start", {{"steps", res.steps}})
                                : say("verdict.deadlock", {{"steps", res.steps}, {"from", res.repeat_from}});
  return say("verdict.undecided", {{"steps", res.steps}});
}

std::string event_text(const ModelRun& r, const simt::Event& e) {
  switch (e.kind) {
    case simt::Event::Kind::exited: return say("event.exited");
    case simt::Event::Kind::parked: return say("event.waits-at", {{"pc", e.pc}});
    case simt::Event::Kind::at_sync: return say("event.waits-at-syncwarp");
    case simt::Event::Kind::ran: break;
  }
  const simt::Machine& m = r.result.machine;
  const simt::Instr& in = m.code[static_cast<std::size_t>(e.pc)];
  const std::string word = e.word >= 0 ? m.words[static_cast<std::size_t>(e.word)].name : "";
  switch (in.op) {
    case simt::Op::cas:
      return e.read == 0 ? say("event.cas-takes", {{"word", word}})
                         : say("event.cas-held", {{"word", word}, {"read", e.read}, {"holder", span_text(static_cast<int>(e.read - 1), static_cast<int>(e.read - 1), r.noun)}});
    case simt::Op::load: return say("event.reads", {{"word", word}, {"read", e.read}});
    case simt::Op::store:
    case simt::Op::add: return word + " = " + number_text(e.wrote);
    case simt::Op::exch: return e.wrote == 0 ? say("event.releases", {{"word", word}}) : word + " = " + number_text(e.wrote);
    case simt::Op::loop: return say(e.taken ? "event.next-round" : "event.done");
    case simt::Op::branch:
      if (e.taken) return say(in.target <= e.pc ? "event.spins" : "event.jumps");
      return say(in.target <= e.pc ? "event.leaves-loop" : "event.goes-on");
    case simt::Op::exit: return say("event.exits");
    default: return e.text;
  }
}

std::string memory_text(const ModelRun& r, const std::vector<long long>& memory) {
  const simt::Machine& m = r.result.machine;
  const auto traced = r.result.traced.size();
  std::map<std::string, std::vector<long long>> families;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < m.words.size() && i < memory.size(); ++i) {
    const std::string& name = m.words[i].name;
    const auto sp = name.find('[');
    const std::string fam = sp == std::string::npos ? name : name.substr(0, sp);
    if (!families.count(fam)) order.push_back(fam);
    families[fam].push_back(memory[i]);
  }
  std::string s;
  for (const auto& fam : order) {
    const auto& v = families[fam];
    std::string item = fam + " ";
    const std::size_t shown = v.size() == 1 ? 1 : std::min(v.size(), traced);
    for (std::size_t i = 0; i < shown; ++i) item += (i ? "," : "") + number_text(v[i]);
    if (shown < v.size()) item += ",...";
    s += (s.empty() ? "" : ", ") + item;
  }
  return s;
}

std::string row_note(const ModelRun& r, const simt::Row& row) {
  std::string note;
  for (const simt::Split& sp : row.splits)
    note += (note.empty() ? "" : say("list.separator")) + say("note.split", {{"taken", lanes_text(r.noun, bits(sp.taken))},
                                                            {"target", sp.target},
                                                            {"fall", lanes_text(r.noun, bits(sp.fall))},
                                                            {"next", sp.next},
                                                            {"reconverge", sp.reconverge}});
  if (row.repeats >= 0)
    note += (note.empty() ? std::string() : say("list.separator")) +
            (row.repeats == 0 ? say("note.repeats-start") : say("note.repeats", {{"step", row.repeats}}));
  if (row.stuck) note += (note.empty() ? std::string() : say("list.separator")) + say("note.nobody-moves");
  return note;
}

// Part warp-spinlock: the CAS lock in one warp under the two schedulers (the model's lockstep SIMT
// stack deadlocks, independent scheduling completes, as this GPU does), and a wait-for cycle between
// lanes that no scheduler can break.

report::Section warp_part(Run& run) {
  const WarpModel m = warp_model(run.traces);
  report::Section s("warp-spinlock", say("warp.title"));
  s.paragraph(say("warp.about"));
  s.paragraph(say("warp.cycle-about"));
  std::optional<LaneRun> lock, ring;
  if (run.ctx.gpu) {
    lock = gpu_warp_spinlock(kSpinlockIters, run.deadline_ns());
    ring = gpu_lane_ring(run.deadline_ns());
  }
  report::Table v("verdicts", say("warp.verdicts-title"));
  v.column("program", say("warp.program")).column("lockstep", say("warp.model-lockstep"));
  v.column("independent", say("warp.model-independent"));
  v.column("gpu", say("gpu.this-gpu"));
  // The program and the model's outcomes as ids beside their words: what an exercise reads.
  v.column("program-id", say("warp.id-column")).column("lockstep-outcome", say("warp.lockstep-outcome"));
  v.column("independent-outcome", say("warp.independent-outcome"));
  report::Value lock_gpu = report::NeedsGpu{}, ring_gpu = report::NeedsGpu{};
  if (lock)
    lock_gpu = say(lock->timed_out ? "warp.lock-gpu-stuck" : "warp.lock-gpu-completes",
                   {{"count", lock->count}, {"expected", lock->expected}, {"iters", lock->iters}});
  if (ring)
    ring_gpu = say(ring->timed_out ? "warp.ring-gpu-deadlock" : "warp.ring-gpu-completes", {{"count", ring->count}});
  const auto row = [&](const char* program, const char* id, const ModelRun& lockstep, const ModelRun& independent,
                       const report::Value& gpu) {
    v.row({{"program", say(program)}, {"lockstep", verdict(lockstep)}, {"independent", verdict(independent)},
           {"gpu", gpu}, {"program-id", std::string(id)}, {"lockstep-outcome", run_outcome_id(lockstep)},
           {"independent-outcome", run_outcome_id(independent)}});
  };
  row("warp.program-lock", "cas-lock", m.lock_lockstep, m.lock_independent, lock_gpu);
  row("warp.program-ring", "ring", m.ring_lockstep, m.ring_independent, ring_gpu);
  s.add(std::move(v));
  add_waits(s, m.lock_lockstep, "lock-lockstep", say("warp.label-lockstep-lock"));
  add_waits(s, m.ring_independent, "ring", say("warp.label-cycle"));
  s.check("lock-lockstep-deadlocks", say("warp.lock-lockstep-deadlocks"), run_cycle(m.lock_lockstep));
  s.check("lock-independent-completes", say("warp.lock-independent-completes"),
          m.lock_independent.completed() && m.lock_independent.word("counter") == kWarpSize, verdict(m.lock_independent));
  s.check("ring-deadlocks", say("warp.ring-deadlocks"), run_cycle(m.ring_independent));
  if (!m.lock_traces.empty()) s.add(program_table(m.lock_traces.front().result.machine, "program"));
  for (const auto& t : m.lock_traces)
    s.add(trace_table(t, std::string("trace-") + simt::to_string(t.result.machine.scheduling),
                      say("warp.lock-trace-title", {{"scheduling", scheduling_title(t.result.machine.scheduling)}})));
  s.add(program_table(m.ring_trace.result.machine, "ring-program"));
  s.add(trace_table(m.ring_trace, "ring-trace", say("warp.ring-trace-title")));
  const std::string ring_title = say("warp.ring-launch-title");
  if (!lock || !ring) {
    s.add(launch_time("ring-launch", ring_title, std::nullopt));
    return s;
  }
  s.agreement("lock-gpu-agrees", say("warp.lock-gpu-agrees"), lock_count_exact(*lock));
  const Describe describe = ring_describe();
  add_gpu_ranges(s, ring->records, describe, "lane", "gpu-ring", say("warp.gpu-ring"), "gpu-ring-stuck",
                 say("warp.gpu-ring-stuck"));
  s.add(launch_time("lock-launch", say("warp.lock-launch-title"), lock->ms, say("gpu.cuda-events")));
  s.add(launch_time("ring-launch", ring_title, ring->ms, say("gpu.cuda-events")));
  s.check("ring-ended", say("checks.ended-lane"),
          ended_at_deadline(ring->records, ring->timed_out, run.options.deadline_ms, "lane"));
  s.agreement("ring-gpu-agrees", say("gpu.agrees"),
              stuck_agreement(ring->records, m.ring_independent.records, describe, "lane"));
  add_health(s, gpu_health(), "warp-spinlock");
  return s;
}

// Part lock-order: two blocks take locks A and B in opposite orders (AB / BA), with the window
// between them made certain; the fix is one global order.

report::Section lock_order_part(Run& run) {
  const LockOrderModel m = lock_order_model();
  report::Section s("lock-order", say("lock-order.title"));
  s.paragraph(say("lock-order.about"));
  s.add(program_table(m.broken.result.machine, "program"));
  s.add(trace_table(m.broken, "trace", say("lock-order.trace-title")));
  const Describe describe = lock_order_describe();
  add_model_facts(s, m.m, describe, "block");
  add_model_checks(s, m.m, true);
  s.fact("model-fix", say("lock-order.model-fix"), verdict(m.fixed), Format::plain, m.m.fix_result);
  const std::string launch_title = say("lock-order.launch-title");
  if (!run.ctx.gpu) {
    s.add(steps_table(m.m.fix_steps, "fix", say("lock-order.fix-title")));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const LockOrderRun g = gpu_lock_order(run.deadline_ns(), kLockOrderIters);
  add_gpu_ranges(s, g.records, describe, "block", "gpu-blocks", say("lock-order.gpu-blocks"), "gpu-stuck",
                 say("gpu.who-was-stuck"));
  s.fact("handshake", say("lock-order.handshake"), g.handshake, Format::plain,
         say(g.handshake ? "lock-order.handshake-made" : "lock-order.handshake-missed"));
  s.add(launch_time("launch", launch_title, g.ms, say("gpu.cuda-events")));
  s.check("ended", say("checks.ended-block"),
          ended_at_deadline(g.records, g.timed_out, run.options.deadline_ms, "block"));
  s.agreement("gpu-agrees", say("gpu.agrees"), stuck_agreement(g.records, m.m.records, describe, "block"));
  const std::string rounds = say("lock-order.rounds", {{"expected", g.expected}, {"iters", g.iters}});
  s.fact("fix-count-a", say("lock-order.fix-count-a"), I{g.count_a}, Format::count, rounds);
  s.fact("fix-count-b", say("lock-order.fix-count-b"), I{g.count_b}, Format::count, rounds);
  s.check("fix-exact", say("lock-order.fix-exact"), fix_counts_exact(g));
  add_health(s, gpu_health(), "lock-order");
  return s;
}

}  // namespace cudasync::deadlock_demo
