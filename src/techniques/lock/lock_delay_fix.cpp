// Part delay-fix: the blog's first remedy for stale reads, "add a delay after the increment", run
// at several delays and in two places beside the book's lock with no delay and the two real fixes.
// The model shows why no delay can help: the stale line stays in this SM's L1 however long the
// block waits, and in one lockstep warp the delay leaves the deadlock of part 2 where it was.
#include "core/report/text_format.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

namespace {

using I = std::int64_t;

bool is_delay(Variant v) { return v == Variant::delay_after || v == Variant::delay_before; }
bool is_fence_fix(Variant v) { return v == Variant::fenced || v == Variant::acq_rel; }

std::string row_name(const DelayRow& r) {
  if (r.variant == Variant::delay_after) return say("delay.row-after", {{"delay", delay_text(r.delay_ns)}});
  if (r.variant == Variant::delay_before) return say("delay.row-before", {{"delay", delay_text(r.delay_ns)}});
  if (r.variant == Variant::book) return say("delay.row-book");
  if (r.variant == Variant::fenced) return say("delay.row-fix-2");
  return say("delay.row-fix-3");
}

// The fixes' ids, as part 3 names them.
std::string fix_id(Variant v) { return v == Variant::fenced ? "fix-2" : "fix-3"; }

// The row's name as an id, what an exercise selects it by: "delay-10us-after", "no-delay", "fix-2".
std::string row_id(const DelayRow& r) {
  if (r.variant == Variant::delay_after) return "delay-" + delay_id(r.delay_ns) + "-after";
  if (r.variant == Variant::delay_before) return "delay-" + delay_id(r.delay_ns) + "-before";
  if (r.variant == Variant::book) return "no-delay";
  return fix_id(r.variant);
}

}  // namespace

report::Section delay_fix_section(const DelayPart& p, bool gpu_run) {
  report::Section s("delay-fix", say("delay.title"));
  s.paragraph(say("delay.about"));
  s.paragraph(say("delay.about-rows", {{"times", p.runs == 1 ? say("runs-once") : say("runs-times", {{"runs", p.runs}})},
                                       {"grid", grid_text(p.spec.blocks, 1)},
                                       {"iterations", p.spec.iters}}));
  report::Table t("delays", say("delay.table-title"));
  t.column("variant", say("variant-column"))
      .column("lost", say("delay.lost-column"), report::Format::count)
      .column("share", say("delay.share-column"), report::Format::percent)
      .column("ns", say("delay.ns-column"), report::Format::ns)
      .column("model-count", say("model-count-column"), report::Format::count)
      .column("model-stale", say("delay.stale-column"), report::Format::count)
      .column("variant-id", say("id-column"));
  std::vector<DelayRuns> delayed;
  std::vector<std::vector<LockRun>> fixes;
  for (const auto& row : p.rows) {
    std::vector<std::pair<std::string, report::Value>> cells{{"variant", row_name(row)},
                                                             {"model-count", static_cast<I>(row.model.count)},
                                                             {"model-stale", static_cast<I>(row.model.stale_reads)},
                                                             {"variant-id", row_id(row)}};
    const report::RowMark mark = add_lost_cells(cells, row.gpu, gpu_run, is_fence_fix(row.variant), false);
    t.row(cells, mark);
    if (is_delay(row.variant)) delayed.push_back({row.delay_ns, row.gpu});
    if (is_fence_fix(row.variant)) fixes.push_back(row.gpu);
  }
  t.legend.push_back(say("delay.legend-gpu"));
  t.legend.push_back(say("delay.legend-model"));
  t.legend.push_back(say("delay.legend-delay"));
  s.add(std::move(t));
  s.add(program_table(Protocol::delay_after));
  s.add(trace_table(p.trace, "trace", say("delay.trace-title"), true));
  if (!p.trace.first_stale.empty())
    s.fact("how-lost", say("delay.how-lost"), p.trace.first_stale, report::Format::plain, say("delay.how-lost-note"));
  bool any_delay = false, model_loses = true;
  std::string delayed_model;
  for (const auto& row : p.rows) {
    if (is_delay(row.variant)) {
      any_delay = true;
      model_loses = model_loses && row.model.stale_reads > 0 && row.model.count < row.model.expected;
      if (delayed_model.empty()) delayed_model = model_outcome_text(row.model);
    }
    if (!is_fence_fix(row.variant)) continue;
    s.check("model-" + fix_id(row.variant), say("check.model-loses-nothing", {{"variant", variant_name(row.variant)}}),
            row.model.exact() && row.model.stale_reads == 0, model_outcome_text(row.model));
    if (gpu_run) {
      const Verdict v = runs_exact(row.gpu);
      s.agreement("gpu-agrees-" + fix_id(row.variant),
                  say("check.every-count-exact", {{"variant", variant_name(row.variant)}}), v.passed, v.detail);
    }
  }
  if (any_delay) s.check("model-delay-loses", say("delay.check-loses"), model_loses, delayed_model);
  if (p.lockstep)
    s.check("model-delay-deadlocks", say("delay.check-deadlocks"), p.lockstep->outcome == Outcome::deadlock,
            p.lockstep->holder.empty() ? model_outcome_text(*p.lockstep) : p.lockstep->holder);
  if (gpu_run) {
    const DelayFinding f = delay_finding(delayed, fixes);
    s.fact("delay-lost", say("delay.lost-fact"), static_cast<I>(f.lost.lost), report::Format::count,
           say("delay.lost-fact-note", {{"total", report::grouped(static_cast<std::uint64_t>(f.lost.total))}}));
    s.fact("verdict", say("verdict"), delay_verdict(f));
  } else {
    s.fact("verdict", say("verdict"), say("delay.verdict-model"));
  }
  return s;
}

report::Section delay_fix_part(Run& run) {
  DelayPart p;
  p.spec.blocks = run.options.blocks.value_or(kDelayBlocks);
  p.spec.threads = 1;
  p.spec.iters = run.options.iterations.value_or(kDelayIters);
  p.runs = run.options.runs.value_or(kDelayRuns);
  const std::vector<int> delays = run.options.delays.value_or(kDefaultDelaysNs);
  std::vector<std::pair<Variant, unsigned>> rows{{Variant::book, 0}};
  for (int d : delays) rows.emplace_back(Variant::delay_after, static_cast<unsigned>(d));
  for (int d : delays) rows.emplace_back(Variant::delay_before, static_cast<unsigned>(d));
  rows.emplace_back(Variant::fenced, 0);
  rows.emplace_back(Variant::acq_rel, 0);
  for (const auto& [v, ns] : rows) {
    DelayRow row;
    row.variant = v;
    row.delay_ns = ns;
    row.model = sim(protocol_of(v), Regime::independent, 2, 1, 2);
    if (run.ctx.gpu) {
      RunSpec spec = RunSpec::of(v, p.spec.blocks, 1, p.spec.iters);
      spec.delay_ns = ns;
      spec.deadline_ns += static_cast<unsigned long long>(spec.acquisitions()) * ns;  // every holder's delay
      row.gpu = gpu_runs(spec, p.runs, false);
    }
    p.rows.push_back(std::move(row));
  }
  p.trace = sim(Protocol::delay_after, Regime::independent, 2, 1, 2, kTraceRows);
  p.lockstep = sim(Protocol::delay_after, Regime::lockstep, 1, 4, 1);
  return delay_fix_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock
