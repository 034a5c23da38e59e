// Part peer-flag: the flag handoff from a kernel on one GPU to a kernel on another, the data and the
// flag stored into the consumer's memory through peer access, under each fence on each side.
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

report::Section peer_flag_part(Run& run) {
  run.require_peer("peer-flag");
  std::vector<FlagRow> rows = flag_rows(run.options, Consumer::peer_gpu);
  if (run.ctx.gpu)
    for (auto& r : rows) r.gpu = gpu_peer_flag(r.spec, run.dev[0], run.dev[1], run.iterations, run.budget_ns());
  report::Section s = flag_section("peer-flag", say("peer-flag.title"), rows, run.ctx.gpu);
  if (run.ctx.gpu)
    s.note(say("peer-flag.ran-on",
               {{"a", run.dev[0]}, {"a-name", run.peer->a_name}, {"b", run.dev[1]}, {"b-name", run.peer->b_name}}));
  return s;
}

}  // namespace cudasync::multi_gpu
