// Part warp-spinlock: the CAS lock in one warp under the two schedulers (the model's lockstep SIMT
// stack deadlocks, independent scheduling completes, as this GPU does), and a wait-for cycle between
// lanes that no scheduler can break.
#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_tables.hpp"
#include "techniques/deadlock_demo/deadlock_demo_trace.hpp"

namespace cudasync::deadlock_demo {

namespace {

std::string scheduling_title(simt::Scheduling s) {
  return say(s == simt::Scheduling::lockstep ? "warp.scheduling-lockstep" : "warp.scheduling-independent");
}

// The run's outcome as an id ("deadlocks"), beside its verdict in words.
report::Value run_outcome_id(const ModelRun& r) { return std::string(simt::outcome_id(r.result.outcome)); }

}  // namespace

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
  v.row({{"program", say("warp.program-lock")}, {"lockstep", verdict(m.lock_lockstep)},
         {"independent", verdict(m.lock_independent)}, {"gpu", lock_gpu}, {"program-id", std::string("cas-lock")},
         {"lockstep-outcome", run_outcome_id(m.lock_lockstep)},
         {"independent-outcome", run_outcome_id(m.lock_independent)}});
  v.row({{"program", say("warp.program-ring")}, {"lockstep", verdict(m.ring_lockstep)},
         {"independent", verdict(m.ring_independent)}, {"gpu", ring_gpu}, {"program-id", std::string("ring")},
         {"lockstep-outcome", run_outcome_id(m.ring_lockstep)},
         {"independent-outcome", run_outcome_id(m.ring_independent)}});
  s.add(std::move(v));
  add_waits(s, m.lock_lockstep, "lock-lockstep", say("warp.label-lockstep-lock"));
  add_waits(s, m.ring_independent, "ring", say("warp.label-cycle"));
  const Verdict lock_cycle = run_cycle(m.lock_lockstep), ring_cycle = run_cycle(m.ring_independent);
  s.check("lock-lockstep-deadlocks", say("warp.lock-lockstep-deadlocks"), lock_cycle.passed, lock_cycle.detail);
  s.check("lock-independent-completes", say("warp.lock-independent-completes"),
          m.lock_independent.completed() && m.lock_independent.word("counter") == kWarpSize, verdict(m.lock_independent));
  s.check("ring-deadlocks", say("warp.ring-deadlocks"), ring_cycle.passed, ring_cycle.detail);
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
  const Verdict exact = lock_count_exact(*lock);
  s.agreement("lock-gpu-agrees", say("warp.lock-gpu-agrees"), exact.passed, exact.detail);
  const Describe describe = ring_describe();
  add_gpu_ranges(s, ring->records, describe, "lane", "gpu-ring", say("warp.gpu-ring"), "gpu-ring-stuck",
                 say("warp.gpu-ring-stuck"));
  s.add(launch_time("lock-launch", say("warp.lock-launch-title"), lock->ms, say("gpu.cuda-events")));
  s.add(launch_time("ring-launch", ring_title, ring->ms, say("gpu.cuda-events")));
  const Verdict ended = ended_at_deadline(ring->records, ring->timed_out, run.options.deadline_ms, "lane");
  s.check("ring-ended", say("checks.ended-lane"), ended.passed, ended.detail);
  const Verdict agree = stuck_agreement(ring->records, m.ring_independent.records, describe, "lane");
  s.agreement("ring-gpu-agrees", say("gpu.agrees"), agree.passed, agree.detail);
  add_health(s, gpu_health(), "warp-spinlock");
  return s;
}

}  // namespace cudasync::deadlock_demo
