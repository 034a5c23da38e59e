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
  report::Section s("lock-order", say("lock-order.title"));
  s.paragraph(say("lock-order.about"));
  s.add(program_table(m.broken.result.machine, "program"));
  s.add(trace_table(m.broken, "trace", say("lock-order.trace-title")));
  const Describe describe = lock_order_describe();
  add_model_facts(s, m.m, describe, "block");
  add_model_checks(s, m.m, true);
  s.fact("model-fix", say("lock-order.model-fix"), verdict(m.fixed), Format::plain, m.m.fix_result);
  const std::string launch_title = say("lock-order.launch-title");
  if (!run.ctx.gpu) {
    s.add(steps_table(m.m.fix_steps, "fix", say("lock-order.fix-title")));
    s.add(launch_time("launch", launch_title, std::nullopt));
    return s;
  }
  const LockOrderRun g = gpu_lock_order(run.deadline_ns(), kLockOrderIters);
  add_gpu_ranges(s, g.records, describe, "block", "gpu-blocks", say("lock-order.gpu-blocks"), "gpu-stuck",
                 say("gpu.who-was-stuck"));
  s.fact("handshake", say("lock-order.handshake"), g.handshake, Format::plain,
         say(g.handshake ? "lock-order.handshake-made" : "lock-order.handshake-missed"));
  s.add(launch_time("launch", launch_title, g.ms, say("gpu.cuda-events")));
  const Verdict ended = ended_at_deadline(g.records, g.timed_out, run.options.deadline_ms, "block");
  s.check("ended", say("checks.ended-block"), ended.passed, ended.detail);
  const Verdict agree = stuck_agreement(g.records, m.m.records, describe, "block");
  s.agreement("gpu-agrees", say("gpu.agrees"), agree.passed, agree.detail);
  const std::string rounds = say("lock-order.rounds", {{"expected", g.expected}, {"iters", g.iters}});
  s.fact("fix-count-a", say("lock-order.fix-count-a"), I{g.count_a}, Format::count, rounds);
  s.fact("fix-count-b", say("lock-order.fix-count-b"), I{g.count_b}, Format::count, rounds);
  const Verdict exact = fix_counts_exact(g);
  s.check("fix-exact", say("lock-order.fix-exact"), exact.passed, exact.detail);
  add_health(s, gpu_health(), "lock-order");
  return s;
}

}  // namespace cudasync::deadlock_demo
