// The ladder (the lesson's finish): every kernel the rung parts ran, side by side, from the
// results they left in the run; shown when more than one kernel ran.
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

using report::Format;
using report::Undefined;
using report::Value;

report::Section ladder_section(const std::vector<KernelRun>& runs, const Problem& p) {
  report::Section s("ladder", say("ladder.title"));
  s.paragraph(say("ladder.about"));
  double cub_gbs = 0.0;
  for (const auto& r : runs)
    if (r.kernel == Kernel::cub_sum && !r.ms.empty()) cub_gbs = gb_per_s(p.n, p.dtype, report::median(r.ms));
  report::Table t("ladder", say(p.gpu ? "ladder.table-gpu" : "ladder.table-model", {{"n", p.n}, {"dtype", dtype_name(p.dtype)}}));
  t.column("kernel", say("column.kernel"))
      .column("sum", say("column.sum"), Format::exact)
      .column("rel-error", say("column.rel-error"), Format::error)
      .column("model", say("column.model"))
      .column("two-runs", say("column.two-runs"))
      .column("time", "ns", Format::ns)
      .column("bandwidth", "GB/s", Format::gbps)
      .column("vs-cub", "x CUB", Format::ratio);
  const Value no_gpu = p.gpu ? Value{Undefined{}} : Value{report::NeedsGpu{}};
  for (const auto& r : runs) {
    const std::string kernel = kernel_title(r.kernel);
    if (r.waived) {
      t.row({{"kernel", kernel}, {"sum", say("waived")}});
      continue;
    }
    const bool has = r.gpu.has_value() || r.model_available;
    const Sum shown = r.gpu ? *r.gpu : r.model;
    bool agrees = true;
    const auto word = agreement_word(r, agrees);
    Value time = no_gpu, bandwidth = no_gpu, vs_cub = no_gpu, two_runs = Undefined{};
    if (!r.ms.empty()) {
      const double ms = report::median(r.ms);
      time = ms * 1e6;
      bandwidth = gb_per_s(p.n, p.dtype, ms);
      vs_cub = cub_gbs > 0 ? Value{gb_per_s(p.n, p.dtype, ms) / cub_gbs} : Value{Undefined{}};
    }
    if (r.gpu && r.gpu_again) two_runs = say(r.gpu->bits == r.gpu_again->bits ? "two-runs.same" : "two-runs.differ");
    const std::vector<std::pair<std::string, Value>> cells{
        {"kernel", kernel},
        {"sum", has ? Value{shown.value} : no_gpu},
        {"rel-error", has ? Value{relative_error(shown.value, p.reference)} : no_gpu},
        {"model", word ? Value{*word} : Value{Undefined{}}},
        {"two-runs", two_runs},
        {"time", time},
        {"bandwidth", bandwidth},
        {"vs-cub", vs_cub}};
    t.row(cells, agrees ? report::RowMark::none : report::RowMark::mismatch);
  }
  if (!p.gpu) t.legend.push_back(say("ladder.cub-legend"));
  else t.legend.push_back(say("ladder.medians-legend", {{"reps", p.reps}}));
  s.add(std::move(t));
  return s;
}

void ladder_finish(Run& run, report::Report& report) {
  if (run.runs.size() > 1) report.sections.push_back(ladder_section(run.runs, run.problem));
}

}  // namespace cudasync::cg_reduce
