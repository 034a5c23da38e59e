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
  report::Table t("compiled", "what cuda_barrier_pc_kernel compiled to (" + arch + "), by opcode");
  t.column("opcode", "opcode").column("times", "times");
  for (const auto& [op, n] : opcode_counts(k ? k->instructions : std::vector<std::string>{}))
    t.row({{"opcode", op}, {"times", static_cast<std::int64_t>(n)}});
  if (t.rows.empty()) t.row({{"opcode", std::string("(no synchronization instruction)")}, {"times", std::int64_t{0}}});
  t.legend.push_back("NVIDIA does not document SASS; each reading is from the opcode's name and place");
  t.legend.push_back("SYNCS.ARRIVE: arrive (a token comes back); SYNCS.PHASECHK...TRYWAIT: has the phase completed?");
  t.legend.push_back("NANOSLEEP: the back-off of wait() between tries; all of them in the listing part");
  s.add(std::move(t));
}

}  // namespace

report::Section cuda_barrier_part(Run& run) {
  const PcSpec& spec = run.in.pc;
  if (run.ctx.gpu && run.ctx.compute_capability() < 80)
    throw WaivedError("needs compute capability 8.0 or newer (cuda::barrier in shared memory is the mbarrier object "
                      "of 8.0); " + run.ctx.device_text());
  std::optional<PcResult> gpu;
  if (run.ctx.gpu) gpu = gpu_producer_consumer_cuda_barrier(spec);

  report::Section s("cuda-barrier", "cuda::barrier: the same producer/consumer with arrive tokens and wait");
  s.paragraph(
      "Two cuda::barrier<cuda::thread_scope_block> objects in shared memory, full and empty, each expecting " +
      std::to_string(spec.block_threads()) + " arrivals per phase. producers: slot = v; (void)full.arrive(); "
      "auto t = empty.arrive(); fetch the next v; empty.wait(std::move(t)).  consumers: auto t = full.arrive(); "
      "full.wait(std::move(t)); read; (void)empty.arrive().");
  s.paragraph(
      "arrive() returns a token for the current phase; wait(token) returns once that phase has completed, so the "
      "arrival and the wait can be far apart, and any number of barriers can exist (they live in shared memory, not "
      "in the sixteen hardware slots). On compute capability 8.0+ libcu++ builds them on the mbarrier object of the "
      "PTX ISA; the lesson waives this part below 8.0.");
  add_rounds(s, spec, gpu);
  if (gpu) add_pc_timing(s, spec, *gpu, run.in.trace, {"full.arrive()", "full.wait()", "empty.wait()"});
  else s.note("the values the GPU consumed and the stamps need a GPU");
  const std::string arch = listing_sass_arch(kernel_listing(), run.ctx.compute_capability());
  if (!arch.empty()) add_compiled(s, arch);
  return s;
}

}  // namespace cudasync::named_barriers
