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
  if (syncwarp) return span_text(0, c.present - 1, "lane");
  if (c.variant == BarrierVariant::if_else) return "if / else";
  return say(c.present % kWarpSize == 0 ? "barrier.whole-warps" : "barrier.inside-a-warp");
}

// The same as an id: "whole-warps", "if-else", "inside-a-warp", "lanes-0-15".
std::string case_id(bool syncwarp, const BarrierCase& c) {
  if (syncwarp) return "lanes-0-" + std::to_string(c.present - 1);
  if (c.variant == BarrierVariant::if_else) return "if-else";
  return c.present % kWarpSize == 0 ? "whole-warps" : "inside-a-warp";
}

// The same, in full, for table titles.
std::string case_title(bool syncwarp, const BarrierCase& c) {
  const int last = c.present - 1;
  if (syncwarp) return say("barrier.case-syncwarp", {{"last", last}});
  if (c.variant == BarrierVariant::if_else) return say("barrier.case-if-else", {{"last", last}, {"present", c.present}});
  return say("barrier.case-syncthreads", {{"name", case_name(false, c)}, {"last", last}});
}

// What one case did on this GPU, from the child's records.
void add_observed_case(Section& s, const BarrierObservation& o, const BarrierCase& c, bool sw) {
  const Describe describe = barrier_child_describe(sw, c.variant);
  const std::string noun = sw ? "lane" : "thread", name = case_name(sw, c), id = case_id(sw, c);
  const auto records = barrier_records(o);
  add_gpu_ranges(s, records, describe, noun, "gpu-" + id, say("barrier.gpu-case", {{"case", case_title(sw, c)}}),
                 "gpu-" + id, say("barrier.gpu-name", {{"name", name}}));
  if (o.hung)
    s.fact("hung-" + id, say("barrier.kernel-name", {{"name", name}}), say("barrier.never-ended"), Format::plain,
           say("barrier.hung-note", {{"ms", o.watched_ms}}));
  const bool specified = as_specified(o, c.model, describe);
  s.fact("as-specified-" + id, say("barrier.as-specified", {{"name", name}}), specified, Format::plain,
         say(specified ? "barrier.as-specified-yes" : "barrier.as-specified-no"));
}

void add_child(Section& s, const StartedChild& started, const std::vector<BarrierCase>& cases, bool sw) {
  if (!started.process) {
    s.check("child-started", say("barrier.child-ran-check"), false, say("barrier.child-not-started", {{"error", started.error}}));
    return;
  }
  const ChildOutcome c = child_outcome(started.process->finish());
  const std::string seconds = report::fixed(c.seconds, 3);
  s.fact("child", say("barrier.child"), std::string(to_string(c.status)), Format::plain,
         c.status == ChildOutcome::Status::ok
             ? say("barrier.child-time", {{"seconds", seconds}})
             : say("barrier.child-time-message", {{"message", c.message}, {"seconds", seconds}}));
  const Verdict ended = child_ended(c);
  s.check("child-ended", say("barrier.child-ended"), ended.passed, ended.detail);
  if (c.status != ChildOutcome::Status::ok) return;
  for (std::size_t k = 0; k < c.seen.size() && k < cases.size(); ++k) add_observed_case(s, c.seen[k], cases[k], sw);
  if (c.seen.size() < cases.size()) s.note(say("barrier.cases-not-run"));
  s.fact("child-health", say("barrier.child-health"),
         say(!c.health.ran ? "barrier.health-not-run" : c.health.ok ? "health.passed" : "health.failed"), Format::plain,
         c.health.detail);
}

void add_sanitizer(Section& s, Run& run) {
  if (!run.sanitizer_missing.empty()) {
    s.fact("sanitize", "--sanitize", say("barrier.sanitizer-not-found"), Format::plain,
           say("barrier.looked-in", {{"where", run.sanitizer_missing}}));
    s.note(say("barrier.sanitizer-missing-note", {{"where", run.sanitizer_missing}}));
    return;
  }
  if (!run.sanitizer) return;
  const SanitizerRun r = run.sanitizer->finish();
  s.fact("sanitize", say("barrier.sanitize-ran"), r.command, Format::plain, r.result.describe());
  s.fact("sanitize-summary", say("barrier.sanitize-says"), r.summary.empty() ? say("barrier.no-summary") : r.summary);
  report::Table t("synccheck", say("barrier.synccheck-title"));
  t.column("line", say("barrier.line"));
  std::istringstream in(r.log);
  int shown = 0, total = 0;
  for (std::string line; std::getline(in, line); ++total)
    if (shown < 40) t.row({{"line", line}}), ++shown;
  if (total > shown) t.legend.push_back(say("barrier.more-lines", {{"count", total - shown}}));
  s.add(std::move(t));
}

}  // namespace

Section barrier_part(Run& run, bool sw) {
  const std::string noun = sw ? "lane" : "thread";
  Section s(sw ? "syncwarp-mask" : "divergent-syncthreads", "");
  if (sw) {
    s.title = say("barrier.syncwarp-title");
    s.paragraph(say("barrier.syncwarp-about"));
  } else {
    s.title = say("barrier.syncthreads-title");
    s.paragraph(say("barrier.syncthreads-about"));
  }
  s.paragraph(say(sw ? "barrier.child-about-syncwarp" : "barrier.child-about-syncthreads"));
  const auto cases = barrier_cases(sw);
  for (const auto& c : cases) {
    const std::string name = case_name(sw, c), id = case_id(sw, c);
    s.add(steps_table(c.model.steps, "schedule-" + id, say("barrier.schedule-title", {{"case", case_title(sw, c)}})));
    s.fact("model-" + id, say("barrier.model-name", {{"name", name}}),
           ranges_text(fold(c.model.records, barrier_child_describe(sw, c.variant)), noun));
    if (!c.model.deadlock) continue;  // if / else: nobody waits for a thread that is not coming
    const std::string cycle = c.model.graph.cycle_text();
    s.fact("cycle-" + id, say("barrier.cycle-name", {{"name", name}}), cycle);
    // Who waits at the barrier, as lanes ("0-47"): the cycle's words as data.
    s.fact("at-barrier-" + id, say("barrier.at-barrier-name", {{"nouns", nouns_word(noun)}, {"name", name}}),
           c.present == 1 ? std::string("0") : "0-" + std::to_string(c.present - 1));
    s.check("model-" + id + "-deadlocks", say("barrier.model-deadlocks", {{"name", name}}), !cycle.empty(), cycle);
  }
  if (!sw)
    s.fact("synccheck-command", "compute-sanitizer", synccheck_command_text(), Format::plain,
           say("barrier.synccheck-note"));
  if (!run.ctx.gpu) {
    s.fact("gpu", say("gpu.this-gpu"), report::NeedsGpu{}, Format::plain, say("barrier.gpu-note"));
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
    none.detail = say("barrier.health-not-run-hung");
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
