// Parts stale-reads and delay-fix: *cnt = *cnt + 1 under the lock with no fence. A block's L1 keeps
// the counter's line from its last critical section; the blog's fixes, and the SASS they compile
// to. Then the blog's first remedy, "add a delay after the increment", run at several delays and in
// two places beside the book's lock with no delay and the two real fixes. The model shows why no
// delay can help: the stale line stays in this SM's L1 however long the block waits, and in one
// lockstep warp the delay leaves the deadlock of part 2 where it was.
#include <algorithm>

#include "core/kernel_listing.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lock/lesson.hpp"

namespace cudasync::lock {

namespace {

using I = std::int64_t;

bool is_stale_read_fix(Variant v) { return v == Variant::book_atomic_add || v == Variant::fenced || v == Variant::acq_rel; }

const char* variant_id(Variant v) {
  switch (v) {
    case Variant::book_atomic_add: return "fix-1";
    case Variant::fenced: return "fix-2";
    case Variant::acq_rel: return "fix-3";
    default: return "book";
  }
}

}  // namespace

report::RowMark add_lost_cells(std::vector<std::pair<std::string, report::Value>>& cells,
                               const std::vector<LockRun>& gpu, bool gpu_run, bool must_be_exact, bool runs_losing) {
  if (!gpu_run) {
    for (const char* k : {"lost", "share", "runs-losing", "ns"})
      if (runs_losing || std::string(k) != "runs-losing") cells.emplace_back(k, report::NeedsGpu{});
    return report::RowMark::none;
  }
  if (gpu.empty()) return report::RowMark::none;
  const Lost l = lost_updates(gpu);
  if (l.stuck) cells.emplace_back("lost", say("stale.lost-stuck"));
  else cells.insert(cells.end(), {{"lost", static_cast<I>(l.lost)},
                                  {"share", static_cast<double>(l.lost) / static_cast<double>(l.total)}});
  if (runs_losing) cells.emplace_back("runs-losing", static_cast<I>(l.losing));
  cells.emplace_back("ns", report::median(ns_samples(gpu)));
  return must_be_exact && (l.lost != 0 || l.stuck) ? report::RowMark::mismatch : report::RowMark::none;
}

report::Section stale_reads_section(const StalePart& p, bool gpu_run) {
  report::Section s("stale-reads", say("stale.title"));
  s.paragraph(say("stale.about"));
  s.paragraph(say("stale.about-runs", {{"times", p.runs == 1 ? say("runs-once") : say("runs-times", {{"runs", p.runs}})},
                                      {"grid", grid_text(p.spec.blocks, 1)},
                                      {"iterations", p.spec.iters}}));
  report::Table t("variants", say("stale.variants-title"));
  t.column("variant", say("variant-column"))
      .column("lost", say("stale.lost-column"), report::Format::count)
      .column("share", say("stale.share-column"), report::Format::percent)
      .column("runs-losing", say("stale.runs-losing-column", {{"runs", p.runs}}), report::Format::count)
      .column("ns", say("stale.ns-column"), report::Format::ns)
      .column("model-count", say("model-count-column"), report::Format::count)
      .column("model-stale", say("stale.model-stale-column"), report::Format::count)
      .column("compiled", p.arch.empty() ? say("stale.compiled-column")
                                         : say("stale.compiled-column-arch", {{"arch", p.arch}}));
  for (const auto& row : p.rows) {
    std::vector<std::pair<std::string, report::Value>> cells{
        {"variant", variant_name(row.variant)},
        {"model-count", static_cast<I>(row.model.count)},
        {"model-stale", static_cast<I>(row.model.stale_reads)}};
    const report::RowMark mark = add_lost_cells(cells, row.gpu, gpu_run, is_stale_read_fix(row.variant), true);
    if (!p.arch.empty())
      cells.emplace_back("compiled", row.compiled.empty() ? say("stale.compiled-none") : distinct_instructions(row.compiled));
    t.row(cells, mark);
  }
  t.legend.push_back(say("stale.model-legend"));
  if (!p.arch.empty()) t.legend.push_back(say("stale.sass-legend"));
  s.add(std::move(t));
  s.add(program_table(Protocol::book));
  s.add(trace_table(p.trace, "trace", say("stale.trace-title"), true));
  if (!p.trace.first_stale.empty())
    s.fact("how-lost", say("stale.how-lost"), p.trace.first_stale, report::Format::plain, say("stale.how-lost-note"));
  for (const auto& row : p.rows) {
    const std::string id = variant_id(row.variant);
    if (is_stale_read_fix(row.variant)) {
      s.check("model-" + id, say("check.model-loses-nothing", {{"variant", variant_name(row.variant)}}),
              row.model.exact() && row.model.stale_reads == 0, model_outcome_text(row.model));
      if (gpu_run) {
        const Verdict v = runs_exact(row.gpu);
        s.agreement("gpu-agrees-" + id, say("check.every-count-exact", {{"variant", variant_name(row.variant)}}),
                    v.passed, v.detail);
      }
    } else if (gpu_run && any_timed_out(row.gpu)) {
      s.check(id + "-within-deadline", say("check.within-deadline", {{"variant", variant_name(row.variant)}}), false,
              say("gave-up-says-nothing"));
    }
  }
  if (gpu_run) {
    Lost book;
    for (const auto& row : p.rows)
      if (row.variant == Variant::book) book = lost_updates(row.gpu);
    s.fact("verdict", say("verdict"),
           book.lost > 0 ? say("stale.verdict-lost", {{"lost", book.lost}, {"total", book.total}})
                         : say("stale.verdict-none-lost"));
  } else {
    s.fact("verdict", say("verdict"), say("stale.verdict-model"));
  }
  return s;
}

report::Section stale_reads_part(Run& run) {
  StalePart p;
  p.spec.blocks = run.options.blocks.value_or(kStaleBlocks);
  p.spec.threads = 1;
  p.spec.iters = run.options.iterations.value_or(kStaleIters);
  p.spec.deadline_ns = deadline_for(p.spec.acquisitions());
  p.runs = stale_runs(run.options.runs, p.spec.blocks, p.spec.iters);
  p.arch = run.arch;
  for (Variant v : {Variant::book, Variant::book_atomic_add, Variant::fenced, Variant::acq_rel}) {
    StaleRow row;
    row.variant = v;
    row.model = sim(protocol_of(v), Regime::independent, 2, 1, 2);
    row.compiled = run.sass(kernel_name(v));
    if (run.ctx.gpu) {
      RunSpec spec = p.spec;
      spec.variant = v;
      row.gpu = gpu_runs(spec, p.runs, false);
    }
    p.rows.push_back(std::move(row));
  }
  p.trace = sim(Protocol::book, Regime::independent, 2, 1, 2, kTraceRows);
  return stale_reads_section(p, run.ctx.gpu);
}

namespace {

// The delay in the largest unit that holds it whole, joined by `space`: 10000 -> "10" + space + "us".
std::string delay_in_units(unsigned ns, const char* space) {
  if (ns >= 1000000 && ns % 1000000 == 0) return std::to_string(ns / 1000000) + space + "ms";
  if (ns >= 1000 && ns % 1000 == 0) return std::to_string(ns / 1000) + space + "us";
  return std::to_string(ns) + space + "ns";
}

}  // namespace

std::string delay_text(unsigned ns) { return delay_in_units(ns, " "); }
std::string delay_id(unsigned ns) { return delay_in_units(ns, ""); }

DelayFinding delay_finding(const std::vector<DelayRuns>& delayed, const std::vector<std::vector<LockRun>>& fixes) {
  DelayFinding f;
  for (const auto& d : delayed) {
    const Lost l = lost_updates(d.runs);
    f.lost.lost += l.lost;
    f.lost.total += l.total;
    f.lost.losing += l.losing;
    f.lost.stuck = f.lost.stuck || l.stuck;
    if (l.lost > 0) f.longest_losing = std::max(f.longest_losing, d.delay_ns);
  }
  f.fixes_exact = !fixes.empty();
  for (const auto& runs : fixes) f.fixes_exact = f.fixes_exact && runs_exact(runs).passed;
  return f;
}

std::string delay_verdict(const DelayFinding& f) {
  const std::string fixes = say(f.fixes_exact ? "delay.fixes-exact" : "delay.fixes-not-exact");
  if (f.lost.stuck) return say("delay.verdict-stuck", {{"fixes", fixes}});
  if (f.lost.lost > 0)
    return say("delay.verdict-lost", {{"delay", delay_text(f.longest_losing)},
                                      {"lost", report::grouped(static_cast<std::uint64_t>(f.lost.lost))},
                                      {"total", report::grouped(static_cast<std::uint64_t>(f.lost.total))},
                                      {"fixes", fixes}});
  return say("delay.verdict-none-lost", {{"fixes", fixes}});
}

std::optional<std::string> delay_budget_error(const std::vector<int>& delays_ns, int runs, int blocks, int iterations) {
  long long per_pass = 0;
  for (int d : delays_ns) per_pass += d;
  const long long wait = 2LL * runs * blocks * iterations * per_pass;
  if (wait <= kMaxDelayWaitNs) return std::nullopt;
  return say("usage.delay-budget", {{"runs", runs},
                                    {"grid", grid_text(blocks, 1)},
                                    {"iterations", iterations},
                                    {"per-pass", per_pass},
                                    {"wait-ms", wait / 1000000},
                                    {"max-ms", kMaxDelayWaitNs / 1000000}});
}


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
