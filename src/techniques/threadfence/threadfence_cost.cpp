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
  const char* title;
};

const VariantRow kVariants[] = {
    {CostVariant::none, "store", "store, no fence"},
    {CostVariant::block, "block", "store + __threadfence_block()"},
    {CostVariant::device, "device", "store + __threadfence()"},
    {CostVariant::system, "system", "store + __threadfence_system()"},
    {CostVariant::acq_rel, "acq-rel", "store + atomic_thread_fence(acq_rel, device)"},
    {CostVariant::release_store, "release-store", "atomic_ref store(release), device"},
    {CostVariant::device_alone, "device-alone", "__threadfence() alone, no store"},
    {CostVariant::l2_load_chain, "l2-load", "dependent L2 load (__ldcg), the peer"},
    {CostVariant::atomic_chain, "atomic-add", "dependent atomicAdd, the peer"},
};
const CostShape kShapes[] = {CostShape::one_thread, CostShape::warp_per_sm};

}  // namespace

report::Section cost_section(const CostMeasure& measure, bool gpu_run, int iterations, bool bench) {
  report::Section s("cost", "cost: ns per fence, beside a loop with no fence");
  s.paragraph(
      "A loop of " + std::to_string(iterations) +
      " iterations; each stores to the thread's own word, then fences (or not). The figure is ns per iteration "
      "(clock64 in the kernel, converted with the SM clock measured against %globaltimer), one sample per launch. "
      "A fence waits for the thread's earlier stores to be performed at its scope, so a gpu-scoped fence after a "
      "store costs about a round trip to L2: the two peers measure that round trip in the same run. The row "
      "'__threadfence() alone' has no store in its loop: it shows what the fence costs with nothing to wait for.");
  if (bench) s.paragraph("--bench: more iterations and launches per figure.");
  std::vector<sweep::Point> rows;
  for (const auto& v : kVariants) rows.push_back({v.id, v.title});
  sweep::Sweep sw("cost", "ns per iteration", report::Format::ns, sweep::Better::lower);
  // The peers are for reference: a fence is compared with them, and never one of them the best.
  sw.rows("variant", rows).baseline("store").versus("l2-load").reference("l2-load").reference("atomic-add");
  sw.columns("shape", {{"one-thread", "one thread"}, {"warp-per-sm", "one warp per SM"}});
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
