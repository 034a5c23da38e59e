// Part producer-before-consumer: block b waits for block b + 1, which may have no slot; the fix, a
// ticket per block in the order blocks start.
#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"
#include "techniques/deadlock_demo/deadlock_demo_judge.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_tables.hpp"

namespace cudasync::deadlock_demo {

using report::Format;
using I = std::int64_t;

report::Section chain_part(Run& run) {
  const Grid grid = grid_of(run, GridKernel::chain);
  const int blocks = grid.blocks, limit = grid.c.limit();
  const ScenarioModel model = chain_model(blocks, grid.c);
  report::Section s("producer-before-consumer", say("chain.title"));
  s.paragraph(say("chain.about", {{"last", limit - 1}, {"limit", limit}}));
  s.paragraph(say("chain.guaranteed"));
  s.paragraph(say("chain.fix-about"));
  add_grid_launch(s, run, grid, say("chain.flag-chain"));
  const Describe describe = chain_describe();
  s.add(steps_table(model.steps, "schedule", say("tables.schedule-title")));
  add_model_facts(s, model, describe, "block");
  add_no_slot(s, model);
  add_model_checks(s, model, grid.too_many());
  s.add(steps_table(model.fix_steps, "fix", say("chain.fix-title")));
  const std::string launch_title = say("chain.launch-title");
  if (!run.ctx.gpu) {
    s.fact("gpu", say("gpu.this-gpu"), report::NeedsGpu{}, Format::plain, say("chain.gpu-note"));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const GridRun g = gpu_chain(blocks, run.deadline_ns(), false);
  add_gpu_grid(s, run, grid, g, model, describe, say("chain.completes"));
  s.add(launch_time("launch", launch_title, g.ms, say("gpu.cuda-events")));

  const GridRun fix = gpu_chain(blocks, run.deadline_ns(), true);
  const Verdict fixed = completed(fix);
  s.fact("fix-tickets", say("chain.fix-tickets"), grid_text(fix.blocks, kGridThreads), Format::plain,
         fix.completed ? say("gpu.completed-in", {{"ms", ms_text(fix.ms)}, {"result", fix.result}})
                       : say(kGaveUpAtDeadline));
  s.fact("tickets-in-order", say("chain.tickets-in-order"), I{tickets_in_order(fix.tickets)}, Format::count,
         say("chain.tickets-in-order-note", {{"blocks", fix.blocks}}));
  s.check("fix-completes", say("chain.fix-completes"), fixed.passed, fixed.detail);
  add_health(s, gpu_health(), "producer-before-consumer");
  return s;
}

}  // namespace cudasync::deadlock_demo
