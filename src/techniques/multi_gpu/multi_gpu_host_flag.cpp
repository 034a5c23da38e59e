// Part host-flag: the flag handoff from a kernel to a host thread through pinned host memory, under
// each fence on the GPU's side. It needs one GPU only: the system scope's other agent is the CPU.
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

report::Section host_flag_part(Run& run) {
  std::vector<FlagRow> rows = flag_rows(run.options, Consumer::host);
  if (run.ctx.gpu)
    for (auto& r : rows) r.gpu = gpu_host_flag(r.spec, run.ctx.device->index, run.iterations, run.budget_ns());
  report::Section s = flag_section("host-flag", say("host-flag.title"), rows, run.ctx.gpu);
  if (run.ctx.gpu) s.note(say("host-flag.ran-on", {{"device", run.ctx.device_text()}}));
  return s;
}

}  // namespace cudasync::multi_gpu
