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
  report::Table t("ownership", "the ownership model: callKernel() replayed with each way of holding the mutex");
  t.column("holding", "the mutex held by")
      .column("frees", "cudaFree", report::Format::count)
      .column("frees-of-freed", "of freed", report::Format::count)
      .column("launches-on-freed", "launches on freed", report::Format::count)
      .column("use-count", "owners", report::Format::count);
  for (const OwnershipRun* r : {&p.by_value, &p.shared})
    t.row({{"holding", std::string(r->config.holding == Holding::by_value ? "CudaKernelLock, by value"
                                                                           : "shared_ptr<Mutex> (fix 2)")},
           {"frees", static_cast<I>(r->frees)},
           {"frees-of-freed", static_cast<I>(r->frees_of_freed)},
           {"launches-on-freed", static_cast<I>(r->launches_on_freed)},
           {"use-count", r->config.holding == Holding::shared_mutex ? report::Value{static_cast<I>(r->use_count_max)}
                                                                   : report::Value{report::Undefined{}}}});
  t.legend.push_back("cudaFree: calls on the mutex; of freed: on a pointer already freed; owners: the most at once");
  t.legend.push_back("each launch statement copies its argument once here and destroys the copy as it returns; a");
  t.legend.push_back("launch whose mutex is freed by then may run its kernel on a freed pointer");
  return t;
}

}  // namespace

report::Section shared_mutex_section(const SharedMutexPart& p, bool gpu_run) {
  report::Section s("shared-mutex", "part 6, a shared Mutex: the blog's fix 2 for the by-value copy");
  s.paragraph(
      "Part 5's bug is ownership: every copy of CudaKernelLock thinks it owns the mutex and frees it. The blog's "
      "fix 2 moves the allocation into a class of its own, Mutex (cudaMalloc in its constructor, cudaFree in its "
      "destructor), and gives every CudaKernelLock a std::shared_ptr<Mutex>. Copying a lock, as every launch "
      "statement does, only adds one to the shared use count; destroying a copy takes it back; the Mutex, and "
      "with it the cudaFree, goes when the last lock object does. Device code cannot call shared_ptr's members, "
      "so the kernel uses mutex_ptr, a raw copy of the pointer.");
  s.paragraph(
      "The run: the blog's callKernel() with this class, GtThrCntKernel" + grid_text(p.blocks, 1) + " x " +
      std::to_string(p.iters) +
      " acquisitions, the lock passed by value to two launches; then a copy, keeper, is made, the original "
      "lock_ is destroyed, and keeper runs a third launch before it goes too. The blog's code declares "
      "Mutex::mutex private and reads mutex->mutex from CudaKernelLock, which does not compile; here it is "
      "public. compute-sanitizer --tool memcheck on this part is how to see that no kernel touched freed memory.");
  s.add(ownership_table(p));
  s.check("model-by-value-frees-early", "ownership model: by value, a copy frees the mutex while lock_ still uses it",
          p.by_value.launches_on_freed > 0 && p.by_value.frees_of_freed > 0,
          std::to_string(p.by_value.frees) + " cudaFree calls, " + std::to_string(p.by_value.frees_of_freed) +
              " of a freed pointer; " + std::to_string(p.by_value.launches_on_freed) + " launches on a freed mutex");
  s.check("model-shared-frees-once", "ownership model: the shared Mutex is freed once, after the last owner",
          p.shared.frees_once(),
          std::to_string(p.shared.frees) + " cudaFree, " + std::to_string(p.shared.launches_on_freed) +
              " launches on a freed mutex, at most " + std::to_string(p.shared.use_count_max) + " owners at once");
  if (!gpu_run) {
    s.note("what CUDA does with the class needs a GPU; the model above is plain C++ over a pretend heap");
    s.fact("verdict", "verdict",
           std::string("in the model the shared Mutex is freed once, after its last owner; the GPU run needs a GPU"));
    return s;
  }
  if (!p.gpu) {
    s.check("gpu-ran", "the GPU run completed", false, p.gpu_error);
    return s;
  }
  const SharedMutexRun& g = *p.gpu;
  report::Table t("steps", "the GPU run, step by step");
  t.column("step", "step").column("cuda", "CUDA answered").column("what", "what happened");
  for (const auto& st : g.steps)
    t.row({{"step", st.what},
           {"cuda", st.error.empty() ? report::Value{report::Undefined{}} : report::Value{st.error}},
           {"what", st.detail}});
  s.add(std::move(t));
  std::string copies;
  for (int c : g.copies) copies += (copies.empty() ? "" : ", ") + std::to_string(c);
  s.fact("copies", "copies each launch statement made", copies, report::Format::plain,
         "each one a shared owner for as long as the statement ran");
  s.fact("use-count-max", "most owners at once", static_cast<I>(g.use_count_max), report::Format::count,
         "shared_ptr's use_count, seen in the copy constructor");
  const Verdict counts = shared_mutex_counts(g), alive = shared_mutex_alive(g), once = shared_mutex_frees_once(g, p.shared);
  s.check("count-exact", "every launch counted exactly", counts.passed, counts.detail);
  s.check("mutex-alive", "the mutex stayed a device allocation while a lock held it", alive.passed, alive.detail);
  s.agreement("gpu-agrees", "the Mutex freed once, by the last owner, and the free succeeded", once.passed, once.detail);
  s.fact("verdict", "verdict",
         counts.passed && alive.passed && once.passed
             ? std::string("shared ownership fixes the by-value copy: exact counts, the mutex alive for every launch, "
                           "one cudaFree when the last lock object went")
             : std::string("the shared Mutex did not behave as the model says: see the checks"));
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
