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
  return s == simt::Scheduling::lockstep ? "lockstep (one pc per warp: pre-Volta, cc < 7.0)"
                                     : "independent (a pc per lane: Volta and newer)";
}

}  // namespace

report::Section warp_part(Run& run) {
  const WarpModel m = warp_model(run.traces);
  report::Section s("warp-spinlock",
                    "warp-spinlock: a spin lock taken by the lanes of one warp, and a cycle no scheduler can break");
  s.paragraph(
      "The CAS lock of CUDA by Example (App. A), holding the lane's number + 1: while (atomicCAS(&lock, 0, "
      "lane + 1) != 0); ... atomicExch(&lock, 0), taken by all 32 lanes of one warp. Before Volta a warp had one "
      "program counter: at the spin loop's branch the lane that got the lock leaves the loop and waits at its "
      "exit, the reconvergence point, while the warp keeps "
      "running the loop for the other lanes, which wait for the lock that lane holds. The model's lockstep "
      "trace shows the SIMT stack doing exactly that. Since Volta every lane has its own program counter "
      "(independent thread scheduling) and the scheduler also runs the lane holding the lock: the warp finishes. "
      "CUDA 13 builds for compute capability 7.5 and up only, so the lockstep case can only be run by the model.");
  s.paragraph(
      "What still hangs on this GPU: a real wait-for cycle. Lane i sets its flag only after lane i + 1 has set its "
      "own (lane 31 waits for lane 0). Every lane waits for a write that can only come after its own wait ends; "
      "no scheduler can help, independent or not. It is a deadlock of the program, not of the warp: between "
      "blocks it hangs the same way.");
  std::optional<LaneRun> lock, ring;
  if (run.ctx.gpu) {
    lock = gpu_warp_spinlock(kSpinlockIters, run.deadline_ns());
    ring = gpu_lane_ring(run.deadline_ns());
  }
  report::Table v("verdicts", "32 lanes of one warp: the model's two schedulers beside this GPU");
  v.column("program", "program").column("lockstep", "model, lockstep").column("independent", "model, independent");
  v.column("gpu", "this GPU");
  report::Value lock_gpu = report::NeedsGpu{}, ring_gpu = report::NeedsGpu{};
  if (lock)
    lock_gpu = std::string(lock->timed_out ? "stuck: a lane gave up" : "completes") + ", counter " +
               std::to_string(lock->count) + " of " + std::to_string(lock->expected) + " (" +
               std::to_string(lock->iters) + " per lane)";
  if (ring)
    ring_gpu = std::string(ring->timed_out ? "deadlock: every lane gave up at the deadline" : "completes") + ", " +
               std::to_string(ring->count) + " of 32 flags set";
  v.row({{"program", "CAS lock, every lane once"}, {"lockstep", verdict(m.lock_lockstep)},
         {"independent", verdict(m.lock_independent)}, {"gpu", lock_gpu}});
  v.row({{"program", "lane i waits for lane i + 1's flag"}, {"lockstep", verdict(m.ring_lockstep)},
         {"independent", verdict(m.ring_independent)}, {"gpu", ring_gpu}});
  s.add(std::move(v));
  add_waits(s, m.lock_lockstep, "lock-lockstep", "lockstep lock");
  add_waits(s, m.ring_independent, "ring", "cycle");
  const Verdict lock_cycle = run_cycle(m.lock_lockstep), ring_cycle = run_cycle(m.ring_independent);
  s.check("lock-lockstep-deadlocks",
          "reference model: the lock in a lockstep warp deadlocks, with a cycle in its wait-for graph",
          lock_cycle.passed, lock_cycle.detail);
  s.check("lock-independent-completes",
          "reference model: the lock in an independent warp completes with every lane counted",
          m.lock_independent.completed() && m.lock_independent.word("counter") == kWarpSize, verdict(m.lock_independent));
  s.check("ring-deadlocks",
          "reference model: the cycle between lanes, scheduled independently, deadlocks, with a cycle in its "
          "wait-for graph",
          ring_cycle.passed, ring_cycle.detail);
  if (!m.lock_traces.empty()) s.add(program_table(m.lock_traces.front().result.machine, "program"));
  for (const auto& t : m.lock_traces)
    s.add(trace_table(t, std::string("trace-") + simt::to_string(t.result.machine.scheduling),
                      "the lock, trace, " + scheduling_title(t.result.machine.scheduling) + ": 4 lanes"));
  s.add(program_table(m.ring_trace.result.machine, "ring-program"));
  s.add(trace_table(m.ring_trace, "ring-trace", "the cycle, trace, independent: 4 lanes"));
  const char* ring_title = "the cycle's launch, until every lane gave up";
  if (!lock || !ring) {
    s.add(launch_time("ring-launch", ring_title, std::nullopt));
    return s;
  }
  const Verdict exact = lock_count_exact(*lock);
  s.agreement("lock-gpu-agrees", "the lock in one warp completes (independent scheduling), count exact", exact.passed,
              exact.detail);
  const Describe describe = ring_describe();
  add_gpu_ranges(s, ring->records, describe, "lane", "gpu-ring", "this GPU, the cycle: what every lane did",
                 "gpu-ring-stuck", "this GPU, the cycle: who was stuck");
  s.add(launch_time("lock-launch", "the lock's launch, 32 lanes", lock->ms, "CUDA events"));
  s.add(launch_time("ring-launch", ring_title, ring->ms, "CUDA events"));
  const Verdict ended = ended_at_deadline(ring->records, ring->timed_out, run.options.deadline_ms, "lane");
  s.check("ring-ended", "the deadlock ended at its deadline, and every lane said where it was", ended.passed,
          ended.detail);
  const Verdict agree = stuck_agreement(ring->records, m.ring_independent.records, describe, "lane");
  s.agreement("ring-gpu-agrees", "who was stuck, and on what", agree.passed, agree.detail);
  add_health(s, gpu_health(), "warp-spinlock");
  return s;
}

}  // namespace cudasync::deadlock_demo
