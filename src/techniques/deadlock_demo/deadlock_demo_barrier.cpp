// Parts divergent-syncthreads and syncwarp-mask: a hardware barrier reached by part of a block (or
// warp), run in a child process (the table's children), and the child's side of it.
#include <cstdlib>
#include <sstream>

#include "core/parts/child.hpp"
#include "core/report/text_format.hpp"
#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"
#include "techniques/deadlock_demo/deadlock_demo_judge.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_tables.hpp"

namespace cudasync::deadlock_demo {

using report::Format;
using report::Section;

namespace {

struct BarrierCase {
  int present = 0;  // threads (lanes) that reach the barrier
  BarrierVariant variant = BarrierVariant::rescue;
  ScenarioModel model;
};

// The cases in the order the child runs them: the one that may hang for good last.
std::vector<BarrierCase> barrier_cases(bool syncwarp) {
  const std::vector<std::pair<int, BarrierVariant>> cases =
      syncwarp ? std::vector<std::pair<int, BarrierVariant>>{{kSyncwarpPresent, BarrierVariant::rescue}}
               : std::vector<std::pair<int, BarrierVariant>>{{kSyncPresentWholeWarps, BarrierVariant::rescue},
                                                             {kSyncPresentWholeWarps, BarrierVariant::if_else},
                                                             {kSyncPresent, BarrierVariant::rescue}};
  std::vector<BarrierCase> out;
  for (const auto& [present, variant] : cases) out.push_back({present, variant, barrier_model(syncwarp, present, variant)});
  return out;
}

// "whole warps", "if / else", "inside a warp", "lanes 0-15": short, for fact titles.
std::string case_name(bool syncwarp, const BarrierCase& c) {
  if (syncwarp) return "lanes 0-" + std::to_string(c.present - 1);
  if (c.variant == BarrierVariant::if_else) return "if / else";
  return c.present % kWarpSize == 0 ? "whole warps" : "inside a warp";
}

// The same as an id: "whole-warps", "if-else", "inside-a-warp", "lanes-0-15".
std::string case_id(bool syncwarp, const BarrierCase& c) {
  if (syncwarp) return "lanes-0-" + std::to_string(c.present - 1);
  if (c.variant == BarrierVariant::if_else) return "if-else";
  return c.present % kWarpSize == 0 ? "whole-warps" : "inside-a-warp";
}

// The same, in full, for table titles.
std::string case_title(bool syncwarp, const BarrierCase& c) {
  const std::string last = std::to_string(c.present - 1);
  if (syncwarp) return "lanes 0-" + last + " of 32 call __syncwarp(0xffffffff)";
  if (c.variant == BarrierVariant::if_else)
    return "if / else: threads 0-" + last + " and " + std::to_string(c.present) + "-63 at two __syncthreads()";
  return case_name(false, c) + ": threads 0-" + last + " of 64 call __syncthreads()";
}

// What one case did on this GPU, from the child's records.
void add_observed_case(Section& s, const BarrierObservation& o, const BarrierCase& c, bool sw) {
  const Describe describe = barrier_child_describe(sw, c.variant);
  const std::string noun = sw ? "lane" : "thread", name = case_name(sw, c), id = case_id(sw, c);
  const auto records = barrier_records(o);
  add_gpu_ranges(s, records, describe, noun, "gpu-" + id,
                 "this GPU, " + case_title(sw, c) + " (times: arrived or gave up; left, or last seen)", "gpu-" + id,
                 "GPU, " + name);
  if (o.hung)
    s.fact("hung-" + id, "kernel, " + name, std::string("never ended"), Format::plain,
           "the child's watchdog waited " + std::to_string(o.watched_ms) +
               " ms (deadline + grace), read what the threads had written to host memory, and ended the child; its "
               "CUDA context went with it");
  const bool specified = as_specified(o, c.model, describe);
  s.fact("as-specified-" + id, "as the model reads it, " + name, specified, Format::plain,
         specified ? "what the barrier as specified would do"
                   : "not what the specified barrier would do: undefined behaviour, observed");
}

void add_child(Section& s, const StartedChild& started, const std::vector<BarrierCase>& cases, bool sw) {
  if (!started.process) {
    s.check("child-started", "the child process ran", false, "it could not be started: " + started.error);
    return;
  }
  const ChildOutcome c = child_outcome(started.process->finish());
  s.fact("child", "child process", std::string(to_string(c.status)), Format::plain,
         (c.status == ChildOutcome::Status::ok ? "" : c.message + "; ") + "ran " + report::fixed(c.seconds, 3) +
             " s, CUDA start-up included");
  const Verdict ended = child_ended(c);
  s.check("child-ended", "the child ended by itself, hung kernel or not, without this process's timeout", ended.passed,
          ended.detail);
  if (c.status != ChildOutcome::Status::ok) return;
  for (std::size_t k = 0; k < c.seen.size() && k < cases.size(); ++k) add_observed_case(s, c.seen[k], cases[k], sw);
  if (c.seen.size() < cases.size())
    s.note("the cases after a hung kernel were not run: the child's CUDA context was lost with it");
  s.fact("child-health", "child's health check",
         std::string(!c.health.ran ? "not run" : c.health.ok ? "passed" : "FAILED"), Format::plain, c.health.detail);
}

void add_sanitizer(Section& s, Run& run) {
  if (!run.sanitizer_missing.empty()) {
    s.fact("sanitize", "--sanitize", std::string("compute-sanitizer not found"), Format::plain,
           "looked in " + run.sanitizer_missing);
    s.note("--sanitize: compute-sanitizer was not found (looked in " + run.sanitizer_missing +
           "); install the CUDA toolkit's compute-sanitizer or put it on PATH");
    return;
  }
  if (!run.sanitizer) return;
  const SanitizerRun r = run.sanitizer->finish();
  s.fact("sanitize", "--sanitize: ran", r.command, Format::plain, r.result.describe());
  s.fact("sanitize-summary", "--sanitize: synccheck says", r.summary.empty() ? std::string("(no summary line)") : r.summary);
  report::Table t("synccheck", "compute-sanitizer --tool synccheck, its report");
  t.column("line", "line");
  std::istringstream in(r.log);
  int shown = 0, total = 0;
  for (std::string line; std::getline(in, line); ++total)
    if (shown < 40) t.row({{"line", line}}), ++shown;
  if (total > shown) t.legend.push_back(std::to_string(total - shown) + " more lines not shown");
  s.add(std::move(t));
}

}  // namespace

Section barrier_part(Run& run, bool sw) {
  const std::string noun = sw ? "lane" : "thread";
  Section s(sw ? "syncwarp-mask" : "divergent-syncthreads", "");
  if (sw) {
    s.title = "syncwarp-mask: __syncwarp(mask) whose mask names lanes that never arrive";
    s.paragraph(
        "Lanes 0-15 call __syncwarp(0xffffffff); lanes 16-31, named in that mask, wait for a flag lanes 0-15 set "
        "after it. The CUDA C++ Programming Guide (\"Synchronization Functions\", __syncwarp): each calling thread "
        "must have its own bit in the mask, and all non-exited threads named in the mask must execute a "
        "corresponding __syncwarp() with the same mask, or the result is undefined. The same holds for the mask of "
        "every *_sync intrinsic.");
  } else {
    s.title = "divergent-syncthreads: __syncthreads() reached by only part of a block";
    s.paragraph(
        "Part of a block of 64 calls __syncthreads(); the other threads wait for a flag the first set after it. "
        "Three cases: whole warps (threads 0-31 call it, warp 1 does not); if / else (threads 0-31 call one "
        "__syncthreads(), threads 32-63 another, at once: the common form of this bug); and a split inside a warp "
        "(threads 0-47: warp 1 is divided). The CUDA C++ Programming Guide (\"Synchronization Functions\"): "
        "__syncthreads() is allowed in conditional code only if the condition evaluates identically across the "
        "entire thread block, otherwise the code execution is likely to hang or produce unintended side effects. "
        "__syncthreads() is bar.sync, the aligned barrier: the PTX ISA lets it be used only where every thread "
        "executes the same barrier instruction.");
  }
  s.paragraph(
      "A hardware barrier has no deadline, so the kernels run in a child process of this binary. The " + noun +
      "s that do not reach the barrier wait for the flag with a deadline; when it passes they call " +
      std::string(sw ? "__syncwarp(0xffffffff)" : "barrier.sync 0 (the unaligned form, which may be used in "
                                                  "divergent code)") +
      " themselves (the rescue). Every " + noun + " writes what it does to host memory as it goes, and the child "
      "watches each kernel: if one has not ended a little after the deadline, it is hung, and the child reports "
      "what was written and ends itself. What this GPU did is read from those records: observed, not promised.");
  const auto cases = barrier_cases(sw);
  for (const auto& c : cases) {
    const std::string name = case_name(sw, c), id = case_id(sw, c);
    s.add(steps_table(c.model.steps, "schedule-" + id,
                      "the model's schedule, " + case_title(sw, c) + ", as the guide specifies the barrier"));
    s.fact("model-" + id, "model, " + name, ranges_text(fold(c.model.records, barrier_child_describe(sw, c.variant)), noun));
    if (!c.model.deadlock) continue;  // if / else: nobody waits for a thread that is not coming
    const std::string cycle = c.model.graph.cycle_text();
    s.fact("cycle-" + id, "cycle, " + name, cycle);
    s.check("model-" + id + "-deadlocks",
            "reference model, " + name + ": as specified, the barrier and the flag wait for each other", !cycle.empty(),
            cycle);
  }
  if (!sw)
    s.fact("synccheck-command", "compute-sanitizer", synccheck_command_text(), Format::plain,
           "synccheck looks for barriers used wrongly; --sanitize runs it here");
  if (!run.ctx.gpu) {
    s.fact("gpu", "this GPU", report::NeedsGpu{}, Format::plain,
           "what the hardware does here is undefined; only a run says");
    return s;
  }
  add_child(s, sw ? run.warp_child : run.sync_child, cases, sw);
  add_health(s, gpu_health(), sw ? "syncwarp-mask" : "divergent-syncthreads");
  if (!sw && run.options.sanitize) add_sanitizer(s, run);
  return s;
}

std::string barrier_child(Run& run, bool syncwarp) {
  // A hung kernel: write what the threads recorded so far and end at once. No destructor and no CUDA
  // call may run any more: each would wait for the kernel, forever.
  const std::string out = run.child_out;
  const OnHang on_hang = [out](const std::vector<BarrierObservation>& cases) {
    Health none;
    none.detail = "not run: a kernel never ended, and every CUDA call would wait for it";
    try {
      parts::write_child_answer(out, format_observations(cases, none));
    } catch (const Error&) {
      std::_Exit(2);
    }
    std::_Exit(0);
  };
  try {
    const unsigned long long ns = run.deadline_ns();
    const int grace = run.options.child_grace_ms;
    const auto cases = syncwarp ? gpu_syncwarp_mask(ns, grace, on_hang) : gpu_divergent_syncthreads(ns, grace, on_hang);
    return format_observations(cases, gpu_health());
  } catch (const Error& e) {
    return format_child_error(e.what());
  }
}

}  // namespace cudasync::deadlock_demo
