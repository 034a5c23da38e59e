// Part grid-oversubscribed: a software grid barrier over more blocks than can be resident, and its
// two fixes (a grid sized by the occupancy API; cudaLaunchCooperativeKernel, which refuses).
#include <algorithm>

#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"
#include "techniques/deadlock_demo/deadlock_demo_judge.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_tables.hpp"

namespace cudasync::deadlock_demo {

using report::Format;
using I = std::int64_t;

Grid grid_of(const Run& run, GridKernel kernel) {
  Grid g;
  g.c = run.ctx.gpu ? gpu_coresidency(kernel, run.ctx.device->index) : model_coresidency();
  g.blocks = run.options.blocks.value_or(std::clamp(2 * g.c.limit(), 2, kMaxBlocks));  // half has no slot
  return g;
}

void add_grid_launch(report::Section& s, const Run& run, const Grid& g, const std::string& what) {
  s.fact("launch", say("grid.launch"), say("grid.launch-value", {{"grid", grid_text(g.blocks, kGridThreads)}, {"what", what}}),
         Format::plain, say("grid.launch-note", {{"ms", run.options.deadline_ms}}));
  s.fact("blocks", say("grid.blocks"), I{g.blocks}, Format::count);
  s.fact("resident", say("grid.resident"), I{g.c.limit()}, Format::count, g.c.text());
}

void add_no_slot(report::Section& s, const ScenarioModel& m) {
  const auto late = std::count_if(m.records.begin(), m.records.end(),
                                  [](const Record& r) { return r.state == static_cast<int>(State::late); });
  s.fact("model-no-slot", say("grid.model-no-slot"), I{late}, Format::count, say("grid.model-no-slot-note"));
}

void add_gpu_grid(report::Section& s, const Run& run, const Grid& g, const GridRun& gpu, const ScenarioModel& model,
                  const Describe& describe, const std::string& completes) {
  add_gpu_ranges(s, gpu.records, describe, "block", "gpu-blocks", say("gpu.every-block"), "gpu-stuck",
                 say("gpu.who-was-stuck"));
  if (g.too_many()) {
    const Verdict v = ended_at_deadline(gpu.records, gpu.timed_out, run.options.deadline_ms, "block");
    s.check("ended", say("checks.ended-block"), v.passed, v.detail);
  } else {
    const Verdict v = completed(gpu);
    s.check("completes", completes, v.passed, v.detail);
  }
  const Verdict agree = stuck_agreement(gpu.records, model.records, describe, "block");
  s.agreement("gpu-agrees", say("gpu.agrees"), agree.passed, agree.detail);
}

report::Section grid_part(Run& run) {
  const Grid grid = grid_of(run, GridKernel::counter_barrier);
  const int blocks = grid.blocks;
  const ScenarioModel model = grid_barrier_model(blocks, grid.c);
  report::Section s("grid-oversubscribed", say("grid.title"));
  s.paragraph(say("grid.about"));
  s.paragraph(say("grid.fixes"));
  add_grid_launch(s, run, grid, say("grid.counter-barrier"));
  const Describe describe = barrier_describe(blocks);
  s.add(steps_table(model.steps, "schedule", say("tables.schedule-title")));
  add_model_facts(s, model, describe, "block");
  add_no_slot(s, model);
  add_model_checks(s, model, grid.too_many());
  const std::string launch_title = say("grid.launch-title");
  if (!run.ctx.gpu) {
    s.fact("gpu", say("gpu.this-gpu"), report::NeedsGpu{}, Format::plain, say("grid.gpu-note"));
    s.add(steps_table(model.fix_steps, "fix", say("grid.fixes-title")));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const unsigned long long ns = run.deadline_ns();
  const GridRun g = gpu_grid_barrier(blocks, ns);
  add_gpu_grid(s, run, grid, g, model, describe, say("grid.completes"));
  s.fact("counter", say("grid.counter"), I{g.counter}, Format::count, say("grid.counter-note", {{"blocks", blocks}}));
  s.add(launch_time("launch", launch_title, g.ms, say("grid.launch-time-note")));

  const GridRun fix = gpu_grid_barrier(std::min(grid.c.limit(), kMaxBlocks), ns);
  const Verdict fixed = completed(fix);
  s.fact("fix-occupancy", say("grid.fix-occupancy"), grid_text(fix.blocks, kGridThreads), Format::plain,
         fix.completed ? say("gpu.completed-in", {{"ms", ms_text(fix.ms)}, {"result", fix.result}})
                       : say("grid.a-block-gave-up"));
  s.check("fix-occupancy", say("grid.fix-occupancy-check"), fixed.passed, fixed.detail);
  if (!gpu_cooperative_launch(run.ctx.device->index)) {
    s.note(say("grid.fix-2-not-run"));
  } else {
    const CoopRun coop = gpu_grid_barrier_cooperative(blocks, ns);
    s.fact("fix-cooperative", say("grid.fix-cooperative"),
           say("grid.fix-cooperative-value", {{"grid", grid_text(blocks, kGridThreads)}, {"outcome", cooperative_outcome(coop)}}),
           Format::plain, say("grid.fix-cooperative-note", {{"ms", ms_text(coop.host_ms)}}));
    if (grid.too_many()) {
      const Verdict v = cooperative_refused(coop);
      s.check("fix-cooperative", say("grid.fix-cooperative-refused"), v.passed, v.detail);
    } else {
      const Verdict v = cooperative_completed(coop);
      s.check("fix-cooperative", say("grid.fix-cooperative-completes"), v.passed, v.detail);
    }
  }
  add_health(s, gpu_health(), "grid-oversubscribed");
  return s;
}

}  // namespace cudasync::deadlock_demo
