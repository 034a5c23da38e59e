// Part warp-deadlock: lock() and unlock() called by every lane of a warp. The model runs it under
// lockstep (pre-Volta: the lane holding the lock waits for the spinning lanes) and independent
// scheduling; this GPU runs it as Volta and newer do.
#include <algorithm>

#include "core/kernel_listing.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

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
  for (const auto& c : p.cases) {
    std::vector<std::pair<std::string, report::Value>> row{
        {"launch", grid_text(c.spec.blocks, c.spec.threads) + " x " + std::to_string(c.spec.iters)},
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
  bool any_deadlock = false;
  for (const auto& c : p.cases) {
    const std::string g = grid_text(c.spec.blocks, c.spec.threads), id = grid_id(c.spec.blocks, c.spec.threads);
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

}  // namespace cudasync::lock
