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
  s.fact("launch", "launch", grid_text(g.blocks, kGridThreads) + ", " + what, Format::plain,
         "deadline " + std::to_string(run.options.deadline_ms) + " ms, shared by the grid");
  s.fact("resident", "resident at once", I{g.c.limit()}, Format::count, g.c.text());
}

void add_gpu_grid(report::Section& s, const Run& run, const Grid& g, const GridRun& gpu, const ScenarioModel& model,
                  const Describe& describe, const std::string& completes) {
  add_gpu_ranges(s, gpu.records, describe, "block", "gpu-blocks", "this GPU: what every block did", "gpu-stuck",
                 "this GPU: who was stuck");
  if (g.too_many()) {
    const Verdict v = ended_at_deadline(gpu.records, gpu.timed_out, run.options.deadline_ms, "block");
    s.check("ended", "the deadlock ended at its deadline, and every block said where it was", v.passed, v.detail);
  } else {
    const Verdict v = completed(gpu);
    s.check("completes", completes, v.passed, v.detail);
  }
  const Verdict agree = stuck_agreement(gpu.records, model.records, describe, "block");
  s.agreement("gpu-agrees", "who was stuck, and on what", agree.passed, agree.detail);
}

report::Section grid_part(Run& run) {
  const Grid grid = grid_of(run, GridKernel::counter_barrier);
  const int blocks = grid.blocks;
  const ScenarioModel model = grid_barrier_model(blocks, grid.c);
  report::Section s("grid-oversubscribed",
                    "grid-oversubscribed: a software grid barrier over more blocks than can be resident");
  s.paragraph(
      "A software grid barrier (Xiao & Feng's lock-based one): thread 0 of every block adds 1 to a counter in global "
      "memory and spins until the counter reaches the number of blocks. It needs every block resident at once: a "
      "spinning block keeps its SM slot, and a block without a slot starts only when a resident block exits. With "
      "more blocks than fit, the resident blocks spin for blocks that cannot start, and those wait for slots the "
      "spinners will never free. Sorensen et al. (OOPSLA 2016) name the cause, the occupancy-bound execution "
      "model, and make such a barrier safe by running it only over the blocks an occupancy discovery protocol "
      "finds resident.");
  s.paragraph(
      "Two fixes. Size the grid from the occupancy API (cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs). Or "
      "launch with cudaLaunchCooperativeKernel, which checks co-residency before it starts anything and refuses a "
      "grid that is too large with cudaErrorCooperativeLaunchTooLarge (720) instead of hanging.");
  add_grid_launch(s, run, grid, "counter barrier");
  const Describe describe = barrier_describe(blocks);
  s.add(steps_table(model.steps, "schedule", "the model's schedule, step by step"));
  add_model_facts(s, model, describe, "block");
  add_model_checks(s, model, grid.too_many());
  const char* launch_title = "the oversubscribed launch, until every block returned";
  if (!run.ctx.gpu) {
    s.fact("gpu", "this GPU", report::NeedsGpu{}, Format::plain, "who was stuck, for how long, and the fixes run");
    s.add(steps_table(model.fix_steps, "fix", "the fixes, in the model"));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const unsigned long long ns = run.deadline_ns();
  const GridRun g = gpu_grid_barrier(blocks, ns);
  add_gpu_grid(s, run, grid, g, model, describe, "the barrier completes when every block fits");
  s.fact("counter", "counter at the end", I{g.counter}, Format::count, "arrivals of " + std::to_string(blocks));
  s.add(launch_time("launch", launch_title, g.ms,
                    "CUDA events; the first wave spins until the deadline, the rest return at once"));

  const GridRun fix = gpu_grid_barrier(std::min(grid.c.limit(), kMaxBlocks), ns);
  const Verdict fixed = completed(fix);
  s.fact("fix-occupancy", "fix 1: grid from the occupancy API", grid_text(fix.blocks, kGridThreads), Format::plain,
         fix.completed ? "completed in " + ms_text(fix.ms) + ": " + fix.result : "a block gave up");
  s.check("fix-occupancy", "fix 1: the grid sized from the occupancy API passes the barrier with a correct result",
          fixed.passed, fixed.detail);
  if (!gpu_cooperative_launch(run.ctx.device->index)) {
    s.note("fix 2 not run: this GPU has no cooperative launch (cudaDevAttrCooperativeLaunch is 0)");
  } else {
    const CoopRun coop = gpu_grid_barrier_cooperative(blocks, ns);
    s.fact("fix-cooperative", "fix 2: cooperative launch",
           grid_text(blocks, kGridThreads) + ": " + cooperative_outcome(coop), Format::plain,
           "cudaLaunchCooperativeKernel and a synchronize returned after " + ms_text(coop.host_ms));
    if (grid.too_many()) {
      const Verdict v = cooperative_refused(coop);
      s.check("fix-cooperative", "fix 2: cudaLaunchCooperativeKernel refuses the grid with error 720, and nothing runs",
              v.passed, v.detail);
    } else {
      const Verdict v = cooperative_completed(coop);
      s.check("fix-cooperative", "fix 2: the cooperative launch of a grid that fits completes with a correct result",
              v.passed, v.detail);
    }
  }
  add_health(s, gpu_health(), "grid-oversubscribed");
  return s;
}

}  // namespace cudasync::deadlock_demo
