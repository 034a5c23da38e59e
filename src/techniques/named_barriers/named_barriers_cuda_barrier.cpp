// Part cuda-barrier: the producer/consumer again, with two cuda::barrier objects in shared memory
// (the mbarrier of compute capability 8.0+), and the opcodes its kernel compiled to.
#include "core/errors.hpp"
#include "core/kernel_listing.hpp"
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

namespace {

void add_compiled(report::Section& s, const std::string& arch) {
  const KernelCode* k = find_kernel(kernel_listing().sass, arch, "named_barriers", "cuda_barrier_pc_kernel");
  report::Table t("compiled", say("cuda-barrier.compiled-title", {{"arch", arch}}));
  t.column("opcode", say("cuda-barrier.opcode")).column("times", say("cuda-barrier.times"));
  for (const auto& [op, n] : opcode_counts(k ? k->instructions : std::vector<std::string>{}))
    t.row({{"opcode", op}, {"times", static_cast<std::int64_t>(n)}});
  if (t.rows.empty()) t.row({{"opcode", say("cuda-barrier.no-sync-instruction")}, {"times", std::int64_t{0}}});
  t.legend.push_back(say("cuda-barrier.legend-sass"));
  t.legend.push_back(say("cuda-barrier.legend-syncs"));
  t.legend.push_back(say("cuda-barrier.legend-nanosleep"));
  s.add(std::move(t));
}

}  // namespace

report::Section cuda_barrier_part(Run& run) {
  const PcSpec& spec = run.in.pc;
  if (run.ctx.gpu && run.ctx.compute_capability() < 80)
    throw WaivedError(say("cuda-barrier.waived", {{"device", run.ctx.device_text()}}));
  std::optional<PcResult> gpu;
  if (run.ctx.gpu) gpu = gpu_producer_consumer_cuda_barrier(spec);

  report::Section s("cuda-barrier", say("cuda-barrier.title"));
  s.paragraph(say("cuda-barrier.about", {{"arrivals", spec.block_threads()}}));
  s.paragraph(say("cuda-barrier.tokens"));
  add_rounds(s, spec, gpu);
  if (gpu) add_pc_timing(s, spec, *gpu, run.in.trace, {"full.arrive()", "full.wait()", "empty.wait()"});
  else s.note(say("cuda-barrier.needs-gpu"));
  const std::string arch = listing_sass_arch(kernel_listing(), run.ctx.compute_capability());
  if (!arch.empty()) add_compiled(s, arch);
  return s;
}

}  // namespace cudasync::named_barriers
