// The ladder (the lesson's finish): every kernel the rung parts ran, side by side, from the
// results they left in the run; shown when more than one kernel ran.
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

using report::Format;
using report::Undefined;
using report::Value;

report::Section ladder_section(const std::vector<KernelRun>& runs, const Problem& p) {
  report::Section s("ladder", "the ladder: every rung side by side");
  s.paragraph(
      "model: bit-exact (the GPU's bits are the model's), in bound (an atomic rung, within the bound that covers "
      "every order of its atomics), or -. two runs: whether two calls gave the same bits. x CUB: bandwidth over "
      "CUB's, measured in the same run.");
  double cub_gbs = 0.0;
  for (const auto& r : runs)
    if (r.kernel == Kernel::cub_sum && !r.ms.empty()) cub_gbs = gb_per_s(p.n, p.dtype, report::median(r.ms));
  report::Table t("ladder", std::to_string(p.n) + " " + dtype_name(p.dtype) + "s" +
                                (p.gpu ? ", on the GPU" : ", reference model"));
  t.column("kernel", "kernel")
      .column("sum", "sum", Format::exact)
      .column("rel-error", "rel. error", Format::error)
      .column("model", "model")
      .column("two-runs", "2 runs")
      .column("time", "ns", Format::ns)
      .column("bandwidth", "GB/s", Format::gbps)
      .column("vs-cub", "x CUB", Format::ratio);
  const Value no_gpu = p.gpu ? Value{Undefined{}} : Value{report::NeedsGpu{}};
  for (const auto& r : runs) {
    const std::string kernel = kernel_title(r.kernel);
    if (r.waived) {
      t.row({{"kernel", kernel}, {"sum", std::string("waived")}});
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
    if (r.gpu && r.gpu_again) two_runs = std::string(r.gpu->bits == r.gpu_again->bits ? "same" : "differ");
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
  if (!p.gpu) t.legend.push_back("CUB's sum: the model does not replay CUB's order, only a GPU gives it");
  else t.legend.push_back("ns and GB/s: medians over " + std::to_string(p.reps) + " calls");
  s.add(std::move(t));
  return s;
}

void ladder_finish(Run& run, report::Report& report) {
  if (run.runs.size() > 1) report.sections.push_back(ladder_section(run.runs, run.problem));
}

}  // namespace cudasync::cg_reduce
