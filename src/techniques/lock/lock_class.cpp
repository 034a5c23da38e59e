// Part lock-class: the blog's class as written, one thread per block, around atomicAdd (timed) and
// around the blog's first critical section, *cnt = *cnt + 1.
#include "core/report/text_format.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {

namespace {

std::string counts(const std::vector<LockRun>& runs) {
  std::string t;
  for (const auto& r : runs) t += (t.empty() ? "" : ", ") + std::to_string(r.count);
  return t;
}

}  // namespace

report::Section lock_class_section(const ClassPart& p, bool gpu_run) {
  const std::string grid = grid_text(p.spec.blocks, 1);
  report::Section s("lock-class", say("class.title", {{"grid", grid}}));
  s.paragraph(say("class.about", {{"iterations", p.spec.iters}}));
  s.paragraph(say("class.about-plain"));
  s.fact("launch", say("class.launch"), say("class.launch-value", {{"grid", grid}, {"iterations", p.spec.iters}}),
         report::Format::plain, say("class.launch-note", {{"handoffs", p.spec.acquisitions()}}));
  s.fact("model-atomic-add", say("class.model-atomic-add"), model_outcome_text(p.model), report::Format::plain,
         say("class.model-atomic-add-note", {{"blocks", p.model.config.blocks}, {"iterations", p.model.config.iters}}));
  s.fact("model-plain", say("class.model-plain"), model_outcome_text(p.model_plain), report::Format::plain,
         say(p.model_plain.stale_reads == 1 ? "class.model-plain-note-one" : "class.model-plain-note",
             {{"loads", p.model_plain.stale_reads}}));
  const std::string title = say("class.handoff-title", {{"grid", grid}});
  if (!gpu_run) {
    s.fact("verdict", say("verdict"), say("class.verdict-model"));
    s.add(report::measured("handoff", title, report::Format::ns, {}, false, say("class.handoff-note")));
    return s;
  }
  s.fact("counts-atomic-add", say("class.counts-atomic-add"), counts(p.gpu), report::Format::plain,
         say("class.expected", {{"count", p.spec.acquisitions()}}));
  if (!p.gpu_plain.empty()) {
    const Lost l = lost_updates(p.gpu_plain);
    s.fact("counts-plain", say("class.counts-plain"), counts(p.gpu_plain), report::Format::plain,
           say("class.counts-plain-note",
               {{"lost", l.lost},
                {"total", l.total},
                {"percent",
                 report::fixed(100.0 * static_cast<double>(l.lost) / static_cast<double>(std::max(l.total, 1LL)), 1)}}));
  }
  s.add(report::measured("handoff", title, report::Format::ns, ns_samples(p.gpu), true, say("class.handoff-note")));
  const Verdict exact = runs_exact(p.gpu);
  s.check("count-exact", say("class.count-exact"), exact.passed, exact.detail);
  if (any_timed_out(p.gpu_plain))
    s.check("plain-within-deadline", say("class.plain-within-deadline"), false, say("gave-up-says-nothing"));
  s.fact("verdict", say("verdict"), say(exact.passed ? "class.verdict-exact" : "class.verdict-missing"));
  return s;
}

report::Section lock_class_part(Run& run) {
  ClassPart p;
  p.spec = RunSpec::of(Variant::book_atomic_add, run.options.blocks.value_or(kClassBlocks), 1,
                       run.options.iterations.value_or(kClassIters));
  p.model = sim(Protocol::book_atomic_add, Regime::independent, 3, 1, 2);
  p.model_plain = sim(Protocol::book, Regime::independent, 3, 1, 2);
  if (run.ctx.gpu) {
    p.gpu = gpu_runs(p.spec, kTimedReps, true);
    RunSpec plain = p.spec;
    plain.variant = Variant::book;
    p.gpu_plain = gpu_runs(plain, kTimedReps, false);
  }
  return lock_class_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock
