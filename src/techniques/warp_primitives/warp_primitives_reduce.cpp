// Parts reduce-add, reduce-min, reduce-max: __reduce_*_sync per lane (one REDUX instruction on
// compute capability 8.0+; a GPU below that waives them).
#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

report::Section reduce_part(Run& run, const std::string& op) {
  using report::RowMark;
  using report::Undefined;
  using report::Value;
  if (run.ctx.gpu && run.ctx.compute_capability() < 80)
    throw WaivedError("needs compute capability 8.0 or newer (__reduce_*_sync compiles to REDUX); GPU " +
                      std::to_string(run.ctx.device->index) + " has " + run.ctx.device->cc_string());
  const VoteSpec& spec = run.vote;
  const ReduceLanes m = model_reduce(spec);
  if (run.ctx.gpu && !run.gpu_reduce) run.gpu_reduce = gpu_reduce(spec);
  const std::optional<ReduceLanes>& gpu = run.gpu_reduce;
  const std::string which = op.substr(7);  // add, min, max
  const auto pick = [&](const ReduceLanes& r, std::size_t l) -> std::uint32_t {
    return which == "add" ? r.add[l] : which == "min" ? r.min[l] : r.max[l];
  };

  report::Section s(op, "__reduce_" + which + "_sync(" +
                            report::format_value(std::int64_t{spec.warp.mask}, report::Format::hex32) + ", value)");
  s.paragraph(say(which == "add" ? "reduce.about-add" : which == "min" ? "reduce.about-min" : "reduce.about-max"));
  report::Table t("lanes", say("votes.lanes-title"));
  t.lanes_across = true;
  t.column("thread", "thread").column("value", "value").column("model", "model");
  if (gpu) t.column("gpu", "gpu");
  LaneVerdict v;
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const bool calls = spec.warp.calls(lane);
    RowMark mark = calls ? RowMark::none : RowMark::inactive;
    std::vector<std::pair<std::string, Value>> cells{
        {"thread", lane}, {"value", spec.values[l]}, {"model", calls ? Value{pick(m, l)} : Value{Undefined{}}}};
    if (gpu) {
      cells.emplace_back("gpu", calls ? Value{pick(*gpu, l)} : Value{Undefined{}});
      if (calls) {
        ++v.compared;
        if (pick(*gpu, l) != pick(m, l)) {
          v.mismatches.push_back(lane);
          mark = RowMark::mismatch;
        }
      }
    }
    t.row(cells, mark);
  }
  s.add(std::move(t));
  if (gpu) s.agreement("gpu-agrees", op, v.passed(), v.detail());
  return s;
}

}  // namespace cudasync::warp_primitives
