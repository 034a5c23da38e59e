// Part copy-destructor: the blog's lock passed by value to two launches. The child process (this
// binary, lock --child copy) runs the blog's callKernel(); this process then runs the fixes.
#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {

namespace {

using I = std::int64_t;

void owner_fact(report::Section& s) {
  s.fact("owner", say("copy.owner"), say("copy.owner-value"), report::Format::plain, say("copy.owner-note"));
}

void child_report(report::Section& s, const CopyOutcome& c) {
  if (c.status != CopyOutcome::Status::ok) {
    const bool answered = c.status == CopyOutcome::Status::cuda_error;
    s.check("child-answered", say("copy.child-answered"), answered,
            answered ? say("copy.child-stopped", {{"message", c.message}}) : c.message);
    return;
  }
  report::Table t("child", say("copy.child-title", {{"grid", grid_text(kCopyBlocks, 1)}, {"iterations", kCopyIters}}));
  t.column("step", say("steps.step")).column("cuda", say("steps.cuda")).column("what", say("steps.what"));
  for (const auto& st : c.seen.steps)
    t.row({{"step", st.what},
           {"cuda", st.error.empty() ? report::Value{report::Undefined{}} : report::Value{st.error}},
           {"what", st.detail}});
  s.add(std::move(t));
  s.fact("destructor-calls", say("copy.destructor-calls"), static_cast<I>(c.seen.destructor_calls),
         report::Format::count, say("copy.frees-note", {{"ok", c.seen.frees_ok}, {"failed", c.seen.frees_failed}}));
  // The child's steps are in its language, which is this run's (it is started with --lang).
  const std::string launch_2 = say("copy.step-launch", {{"launch", 2}, {"call", ""}});
  for (const auto& st : c.seen.steps)
    if (st.what.rfind(launch_2, 0) == 0)
      s.fact("error-after-launch-2", say("copy.error-after-launch-2"), st.error, report::Format::plain,
             say(st.error.rfind("cudaSuccess", 0) == 0 ? "copy.no-error" : "copy.error-of-free"));
  s.fact("child-seconds", say("copy.child-seconds"), c.seconds, report::Format::plain, say("copy.child-seconds-note"));
  s.check("child-answered", say("copy.child-answered"), true,
          say("copy.first-launch", {{"count", count_text(c.seen.count1, c.seen.expected)}}));
  s.check("freed-while-used", say("copy.freed-while-used"), c.seen.frees_ok >= 1 && c.seen.destructor_calls >= 2,
          say("copy.freed-while-used-detail", {{"calls", c.seen.destructor_calls}}));
}

}  // namespace

report::Section copy_destructor_section(const CopyPart& p, bool gpu_run) {
  report::Section s("copy-destructor", say("copy.title"));
  s.paragraph(say("copy.about"));
  s.paragraph(say("copy.about-child"));
  if (!gpu_run) {
    s.note(say("copy.needs-gpu"));
    owner_fact(s);
    return s;
  }
  if (p.child) child_report(s, *p.child);
  if (!p.fixes_error.empty()) {
    s.check("still-runs-kernels", say("copy.still-runs-kernels"), false, p.fixes_error);
    return s;
  }
  report::Table f("fixes", say("copy.fixes-title", {{"grid", grid_text(kCopyBlocks, 1)}, {"iterations", kCopyIters}}));
  f.column("fix", say("copy.fix-column"))
      .column("count1", say("copy.launch-column", {{"launch", 1}}), report::Format::count)
      .column("count2", say("copy.launch-column", {{"launch", 2}}), report::Format::count)
      .column("frees", say("copy.frees-column"), report::Format::count)
      .column("frees-failed", say("copy.frees-failed-column"), report::Format::count)
      .column("copies", say("copy.copies-column"), report::Format::count);
  for (const auto& x : p.fixes)
    f.row({{"fix", x.name},
           {"count1", static_cast<I>(x.count1)},
           {"count2", static_cast<I>(x.count2)},
           {"frees", static_cast<I>(x.frees)},
           {"frees-failed", static_cast<I>(x.frees_failed)},
           {"copies", x.copies_made ? report::Value{static_cast<I>(x.copies_made)} : report::Value{report::Undefined{}}}},
          x.ok() ? report::RowMark::none : report::RowMark::mismatch);
  f.legend.push_back(say("copy.copies-legend"));
  s.add(std::move(f));
  bool all = !p.fixes.empty();
  for (std::size_t i = 0; i < p.fixes.size(); ++i) {
    const FixRun& x = p.fixes[i];
    all = all && x.ok();
    s.check("fix-" + std::to_string(i + 1) + "-frees-once", say("copy.fix-frees-once", {{"fix", x.name}}), x.ok(),
            say("copy.fix-detail",
                {{"count1", x.count1}, {"count2", x.count2}, {"expected", x.expected}, {"frees", x.frees}}));
  }
  s.check("still-runs-kernels", say("copy.still-runs-kernels"), all,
          say(all ? "copy.fixes-completed" : "copy.a-fix-failed"));
  owner_fact(s);
  s.fact("verdict", say("verdict"), say("copy.verdict"));
  return s;
}

report::Section copy_destructor_part(Run& run) {
  CopyPart p;
  if (run.copy_child) p.child = copy_outcome(run.copy_child->finish());
  else p.child = run.copy_start_failed;
  if (run.ctx.gpu) {
    try {
      p.fixes = gpu_copy_fixes(kCopyBlocks, kCopyIters, kCopyDeadlineNs);
    } catch (const Error& e) {
      p.fixes_error = e.what();
    }
  }
  return copy_destructor_section(p, run.ctx.gpu);
}

std::string copy_child(Run&) {
  try {
    return format_copy_observation(gpu_copy_bug(kCopyBlocks, kCopyIters, kCopyDeadlineNs));
  } catch (const Error& e) {
    return format_copy_error(e.what());
  }
}

}  // namespace cudasync::lock
