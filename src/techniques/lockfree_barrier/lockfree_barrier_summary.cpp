// The table's finish: when several barriers ran, every one of them side by side, from the results
// their parts kept (nothing is run again).
#include <algorithm>

#include "techniques/lockfree_barrier/lockfree_barrier_judge.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"

namespace cudasync::lockfree_barrier {

void summary_finish(Run& run, report::Report& r) {
  // One barrier needs no summary; when every one was waived the run has nothing to show (exit 77).
  const auto waived = [](const BarrierResult& b) { return b.waived.has_value(); };
  if (run.results.size() < 2 || std::all_of(run.results.begin(), run.results.end(), waived)) return;
  const bool gpu = run.ctx.gpu;
  std::optional<double> grid_ns;
  for (const auto& b : run.results)
    if (b.barrier == Barrier::grid_sync && b.gpu && !b.gpu->ns_per_barrier.empty())
      grid_ns = report::median(b.gpu->ns_per_barrier);
  report::Section sec("summary", say("summary.title"));
  report::Table t("barriers", say(gpu ? "summary.table-gpu" : "summary.table-model",
                                  {{"blocks", run.s.blocks}, {"threads", run.s.threads}}));
  t.column("barrier", say("column.barrier"))
      .column("model", say("column.model"))
      .column("gpu", "GPU")
      .column("ns", say("summary.ns-column"), report::Format::ns)
      .column("vs-grid-sync", "x grid.sync", report::Format::ratio);
  const report::Value none = gpu ? report::Value{report::Undefined{}} : report::Value{report::NeedsGpu{}};
  for (const auto& b : run.results) {
    report::Value status = none, ns = none, ratio = none;
    if (b.waived) status = say("waived");
    if (b.gpu) {
      status = gpu_status(*b.gpu, run.s.beyond(b.barrier));
      if (!b.gpu->ns_per_barrier.empty()) {
        const double m = report::median(b.gpu->ns_per_barrier);
        ns = m;
        if (grid_ns && *grid_ns > 0) ratio = m / *grid_ns;
      }
    }
    t.row({{"barrier", std::string(barrier_key(b.barrier))},
           {"model", sim_outcome(b.sim)},
           {"gpu", status},
           {"ns", ns},
           {"vs-grid-sync", ratio}});
  }
  t.legend.push_back(say("summary.legend"));
  if (gpu) t.legend.push_back(say("summary.timing-legend", {{"reps", kTimingReps}}));
  sec.add(std::move(t));
  r.sections.push_back(std::move(sec));
}

}  // namespace cudasync::lockfree_barrier
