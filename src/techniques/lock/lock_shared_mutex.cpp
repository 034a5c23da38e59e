// Part shared-mutex: the blog's fix 2 for part 5's by-value copy, a Mutex class held by
// std::shared_ptr in every CudaKernelLock, run on the GPU beside the ownership model of both ways
// of holding the mutex.
#include "core/errors.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {

namespace {

using I = std::int64_t;

report::Table ownership_table(const SharedMutexPart& p) {
  report::Table t("ownership", say("shared.ownership-title"));
  t.column("holding", say("shared.holding-column"))
      .column("frees", "cudaFree", report::Format::count)
      .column("frees-of-freed", say("shared.frees-of-freed-column"), report::Format::count)
      .column("launches-on-freed", say("shared.launches-on-freed-column"), report::Format::count)
      .column("use-count", say("shared.owners-column"), report::Format::count)
      .column("holding-id", say("id-column"));
  for (const OwnershipRun* r : {&p.by_value, &p.shared})
    t.row({{"holding", say(r->config.holding == Holding::by_value ? "shared.holding-by-value" : "shared.holding-shared")},
           {"frees", static_cast<I>(r->frees)},
           {"frees-of-freed", static_cast<I>(r->frees_of_freed)},
           {"launches-on-freed", static_cast<I>(r->launches_on_freed)},
           {"use-count", r->config.holding == Holding::shared_mutex ? report::Value{static_cast<I>(r->use_count_max)}
                                                                   : report::Value{report::Undefined{}}},
           {"holding-id", std::string(r->config.holding == Holding::by_value ? "by-value" : "shared-mutex")}});
  t.legend.push_back(say("shared.legend-columns"));
  t.legend.push_back(say("shared.legend-launch"));
  t.legend.push_back(say("shared.legend-freed"));
  return t;
}

}  // namespace

report::Section shared_mutex_section(const SharedMutexPart& p, bool gpu_run) {
  report::Section s("shared-mutex", say("shared.title"));
  s.paragraph(say("shared.about"));
  s.paragraph(say("shared.about-run", {{"grid", grid_text(p.blocks, 1)}, {"iterations", p.iters}}));
  s.add(ownership_table(p));
  s.check("model-by-value-frees-early", say("shared.check-by-value"),
          p.by_value.launches_on_freed > 0 && p.by_value.frees_of_freed > 0,
          say("shared.check-by-value-detail", {{"frees", p.by_value.frees},
                                               {"of-freed", p.by_value.frees_of_freed},
                                               {"launches", p.by_value.launches_on_freed}}));
  s.check("model-shared-frees-once", say("shared.check-shared"), p.shared.frees_once(),
          say("shared.check-shared-detail", {{"frees", p.shared.frees},
                                             {"launches", p.shared.launches_on_freed},
                                             {"owners", p.shared.use_count_max}}));
  if (!gpu_run) {
    s.note(say("shared.needs-gpu"));
    s.fact("verdict", say("verdict"), say("shared.verdict-model"));
    return s;
  }
  if (!p.gpu) {
    s.check("gpu-ran", say("shared.gpu-ran"), false, p.gpu_error);
    return s;
  }
  const SharedMutexRun& g = *p.gpu;
  report::Table t("steps", say("shared.steps-title"));
  t.column("step", say("steps.step")).column("cuda", say("steps.cuda")).column("what", say("steps.what"));
  for (const auto& st : g.steps)
    t.row({{"step", st.what},
           {"cuda", st.error.empty() ? report::Value{report::Undefined{}} : report::Value{st.error}},
           {"what", st.detail}});
  s.add(std::move(t));
  std::string copies;
  for (int c : g.copies) copies += (copies.empty() ? "" : ", ") + std::to_string(c);
  s.fact("copies", say("shared.copies"), copies, report::Format::plain, say("shared.copies-note"));
  s.fact("use-count-max", say("shared.use-count-max"), static_cast<I>(g.use_count_max), report::Format::count,
         say("shared.use-count-max-note"));
  const Verdict counts = shared_mutex_counts(g), alive = shared_mutex_alive(g), once = shared_mutex_frees_once(g, p.shared);
  s.check("count-exact", say("shared.count-exact"), counts.passed, counts.detail);
  s.check("mutex-alive", say("shared.mutex-alive"), alive.passed, alive.detail);
  s.agreement("gpu-agrees", say("shared.gpu-agrees"), once.passed, once.detail);
  s.fact("verdict", say("verdict"),
         say(counts.passed && alive.passed && once.passed ? "shared.verdict-fixed" : "shared.verdict-not-fixed"));
  return s;
}

report::Section shared_mutex_part(Run& run) {
  SharedMutexPart p;
  p.by_value = replay({Holding::by_value, 2, 1, false});
  p.shared = replay({Holding::shared_mutex, 2, 1, true});
  if (run.ctx.gpu) {
    try {
      p.gpu = gpu_shared_mutex(p.blocks, p.iters, deadline_for(static_cast<long long>(p.blocks) * p.iters));
    } catch (const Error& e) {
      p.gpu_error = e.what();
    }
  }
  return shared_mutex_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock
