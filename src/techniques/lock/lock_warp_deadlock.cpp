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
  report::Section s("warp-deadlock", "part 2, warp deadlock: lock() and unlock() called by every lane of a warp");
  s.paragraph(
      "The blog says the class only works as kernel<<<N, 1>>>: with <<<1, 128>>> the lanes of a warp execute in "
      "lockstep, the lane that gets the lock cannot leave lock() until the others leave it too, and they wait for "
      "it. That was true before Volta: a warp had one program counter, and at a divergent branch it ran one side "
      "until both sides met again (the reconvergence point). In the spin loop the lane that got the lock has left "
      "the loop and waits at its exit; the others loop forever, waiting for a lock that lane will never release.");
  s.paragraph(
      "Since Volta (compute capability 7.0) every thread has its own program counter and the scheduler may run "
      "any of them (independent thread scheduling). NVIDIA's Volta whitepaper describes exactly this case: a "
      "thread that waits for a lock held by a thread of its own warp no longer keeps that thread from making "
      "progress (\"starvation-free algorithms\"). CUDA 13 no longer builds for compute_60 (its oldest target is "
      "7.5), so the old behaviour cannot be run; the reference model runs it instead, lane by lane.");
  const auto checked = [&](Regime r) { return std::find(p.checked.begin(), p.checked.end(), r) != p.checked.end(); };
  const bool lockstep = checked(Regime::lockstep), independent = checked(Regime::independent);
  report::Table t("side-by-side", "the same lock() / unlock(): this GPU beside the model's schedulers");
  t.column("launch", "launch").column("gpu", "this GPU");
  if (gpu_run) t.column("ms", "GPU ms");
  if (lockstep) t.column("lockstep", "model, lockstep");
  if (independent) t.column("independent", "model, independent");
  for (const auto& c : p.cases) {
    std::vector<std::pair<std::string, report::Value>> row{
        {"launch", grid_text(c.spec.blocks, c.spec.threads) + " x " + std::to_string(c.spec.iters)},
        {"gpu", report::NeedsGpu{}}};
    report::RowMark mark = report::RowMark::none;
    if (c.gpu) {
      row[1].second = c.gpu->timed_out() ? "stuck: " + stuck_text(*c.gpu)
                                         : "completes: count " + count_text(c.gpu->count, c.gpu->expected);
      if (!c.gpu->timed_out()) row.emplace_back("ms", c.gpu->ms);
      if (!c.gpu->exact()) mark = report::RowMark::mismatch;
    }
    if (c.lockstep && lockstep) row.emplace_back("lockstep", model_outcome_text(*c.lockstep));
    if (c.independent && independent) row.emplace_back("independent", model_outcome_text(*c.independent));
    t.row(row, mark);
  }
  t.legend.push_back("the model runs one acquisition per lane; the GPU " +
                     std::to_string(p.cases.empty() ? 0 : p.cases.front().spec.iters) +
                     " per lane, with a deadline on every wait");
  s.add(std::move(t));
  s.add(program_table(Protocol::lock_functions));
  for (const auto& tr : p.traces) {
    s.add(trace_table(tr, trace_id(tr.config.regime),
                      "trace, " + regime_title(tr.config.regime) + ": " + std::to_string(tr.config.threads) +
                          (tr.config.threads == 1 ? " lane" : " lanes") + " of one warp, one acquisition each",
                      false));
    if (tr.config.regime == Regime::lockstep && tr.outcome == Outcome::deadlock) {
      s.tables.back().legend.push_back("waits at N: the lane is not running; its warp resumes it at pc N");
      s.fact("lockstep-waits", "lockstep: who waits for whom", tr.holder, report::Format::plain, tr.spinners);
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
              "reference model, lockstep: " + g +
                  (lockstep_deadlocks(c.spec.threads) ? " deadlocks" : " completes: one lane cannot deadlock"),
              v.passed, v.detail);
    }
    if (c.independent && independent)
      s.check("model-independent-" + id, "reference model, independent: " + g + " completes with an exact count",
              c.independent->exact(), model_outcome_text(*c.independent));
    if (c.gpu)
      s.agreement("gpu-agrees-" + id, g + " completes with an exact count, as under independent scheduling",
                  c.gpu->exact() && (!c.independent || c.independent->exact()),
                  c.gpu->timed_out() ? stuck_text(*c.gpu) : "count " + count_text(c.gpu->count, c.gpu->expected));
  }
  s.fact("verdict", "verdict",
         gpu_run ? std::string("on this GPU every lane got the lock: the deadlock the blog describes is the pre-Volta one, "
                               "which only the model can still show")
                 : any_deadlock ? std::string("lockstep deadlocks, independent completes; what this GPU does needs a GPU")
                                : std::string("a warp of one lane has no other lane to wait for: it completes under "
                                              "both schedulers; what this GPU does needs a GPU"));
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
    p.sass_note = "lock_functions_kernel in this build's SASS (" + run.arch + "), its fences: " +
                  distinct_instructions(sass) + " (each __threadfence() of lock() and unlock())";
  return warp_deadlock_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock
