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
  report::Section s("producer-before-consumer",
                    "producer-before-consumer: a block waits for a block with a higher index that has no slot");
  s.paragraph(
      "Block b waits for a flag that block b + 1 sets, and the last block sets its flag first: the chain unwinds "
      "from the top (each block adds its value to the one after it, suffix sums). Block 0 thus waits, through the "
      "chain, for the last block. While every block is resident that works. With more blocks than fit, the "
      "lowest indices start first (the hardware's order in practice, not a promise) and spin for blocks that have "
      "no slot: block " + std::to_string(limit - 1) + " waits for block " + std::to_string(limit) +
      ", which cannot start until a spinning block exits.");
  s.paragraph(
      "What is guaranteed: nothing between blocks. The CUDA C++ Programming Guide requires that thread blocks "
      "execute independently: it must be possible to run them in any order, in parallel or in series. It gives no "
      "forward-progress guarantee between blocks, so a block must never wait for a block that may not have "
      "started. Sorensen et al. (OOPSLA 2016) call what GPUs do in practice the occupancy-bound execution model: a "
      "block that has started keeps being scheduled, a block that has not may never start while others wait.");
  s.paragraph(
      "The fix: a dynamic block index. Each block takes a ticket with atomicAdd as it starts, and the block with "
      "ticket t waits only for ticket t - 1. That block took its ticket earlier, so it has started and holds a slot "
      "or has finished; no block ever waits for one that has not started, so the wait-for graph has no edge into "
      "the blocks without a slot. What it still relies on: that a started block keeps being scheduled, which the "
      "occupancy-bound model describes and the programming guide does not promise: observed on the GPUs that "
      "checked this lesson and on those Sorensen et al. tested, not documented.");
  add_grid_launch(s, run, grid, "flag chain");
  const Describe describe = chain_describe();
  s.add(steps_table(model.steps, "schedule", "the model's schedule, step by step"));
  add_model_facts(s, model, describe, "block");
  add_model_checks(s, model, grid.too_many());
  s.add(steps_table(model.fix_steps, "fix", "the fix: a ticket per block"));
  const char* launch_title = "the chain launch, until every block returned";
  if (!run.ctx.gpu) {
    s.fact("gpu", "this GPU", report::NeedsGpu{}, Format::plain, "who was stuck, and the fix run");
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const GridRun g = gpu_chain(blocks, run.deadline_ns(), false);
  add_gpu_grid(s, run, grid, g, model, describe, "the chain completes when every block fits");
  s.add(launch_time("launch", launch_title, g.ms, "CUDA events"));

  const GridRun fix = gpu_chain(blocks, run.deadline_ns(), true);
  const Verdict fixed = completed(fix);
  s.fact("fix-tickets", "fix: tickets", grid_text(fix.blocks, kGridThreads), Format::plain,
         fix.completed ? "completed in " + ms_text(fix.ms) + ": " + fix.result : std::string(kGaveUpAtDeadline));
  s.fact("tickets-in-order", "tickets equal to the block index", I{tickets_in_order(fix.tickets)}, Format::count,
         "of " + std::to_string(fix.blocks) + ": the order in which this GPU started the blocks");
  s.check("fix-completes", "the fix (a ticket per block) completes with a correct result", fixed.passed, fixed.detail);
  add_health(s, gpu_health(), "producer-before-consumer");
  return s;
}

}  // namespace cudasync::deadlock_demo
