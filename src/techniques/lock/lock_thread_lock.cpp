// Part thread-lock: the blog's "true thread lock", acquire, work and release inside one iteration of
// while (blocked): no lane holds the lock while it waits for its warp, so even lockstep completes.
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

report::Section thread_lock_section(const ThreadLockPart& p, bool gpu_run) {
  const std::string grid = grid_text(p.spec.blocks, p.spec.threads);
  report::Section s("thread-lock", say("thread.title", {{"grid", grid}}));
  s.paragraph(say("thread.about", {{"grid", grid}, {"iterations", p.spec.iters}}));
  std::string value, note;
  if (p.lockstep) value = say("thread.model-lockstep", {{"outcome", model_outcome_text(*p.lockstep)}});
  if (p.independent)
    (value.empty() ? value : note) = say("thread.model-independent", {{"outcome", model_outcome_text(*p.independent)}});
  s.fact("model-one-warp", say("thread.model-one-warp"), value, report::Format::plain, note);
  if (p.lockstep)
    s.check("model-lockstep", say("thread.check-lockstep"), p.lockstep->exact(), model_outcome_text(*p.lockstep));
  if (p.independent)
    s.check("model-independent", say("thread.check-independent"), p.independent->exact(),
            model_outcome_text(*p.independent));
  s.add(program_table(Protocol::thread_lock));
  for (const auto& tr : p.traces)
    s.add(trace_table(tr, trace_id(tr.config.regime),
                      say(tr.config.threads == 1 ? "thread.trace-title-one" : "thread.trace-title",
                          {{"regime", regime_title(tr.config.regime)}, {"lanes", tr.config.threads}}),
                      false));
  s.add(report::measured("acquisition", say("thread.acquisition-title", {{"grid", grid}}), report::Format::ns,
                         ns_samples(p.gpu), gpu_run, say("thread.acquisition-note")));
  if (gpu_run) {
    const Verdict v = runs_exact(p.gpu);
    s.agreement("gpu-agrees", say("thread.gpu-agrees"), v.passed, v.detail);
    s.fact("verdict", say("verdict"), say("thread.verdict-gpu", {{"threads", p.spec.threads_total()}}));
  } else {
    s.fact("verdict", say("verdict"), say("thread.verdict-model"));
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
