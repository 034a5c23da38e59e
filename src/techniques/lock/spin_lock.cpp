// Parts lock-class, warp-deadlock and thread-lock: the blog's spin lock as it is written. One thread
// per block around atomicAdd (timed) and around the blog's first critical section; lock() and
// unlock() called by every lane of a warp, which the model runs under lockstep (pre-Volta: the lane
// holding the lock waits for the spinning lanes) and independent scheduling, and this GPU runs as
// Volta and newer do; and the blog's "true thread lock", acquire, work and release inside one
// iteration of while (blocked), so no lane holds the lock while it waits for its warp.
#include <algorithm>

#include "core/kernel_listing.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lock/lesson.hpp"

namespace cudasync::lock {

namespace {

std::string counts(const std::vector<LockRun>& runs) {
  std::string t;
  for (const auto& r : runs) t += (t.empty() ? "" : ", ") + std::to_string(r.count);
  return t;
}

}  // namespace

report::Section lock_class_section(const ClassPart& p, bool gpu_run) {
  const std::string grid = grid_text(p.spec.blocks, 1);
  report::Section s("lock-class", say("class.title", {{"grid", grid}}));
  s.paragraph(say("class.about", {{"iterations", p.spec.iters}}));
  s.paragraph(say("class.about-plain"));
  s.fact("launch", say("class.launch"), say("class.launch-value", {{"grid", grid}, {"iterations", p.spec.iters}}),
         report::Format::plain, say("class.launch-note", {{"handoffs", p.spec.acquisitions()}}));
  s.fact("model-atomic-add", say("class.model-atomic-add"), model_outcome_text(p.model), report::Format::plain,
         say("class.model-atomic-add-note", {{"blocks", p.model.config.blocks}, {"iterations", p.model.config.iters}}));
  s.fact("model-plain", say("class.model-plain"), model_outcome_text(p.model_plain), report::Format::plain,
         say(p.model_plain.stale_reads == 1 ? "class.model-plain-note-one" : "class.model-plain-note",
             {{"loads", p.model_plain.stale_reads}}));
  const std::string title = say("class.handoff-title", {{"grid", grid}});
  if (!gpu_run) {
    s.fact("verdict", say("verdict"), say("class.verdict-model"));
    s.add(report::measured("handoff", title, report::Format::ns, {}, false, say("class.handoff-note")));
    return s;
  }
  s.fact("counts-atomic-add", say("class.counts-atomic-add"), counts(p.gpu), report::Format::plain,
         say("class.expected", {{"count", p.spec.acquisitions()}}));
  if (!p.gpu_plain.empty()) {
    const Lost l = lost_updates(p.gpu_plain);
    s.fact("counts-plain", say("class.counts-plain"), counts(p.gpu_plain), report::Format::plain,
           say("class.counts-plain-note",
               {{"lost", l.lost},
                {"total", l.total},
                {"percent",
                 report::fixed(100.0 * static_cast<double>(l.lost) / static_cast<double>(std::max(l.total, 1LL)), 1)}}));
  }
  s.add(report::measured("handoff", title, report::Format::ns, ns_samples(p.gpu), true, say("class.handoff-note")));
  const Verdict exact = runs_exact(p.gpu);
  s.check("count-exact", say("class.count-exact"), exact.passed, exact.detail);
  if (any_timed_out(p.gpu_plain))
    s.check("plain-within-deadline", say("class.plain-within-deadline"), false, say("gave-up-says-nothing"));
  s.fact("verdict", say("verdict"), say(exact.passed ? "class.verdict-exact" : "class.verdict-missing"));
  return s;
}

report::Section lock_class_part(Run& run) {
  ClassPart p;
  p.spec = RunSpec::of(Variant::book_atomic_add, run.options.blocks.value_or(kClassBlocks), 1,
                       run.options.iterations.value_or(kClassIters));
  p.model = sim(Protocol::book_atomic_add, Regime::independent, 3, 1, 2);
  p.model_plain = sim(Protocol::book, Regime::independent, 3, 1, 2);
  if (run.ctx.gpu) {
    p.gpu = gpu_runs(p.spec, kTimedReps, true);
    RunSpec plain = p.spec;
    plain.variant = Variant::book;
    p.gpu_plain = gpu_runs(plain, kTimedReps, false);
  }
  return lock_class_section(p, run.ctx.gpu);
}

report::Section warp_deadlock_section(const WarpPart& p, bool gpu_run) {
  report::Section s("warp-deadlock", say("warp.title"));
  s.paragraph(say("warp.about"));
  s.paragraph(say("warp.about-volta"));
  const auto checked = [&](Regime r) { return std::find(p.checked.begin(), p.checked.end(), r) != p.checked.end(); };
  const bool lockstep = checked(Regime::lockstep), independent = checked(Regime::independent);
  report::Table t("side-by-side", say("warp.side-by-side"));
  t.column("launch", say("warp.launch")).column("gpu", say("warp.this-gpu"));
  if (gpu_run) t.column("ms", "GPU ms");
  if (lockstep) t.column("lockstep", say("warp.model-lockstep"));
  if (independent) t.column("independent", say("warp.model-independent"));
  // The outcomes as ids beside their words: what an exercise reads.
  if (lockstep) t.column("lockstep-outcome", say("warp.lockstep-outcome-column"));
  if (independent) t.column("independent-outcome", say("warp.independent-outcome-column"));
  bool any_deadlock = false;
  for (const auto& c : p.cases) {
    const std::string g = grid_text(c.spec.blocks, c.spec.threads), id = grid_id(c.spec.blocks, c.spec.threads);
    std::vector<std::pair<std::string, report::Value>> row{{"launch", g + " x " + std::to_string(c.spec.iters)},
                                                           {"gpu", report::NeedsGpu{}}};
    report::RowMark mark = report::RowMark::none;
    if (c.gpu) {
      row[1].second = c.gpu->timed_out()
                          ? say("warp.gpu-stuck", {{"why", stuck_text(*c.gpu)}})
                          : say("warp.gpu-completes", {{"count", count_text(c.gpu->count, c.gpu->expected)}});
      if (!c.gpu->timed_out()) row.emplace_back("ms", c.gpu->ms);
      if (!c.gpu->exact()) mark = report::RowMark::mismatch;
    }
    if (c.lockstep && lockstep) {
      row.emplace_back("lockstep", model_outcome_text(*c.lockstep));
      row.emplace_back("lockstep-outcome", std::string(simt::outcome_id(c.lockstep->outcome)));
    }
    if (c.independent && independent) {
      row.emplace_back("independent", model_outcome_text(*c.independent));
      row.emplace_back("independent-outcome", std::string(simt::outcome_id(c.independent->outcome)));
    }
    t.row(row, mark);
    any_deadlock = any_deadlock || lockstep_deadlocks(c.spec.threads);
    if (c.lockstep && lockstep) {
      const Verdict v = lockstep_verdict(*c.lockstep);
      s.check("model-lockstep-" + id,
              say(lockstep_deadlocks(c.spec.threads) ? "warp.check-lockstep-deadlocks" : "warp.check-lockstep-one-lane",
                  {{"grid", g}}),
              v.passed, v.detail);
    }
    if (c.independent && independent)
      s.check("model-independent-" + id, say("warp.check-independent", {{"grid", g}}), c.independent->exact(),
              model_outcome_text(*c.independent));
    if (c.gpu)
      s.agreement("gpu-agrees-" + id, say("warp.gpu-agrees", {{"grid", g}}),
                  c.gpu->exact() && (!c.independent || c.independent->exact()),
                  c.gpu->timed_out() ? stuck_text(*c.gpu)
                                     : say("judge.problem-count", {{"count", count_text(c.gpu->count, c.gpu->expected)}}));
  }
  t.legend.push_back(say("warp.legend", {{"iterations", p.cases.empty() ? 0 : p.cases.front().spec.iters}}));
  s.add(std::move(t));
  s.add(program_table(Protocol::lock_functions));
  for (const auto& tr : p.traces) {
    s.add(trace_table(tr, trace_id(tr.config.regime),
                      say(tr.config.threads == 1 ? "warp.trace-title-one" : "warp.trace-title",
                          {{"regime", regime_title(tr.config.regime)}, {"lanes", tr.config.threads}}),
                      false));
    if (tr.config.regime == Regime::lockstep && tr.outcome == Outcome::deadlock) {
      s.tables.back().legend.push_back(say("warp.waits-at-legend"));
      s.fact("lockstep-waits", say("warp.lockstep-waits"), tr.holder, report::Format::plain, tr.spinners);
    }
  }
  if (!p.sass_note.empty()) s.note(p.sass_note);
  s.fact("verdict", say("verdict"),
         say(gpu_run ? "warp.verdict-gpu" : any_deadlock ? "warp.verdict-model" : "warp.verdict-one-lane"));
  return s;
}

report::Section warp_deadlock_part(Run& run) {
  WarpPart p;
  p.checked = run.checked();
  const std::vector<int> sizes = run.options.threads ? std::vector<int>{*run.options.threads} : std::vector<int>{32, 128};
  for (int threads : sizes) {
    WarpCase c;
    c.spec = RunSpec::of(Variant::lock_functions, 1, threads, run.options.iterations.value_or(kWarpIters));
    if (run.checks(Regime::lockstep)) c.lockstep = sim(Protocol::lock_functions, Regime::lockstep, 1, threads, 1);
    // The GPU is compared with independent scheduling, whichever scheduler --model picked.
    if (run.checks(Regime::independent) || run.ctx.gpu)
      c.independent = sim(Protocol::lock_functions, Regime::independent, 1, threads, 1);
    if (run.ctx.gpu) c.gpu = gpu_runs(c.spec, 1, false).front();
    p.cases.push_back(std::move(c));
  }
  for (Regime g : run.traced({}))
    p.traces.push_back(sim(Protocol::lock_functions, g, 1, std::min(kTraceLanes, sizes.front()), 1, kTraceRows));
  const auto sass = run.sass("lock_functions_kernel");
  if (!sass.empty())
    p.sass_note = say("warp.sass-note", {{"arch", run.arch}, {"fences", distinct_instructions(sass)}});
  return warp_deadlock_section(p, run.ctx.gpu);
}

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
