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
  s.fact("owner", "an owner that cannot be copied",
         std::string("MutexOwner: copy constructor deleted, move allowed; kernels take MutexRef, a plain pointer "
                     "(static_assert'ed when the kernels compile)"),
         report::Format::plain, "kernel<<<g, b>>>(owner) does not compile");
}

void child_report(report::Section& s, const CopyOutcome& c) {
  if (c.status != CopyOutcome::Status::ok) {
    const bool answered = c.status == CopyOutcome::Status::cuda_error;
    s.check("child-answered", "nothing hung: the child process answered", answered,
            answered ? "the child stopped at: " + c.message : c.message);
    return;
  }
  report::Table t("child", "the child process: the blog's callKernel(), step by step (" + grid_text(kCopyBlocks, 1) +
                               " x " + std::to_string(kCopyIters) + ")");
  t.column("step", "step").column("cuda", "CUDA answered").column("what", "what happened");
  for (const auto& st : c.seen.steps)
    t.row({{"step", st.what},
           {"cuda", st.error.empty() ? report::Value{report::Undefined{}} : report::Value{st.error}},
           {"what", st.detail}});
  s.add(std::move(t));
  s.fact("destructor-calls", "~CudaKernelLock() calls for one object", static_cast<I>(c.seen.destructor_calls),
         report::Format::count,
         std::to_string(c.seen.frees_ok) + " cudaFree succeeded, " + std::to_string(c.seen.frees_failed) + " failed");
  for (const auto& st : c.seen.steps)
    if (st.what.rfind("launch 2", 0) == 0)
      s.fact("error-after-launch-2", "the blog's cudaGetLastError() after launch 2", st.error, report::Format::plain,
             st.error.rfind("cudaSuccess", 0) == 0
                 ? "no error"
                 : "the error of the destructor's cudaFree, not of the launch: cudaGetLastError returns the last "
                   "error of any runtime call");
  s.fact("child-seconds", "child process, s", c.seconds, report::Format::plain, "CUDA start-up included");
  s.check("child-answered", "nothing hung: the child process answered", true,
          "first launch: count " + count_text(c.seen.count1, c.seen.expected));
  s.check("freed-while-used", "the by-value launch freed the mutex while lock_ still used it",
          c.seen.frees_ok >= 1 && c.seen.destructor_calls >= 2,
          std::to_string(c.seen.destructor_calls) + " destructor calls for one lock_ object");
}

}  // namespace

report::Section copy_destructor_section(const CopyPart& p, bool gpu_run) {
  report::Section s("copy-destructor", "part 5, copy and destructor: the lock class passed by value");
  s.paragraph(
      "The blog's callKernel() creates one CudaKernelLock and passes it by value to two launches; its destructor "
      "calls cudaFree(mutex). The blog says the kernel's copy is destroyed \"when the kernel exits\". What the CUDA "
      "C++ Programming Guide says (\"__global__ Function Argument Processing\"): the launch copies the argument "
      "into compiler-generated stub functions one or more times and memcpy's its bytes to the kernel, and a "
      "non-trivial destructor may run in host code, as the stubs return, even before the kernel has finished. So "
      "the first launch statement already frees the mutex, and every later copy frees it again.");
  s.paragraph(
      "A freed pointer handed to a kernel can fault, and a fault leaves a CUDA context unusable. So this part runs "
      "in a child process (this binary, started with a hidden option); the parent waits for it with a timeout and "
      "then runs the blog's fixes 1 and 3 (fix 2 is part 6) and an owner whose copy is deleted, in its own, healthy context.");
  if (!gpu_run) {
    s.note("what the destructors and CUDA do needs a GPU; the text above is what the CUDA guide says");
    owner_fact(s);
    return s;
  }
  if (p.child) child_report(s, *p.child);
  if (!p.fixes_error.empty()) {
    s.check("still-runs-kernels", "this process still runs kernels after the child", false, p.fixes_error);
    return s;
  }
  report::Table f("fixes", "the fixes, in this process after the child: two launches each (" +
                               grid_text(kCopyBlocks, 1) + " x " + std::to_string(kCopyIters) + ")");
  f.column("fix", "fix")
      .column("count1", "launch 1", report::Format::count)
      .column("count2", "launch 2", report::Format::count)
      .column("frees", "cudaFree(mutex) calls", report::Format::count)
      .column("frees-failed", "of them failed", report::Format::count)
      .column("copies", "copies made by the launches", report::Format::count);
  for (const auto& x : p.fixes)
    f.row({{"fix", x.name},
           {"count1", static_cast<I>(x.count1)},
           {"count2", static_cast<I>(x.count2)},
           {"frees", static_cast<I>(x.frees)},
           {"frees-failed", static_cast<I>(x.frees_failed)},
           {"copies", x.copies_made ? report::Value{static_cast<I>(x.copies_made)} : report::Value{report::Undefined{}}}},
          x.ok() ? report::RowMark::none : report::RowMark::mismatch);
  f.legend.push_back("copies: shared_ptr copies made by the launch statements (each adds to use_count and takes "
                     "it back; only the last owner frees)");
  s.add(std::move(f));
  bool all = !p.fixes.empty();
  for (std::size_t i = 0; i < p.fixes.size(); ++i) {
    const FixRun& x = p.fixes[i];
    all = all && x.ok();
    s.check("fix-" + std::to_string(i + 1) + "-frees-once", x.name + ": both launches exact, the mutex freed once",
            x.ok(),
            "counts " + std::to_string(x.count1) + ", " + std::to_string(x.count2) + " of " +
                std::to_string(x.expected) + "; " + std::to_string(x.frees) + " cudaFree");
  }
  s.check("still-runs-kernels", "this process still runs kernels after the child", all,
          all ? "every fix's launches completed in this process's context" : "a fix failed");
  owner_fact(s);
  s.fact("verdict", "verdict",
         std::string("passing the owner by value is the bug; pass a view that owns nothing, and let one owner that "
                     "cannot be copied free the mutex once"));
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
