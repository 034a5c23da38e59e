// Part lock-order: two blocks take locks A and B in opposite orders (AB / BA), with the window
// between them made certain; the fix is one global order.
#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_tables.hpp"
#include "techniques/deadlock_demo/deadlock_demo_trace.hpp"

namespace cudasync::deadlock_demo {

using report::Format;
using I = std::int64_t;

report::Section lock_order_part(Run& run) {
  const LockOrderModel m = lock_order_model();
  report::Section s("lock-order", "lock-order: two blocks take two locks in opposite orders (AB / BA)");
  s.paragraph(
      "Block 0 takes lock A, then B; block 1 takes B, then A. Whether they deadlock depends on timing: it happens "
      "when each holds its first lock before the other tries its second. Here each block waits (with a deadline) "
      "until the other holds its first lock, so the bad interleaving happens every run. Of the four conditions for "
      "a deadlock (Coffman et al., 1971: mutual exclusion, hold and wait, no preemption, circular wait) the fix "
      "removes the circular wait: one global order, A before B, for everybody.");
  s.add(program_table(m.broken.result.machine, "program"));
  s.add(trace_table(m.broken, "trace", "trace: the two blocks, each as one independent lane"));
  const Describe describe = lock_order_describe();
  add_model_facts(s, m.m, describe, "block");
  add_model_checks(s, m.m, true);
  s.fact("model-fix", "model: the fix", verdict(m.fixed), Format::plain, m.m.fix_result);
  const char* launch_title = "the AB / BA launch, until both gave up";
  if (!run.ctx.gpu) {
    s.add(steps_table(m.m.fix_steps, "fix", "the fix: one global order"));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const LockOrderRun g = gpu_lock_order(run.deadline_ns(), kLockOrderIters);
  add_gpu_ranges(s, g.records, describe, "block", "gpu-blocks", "this GPU: what each block did", "gpu-stuck",
                 "this GPU: who was stuck");
  s.fact("handshake", "first locks both held", g.handshake, Format::plain,
         g.handshake ? "before either block tried its second"
                     : "a block never saw the other holding its lock: the window was not made");
  s.add(launch_time("launch", launch_title, g.ms, "CUDA events"));
  const Verdict ended = ended_at_deadline(g.records, g.timed_out, run.options.deadline_ms, "block");
  s.check("ended", "the deadlock ended at its deadline, and every block said where it was", ended.passed,
          ended.detail);
  const Verdict agree = stuck_agreement(g.records, m.m.records, describe, "block");
  s.agreement("gpu-agrees", "who was stuck, and on what", agree.passed, agree.detail);
  const std::string rounds = "of " + std::to_string(g.expected) + ": 2 blocks x " + std::to_string(g.iters) +
                             " rounds, each counter guarded by both locks";
  s.fact("fix-count-a", "fix (both take A, then B): first counter", I{g.count_a}, Format::count, rounds);
  s.fact("fix-count-b", "fix (both take A, then B): second counter", I{g.count_b}, Format::count, rounds);
  const Verdict exact = fix_counts_exact(g);
  s.check("fix-exact", "the fix (one global order) completes with exact counts", exact.passed, exact.detail);
  add_health(s, gpu_health(), "lock-order");
  return s;
}

}  // namespace cudasync::deadlock_demo
