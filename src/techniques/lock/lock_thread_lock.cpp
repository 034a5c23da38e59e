// Part thread-lock: the blog's "true thread lock", acquire, work and release inside one iteration of
// while (blocked): no lane holds the lock while it waits for its warp, so even lockstep completes.
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

report::Section thread_lock_section(const ThreadLockPart& p, bool gpu_run) {
  const std::string grid = grid_text(p.spec.blocks, p.spec.threads);
  report::Section s("thread-lock",
                    "part 7, the \"true thread lock\": acquire, work and release in one loop iteration, " + grid);
  s.paragraph(
      "The blog's way out: no lock() function; inside while (blocked) each thread tries atomicCAS once, and the "
      "thread that gets the lock does its work (atomicAdd, __threadfence) and releases it in the same iteration. "
      "No lane ever holds the lock while it waits for the rest of its warp, so even a lockstep warp makes "
      "progress: the model shows it. On this GPU it runs as " +
      grid + ", every thread acquiring " + std::to_string(p.spec.iters) + " times.");
  std::string value, note;
  if (p.lockstep) value = "lockstep: " + model_outcome_text(*p.lockstep);
  if (p.independent) (value.empty() ? value : note) = "independent: " + model_outcome_text(*p.independent);
  s.fact("model-one-warp", "reference model, one warp of 32", value, report::Format::plain, note);
  if (p.lockstep)
    s.check("model-lockstep", "reference model, lockstep: the inline loop completes", p.lockstep->exact(),
            model_outcome_text(*p.lockstep));
  if (p.independent)
    s.check("model-independent", "reference model, independent: the inline loop completes", p.independent->exact(),
            model_outcome_text(*p.independent));
  s.add(program_table(Protocol::thread_lock));
  for (const auto& tr : p.traces)
    s.add(trace_table(tr, trace_id(tr.config.regime),
                      "trace, " + regime_title(tr.config.regime) + ": " + std::to_string(tr.config.threads) +
                          (tr.config.threads == 1 ? " lane" : " lanes") + ", one acquisition each",
                      false));
  s.add(report::measured("acquisition", "time per acquisition, " + grid, report::Format::ns, ns_samples(p.gpu), gpu_run,
                         "launch time / acquisitions, CUDA events"));
  if (gpu_run) {
    const Verdict v = runs_exact(p.gpu);
    s.agreement("gpu-agrees", "every count exact, no thread stuck", v.passed, v.detail);
    s.fact("verdict", "verdict",
           "no deadlock and an exact count; but one lock for " + std::to_string(p.spec.threads_total()) +
               " threads serializes them all: --bench shows what a lock costs");
  } else {
    s.fact("verdict", "verdict",
           std::string("completes under both schedulers in the model; counts and times need a GPU"));
  }
  return s;
}

report::Section thread_lock_part(Run& run) {
  ThreadLockPart p;
  p.spec = RunSpec::of(Variant::thread_lock, run.options.blocks.value_or(kThreadLockBlocks),
                       run.options.threads.value_or(kThreadLockThreads),
                       run.options.iterations.value_or(kThreadLockIters));
  if (run.checks(Regime::lockstep)) p.lockstep = sim(Protocol::thread_lock, Regime::lockstep, 1, 32, 1);
  if (run.checks(Regime::independent)) p.independent = sim(Protocol::thread_lock, Regime::independent, 1, 32, 1);
  for (Regime g : run.traced({Regime::lockstep}))
    p.traces.push_back(sim(Protocol::thread_lock, g, 1, std::min(kTraceLanes, p.spec.threads), 1, kTraceRows));
  if (run.ctx.gpu) p.gpu = gpu_runs(p.spec, kTimedReps, true);
  return thread_lock_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock
