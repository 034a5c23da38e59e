// Part stale-reads: *cnt = *cnt + 1 under the lock with no fence. A block's L1 keeps the counter's
// line from its last critical section; the blog's fixes, and the SASS they compile to.
#include <algorithm>

#include "core/kernel_listing.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_trace.hpp"

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

}  // namespace cudasync::lock
