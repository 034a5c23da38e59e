// Part cost: ns per fence after a store, beside the store alone and the two peers every lesson
// prints (a dependent L2 load, a dependent atomicAdd), in one thread and in one warp per SM.
#include "core/sweep/sweep.hpp"
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

namespace {

struct VariantRow {
  CostVariant variant;
  const char* id;
  const char* title;  // a key of the lesson's catalog
};

const VariantRow kVariants[] = {
    {CostVariant::none, "store", "cost.row-store"},
    {CostVariant::block, "block", "cost.row-block"},
    {CostVariant::device, "device", "cost.row-device"},
    {CostVariant::system, "system", "cost.row-system"},
    {CostVariant::acq_rel, "acq-rel", "cost.row-acq-rel"},
    {CostVariant::release_store, "release-store", "cost.row-release-store"},
    {CostVariant::device_alone, "device-alone", "cost.row-device-alone"},
    {CostVariant::l2_load_chain, "l2-load", "cost.row-l2-load"},
    {CostVariant::atomic_chain, "atomic-add", "cost.row-atomic-add"},
};
const CostShape kShapes[] = {CostShape::one_thread, CostShape::warp_per_sm};

}  // namespace

report::Section cost_section(const CostMeasure& measure, bool gpu_run, int iterations, bool bench) {
  report::Section s("cost", say("cost.title"));
  s.paragraph(say("cost.about", {{"iterations", iterations}}));
  if (bench) s.paragraph(say("cost.bench"));
  std::vector<sweep::Point> rows;
  for (const auto& v : kVariants) rows.push_back({v.id, say(v.title)});
  sweep::Sweep sw("cost", say("cost.unit"), report::Format::ns, sweep::Better::lower);
  // The peers are for reference: a fence is compared with them, and never one of them the best.
  sw.rows(say("cost.variant"), rows).baseline("store").versus("l2-load").reference("l2-load").reference("atomic-add");
  sw.columns(say("cost.shape"), {{"one-thread", say("cost.one-thread")}, {"warp-per-sm", say("cost.warp-per-sm")}});
  sw.run(gpu_run, [&](std::size_t row, std::size_t column) { return measure(kVariants[row].variant, kShapes[column]); });
  sw.add_to(s, gpu_run);
  return s;
}

report::Section cost_part(Run& run) {
  const bool bench = run.ctx.bench;
  const int iterations = bench ? 20000 : 2000;
  const int reps = bench ? 31 : 5;
  return cost_section(
      [&](CostVariant v, CostShape shape) { return gpu_cost_ns(v, shape, iterations, reps); }, run.ctx.gpu,
      iterations, bench);
}

}  // namespace cudasync::threadfence
