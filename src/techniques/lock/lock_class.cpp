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
  report::Section s("lock-class", "part 1, the lock class: CudaKernelLock used as kernel" + grid);
  s.paragraph(
      "The blog's class as written (the lock of CUDA by Example, App. A): lock() is while (atomicCAS(mutex, 0, 1) != 0); and unlock() is "
      "atomicExch(mutex, 0). atomicCAS compares and swaps in one atomic step at L2, so exactly one thread sees 0 "
      "and gets in; the others keep trying. The kernel runs one thread per block, the blog's rule (part 2 shows "
      "why it was the rule), each taking the lock " +
      std::to_string(p.spec.iters) +
      " times around the critical section of the blog's later kernel, atomicAdd(cnt, 1): the count says whether "
      "every acquisition happened, and the time per handoff what one costs.");
  s.paragraph(
      "The blog's first kernel has *cnt = *cnt + 1 inside the lock instead. The same launches with that critical "
      "section show the blog's second pitfall at once; part 3 takes it apart.");
  s.fact("launch", "launch", grid + ", " + std::to_string(p.spec.iters) + " acquisitions per thread",
         report::Format::plain, std::to_string(p.spec.acquisitions()) + " lock handoffs per launch");
  s.fact("model-atomic-add", "reference model, atomicAdd", model_outcome_text(p.model), report::Format::plain,
         std::to_string(p.model.config.blocks) + " blocks x " + std::to_string(p.model.config.iters) +
             " acquisitions, one instruction per thread per step");
  s.fact("model-plain", "reference model, *cnt = *cnt + 1", model_outcome_text(p.model_plain), report::Format::plain,
         std::to_string(p.model_plain.stale_reads) + (p.model_plain.stale_reads == 1 ? " load" : " loads") +
             " returned an old value from an SM's L1");
  const std::string title = "time per lock handoff, " + grid + ", atomicAdd";
  if (!gpu_run) {
    s.fact("verdict", "verdict",
           std::string("the lock itself completes in the model; the counts on a real GPU and the time per handoff "
                       "need a GPU"));
    s.add(report::measured("handoff", title, report::Format::ns, {}, false, "launch time / handoffs, CUDA events"));
    return s;
  }
  s.fact("counts-atomic-add", "count after each launch, atomicAdd", counts(p.gpu), report::Format::plain,
         "expected " + std::to_string(p.spec.acquisitions()));
  if (!p.gpu_plain.empty()) {
    const Lost l = lost_updates(p.gpu_plain);
    s.fact("counts-plain", "count after each launch, *cnt = *cnt + 1", counts(p.gpu_plain), report::Format::plain,
           std::to_string(l.lost) + " of " + std::to_string(l.total) + " updates lost (" +
               report::fixed(100.0 * static_cast<double>(l.lost) / static_cast<double>(std::max(l.total, 1LL)), 1) +
               "%): part 3");
  }
  s.add(report::measured("handoff", title, report::Format::ns, ns_samples(p.gpu), true,
                         "launch time / handoffs, CUDA events"));
  const Verdict exact = runs_exact(p.gpu);
  s.check("count-exact", "every acquisition happened: the atomicAdd count is exact in every launch", exact.passed,
          exact.detail);
  if (any_timed_out(p.gpu_plain))
    s.check("plain-within-deadline", "*cnt = *cnt + 1: every wait within its deadline", false,
            "a thread gave up: the count says nothing about stale reads");
  s.fact("verdict", "verdict",
         exact.passed ? std::string("the lock excludes: with atomicAdd every count is exact; with the blog's "
                                    "*cnt = *cnt + 1 the counts are wrong (part 3)")
                      : std::string("an acquisition went missing: see the check"));
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
