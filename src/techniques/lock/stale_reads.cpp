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
bool is_delay(Variant v) { return v == Variant::delay_after || v == Variant::delay_before; }

// The delay in the largest unit that holds it whole, joined by `space`: 10000 -> "10" + space + "us".
std::string delay_in_units(unsigned ns, const char* space) {
  if (ns >= 1000000 && ns % 1000000 == 0) return std::to_string(ns / 1000000) + space + "ms";
  if (ns >= 1000 && ns % 1000 == 0) return std::to_string(ns / 1000) + space + "us";
  return std::to_string(ns) + space + "ns";
}

// A row's id, as both parts name it: "book", "fix-1" .. "fix-3", and in delay-fix "no-delay",
// "delay-10us-after": what an exercise selects a row by.
std::string row_id(const LossRow& r) {
  switch (r.variant) {
    case Variant::book_atomic_add: return "fix-1";
    case Variant::fenced: return "fix-2";
    case Variant::acq_rel: return "fix-3";
    case Variant::delay_after: return "delay-" + delay_in_units(r.delay_ns, "") + "-after";
    case Variant::delay_before: return "delay-" + delay_in_units(r.delay_ns, "") + "-before";
    default: return "book";
  }
}

std::string delay_row_name(const LossRow& r) {
  if (r.variant == Variant::delay_after) return say("delay.row-after", {{"delay", delay_text(r.delay_ns)}});
  if (r.variant == Variant::delay_before) return say("delay.row-before", {{"delay", delay_text(r.delay_ns)}});
  if (r.variant == Variant::book) return say("delay.row-book");
  if (r.variant == Variant::fenced) return say("delay.row-fix-2");
  return say("delay.row-fix-3");
}

// "The runs: 4 times <<<132, 1>>> x 50 iterations ..." (key: stale.about-runs or delay.about-rows).
std::string runs_paragraph(const char* key, const LossPart& p) {
  return say(key, {{"times", p.runs == 1 ? say("runs-once") : say("runs-times", {{"runs", p.runs}})},
                   {"grid", grid_text(p.spec.blocks, 1)},
                   {"iterations", p.spec.iters}});
}

// A row's model cells and GPU cells of lost updates: "lost", "share", "ns" and, with `runs_losing`,
// "runs-losing" (NeedsGpu in each without a GPU). Mismatch when a row that must be exact lost an
// update or a wait passed its deadline.
report::RowMark loss_cells(std::vector<std::pair<std::string, report::Value>>& cells, const LossRow& row,
                           bool gpu_run, bool must_be_exact, bool runs_losing) {
  cells.emplace_back("model-count", static_cast<I>(row.model.count));
  cells.emplace_back("model-stale", static_cast<I>(row.model.stale_reads));
  if (!gpu_run) {
    for (const char* k : {"lost", "share", "runs-losing", "ns"})
      if (runs_losing || std::string(k) != "runs-losing") cells.emplace_back(k, report::NeedsGpu{});
    return report::RowMark::none;
  }
  if (row.gpu.empty()) return report::RowMark::none;
  const Lost l = lost_updates(row.gpu);
  if (l.stuck) cells.emplace_back("lost", say("stale.lost-stuck"));
  else cells.insert(cells.end(), {{"lost", static_cast<I>(l.lost)},
                                  {"share", static_cast<double>(l.lost) / static_cast<double>(l.total)}});
  if (runs_losing) cells.emplace_back("runs-losing", static_cast<I>(l.losing));
  cells.emplace_back("ns", report::median(ns_samples(row.gpu)));
  return must_be_exact && (l.lost != 0 || l.stuck) ? report::RowMark::mismatch : report::RowMark::none;
}

// The program of `protocol`, the model's trace of it, and the stale read that lost an update.
void add_trace(report::Section& s, const LossPart& p, Protocol protocol, const std::string& title,
               const std::string& how_lost, const std::string& how_lost_note) {
  s.add(program_table(protocol));
  s.add(trace_table(p.trace, "trace", title, true));
  if (!p.trace.first_stale.empty())
    s.fact("how-lost", how_lost, p.trace.first_stale, report::Format::plain, how_lost_note);
}

// A fix's checks: the model loses nothing, and on a GPU every launch counted exactly.
void check_fix(report::Section& s, const LossRow& row, bool gpu_run) {
  const std::string id = row_id(row);
  s.check("model-" + id, say("check.model-loses-nothing", {{"variant", variant_name(row.variant)}}),
          row.model.exact() && row.model.stale_reads == 0, model_outcome_text(row.model));
  if (!gpu_run) return;
  const Verdict v = runs_exact(row.gpu);
  s.agreement("gpu-agrees-" + id, say("check.every-count-exact", {{"variant", variant_name(row.variant)}}), v.passed,
              v.detail);
}

// Part `p`'s rows of variants `rows` (with their delays), the model's and, on a GPU, `p.runs` launches each.
void run_rows(Run& run, LossPart& p, const std::vector<std::pair<Variant, unsigned>>& rows) {
  for (const auto& [v, ns] : rows) {
    LossRow row;
    row.variant = v;
    row.delay_ns = ns;
    row.model = sim(protocol_of(v), Regime::independent, 2, 1, 2);
    if (!p.arch.empty()) row.compiled = run.sass(kernel_name(v));
    if (run.ctx.gpu) {
      RunSpec spec = RunSpec::of(v, p.spec.blocks, 1, p.spec.iters);
      spec.delay_ns = ns;
      spec.deadline_ns += static_cast<unsigned long long>(spec.acquisitions()) * ns;  // every holder's delay
      row.gpu = gpu_runs(spec, p.runs, false);
    }
    p.rows.push_back(std::move(row));
  }
}

}  // namespace

report::Section stale_reads_section(const StalePart& p, bool gpu_run) {
  report::Section s("stale-reads", say("stale.title"));
  s.paragraph(say("stale.about"));
  s.paragraph(runs_paragraph("stale.about-runs", p));
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
    std::vector<std::pair<std::string, report::Value>> cells{{"variant", variant_name(row.variant)}};
    const report::RowMark mark = loss_cells(cells, row, gpu_run, is_stale_read_fix(row.variant), true);
    if (!p.arch.empty())
      cells.emplace_back("compiled", row.compiled.empty() ? say("stale.compiled-none") : distinct_instructions(row.compiled));
    t.row(cells, mark);
  }
  t.legend.push_back(say("stale.model-legend"));
  if (!p.arch.empty()) t.legend.push_back(say("stale.sass-legend"));
  s.add(std::move(t));
  add_trace(s, p, Protocol::book, say("stale.trace-title"), say("stale.how-lost"), say("stale.how-lost-note"));
  for (const auto& row : p.rows) {
    if (is_stale_read_fix(row.variant)) check_fix(s, row, gpu_run);
    else if (gpu_run && any_timed_out(row.gpu))
      s.check(row_id(row) + "-within-deadline", say("check.within-deadline", {{"variant", variant_name(row.variant)}}),
              false, say("gave-up-says-nothing"));
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
  p.spec = RunSpec::of(Variant::book, run.options.blocks.value_or(kStaleBlocks), 1,
                       run.options.iterations.value_or(kStaleIters));
  p.runs = stale_runs(run.options.runs, p.spec.blocks, p.spec.iters);
  p.arch = run.arch;
  run_rows(run, p, {{Variant::book, 0}, {Variant::book_atomic_add, 0}, {Variant::fenced, 0}, {Variant::acq_rel, 0}});
  p.trace = sim(Protocol::book, Regime::independent, 2, 1, 2, kTraceRows);
  return stale_reads_section(p, run.ctx.gpu);
}

std::string delay_text(unsigned ns) { return delay_in_units(ns, " "); }

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

report::Section delay_fix_section(const DelayPart& p, bool gpu_run) {
  report::Section s("delay-fix", say("delay.title"));
  s.paragraph(say("delay.about"));
  s.paragraph(runs_paragraph("delay.about-rows", p));
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
  bool any_delay = false, model_loses = true;
  std::string delayed_model;
  for (const auto& row : p.rows) {
    const bool fix = row.variant == Variant::fenced || row.variant == Variant::acq_rel;
    std::vector<std::pair<std::string, report::Value>> cells{
        {"variant", delay_row_name(row)}, {"variant-id", row.variant == Variant::book ? "no-delay" : row_id(row)}};
    t.row(cells, loss_cells(cells, row, gpu_run, fix, false));
    if (fix) fixes.push_back(row.gpu);
    if (!is_delay(row.variant)) continue;
    delayed.push_back({row.delay_ns, row.gpu});
    any_delay = true;
    model_loses = model_loses && row.model.stale_reads > 0 && row.model.count < row.model.expected;
    if (delayed_model.empty()) delayed_model = model_outcome_text(row.model);
  }
  t.legend.push_back(say("delay.legend-gpu"));
  t.legend.push_back(say("delay.legend-model"));
  t.legend.push_back(say("delay.legend-delay"));
  s.add(std::move(t));
  add_trace(s, p, Protocol::delay_after, say("delay.trace-title"), say("delay.how-lost"), say("delay.how-lost-note"));
  for (const auto& row : p.rows)
    if (row.variant == Variant::fenced || row.variant == Variant::acq_rel) check_fix(s, row, gpu_run);
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
  p.spec = RunSpec::of(Variant::book, run.options.blocks.value_or(kDelayBlocks), 1,
                       run.options.iterations.value_or(kDelayIters));
  p.runs = run.options.runs.value_or(kDelayRuns);
  const std::vector<int> delays = run.options.delays.value_or(kDefaultDelaysNs);
  std::vector<std::pair<Variant, unsigned>> rows{{Variant::book, 0}};
  for (int d : delays) rows.emplace_back(Variant::delay_after, static_cast<unsigned>(d));
  for (int d : delays) rows.emplace_back(Variant::delay_before, static_cast<unsigned>(d));
  rows.emplace_back(Variant::fenced, 0);
  rows.emplace_back(Variant::acq_rel, 0);
  run_rows(run, p, rows);
  p.trace = sim(Protocol::delay_after, Regime::independent, 2, 1, 2, kTraceRows);
  p.lockstep = sim(Protocol::delay_after, Regime::lockstep, 1, 4, 1);
  return delay_fix_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock
