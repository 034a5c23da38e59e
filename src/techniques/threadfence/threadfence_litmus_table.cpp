#include "techniques/threadfence/threadfence_litmus_table.hpp"

#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/threadfence/threadfence_gpu.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

using report::Format;
using report::Value;
using I = std::int64_t;

namespace {

std::string generic_code(Test t, int side) {
  switch (t) {
    case Test::mp: return side == 0 ? "x = 1; F0; y = 1" : say("table.mp-side-1");
    case Test::sb: return side == 0 ? "x = 1; F0; r0 = y" : "y = 1; F1; r1 = x";
    case Test::lb: return side == 0 ? "r0 = x; F0; y = 1" : "r1 = y; F1; x = 1";
    case Test::corr: return side == 0 ? "x = 1" : "r0 = x; F1; r1 = x";
  }
  return "";
}

std::string outcome_key(int o) { return std::to_string(o / 2) + std::to_string(o % 2); }

void add_legend(report::Table& t, const std::vector<LitmusRow>& rows, bool gpu_run) {
  std::vector<Test> tests;
  for (const auto& r : rows)
    if (std::find(tests.begin(), tests.end(), r.spec.test) == tests.end()) tests.push_back(r.spec.test);
  for (Test test : tests) {
    t.legend.push_back(say("table.legend-test",
                           {{"test", to_string(test)}, {"title", test_title(test)}, {"weak", outcome_key(weak_outcome(test))}}));
    t.legend.push_back("  " + say("table.legend-side", {{"side", 0}, {"code", generic_code(test, 0)}}));
    t.legend.push_back("  " + say("table.legend-side", {{"side", 1}, {"code", generic_code(test, 1)}}));
    t.legend.push_back("  " + registers_meaning(test));
  }
  for (const char* line : {"table.legend-fences-1", "table.legend-fences-2", "table.legend-fences-3",
                           "table.legend-fences-4", "table.legend-fences-5", "table.legend-fences-6"})
    t.legend.push_back(say(line));
  if (gpu_run) {
    t.legend.push_back(say("table.legend-counts"));
    t.legend.push_back(say("table.legend-weak"));
  }
}

}  // namespace

report::Value budget_ms(unsigned long long ns) {
  if (ns % 1000000ull == 0) return static_cast<I>(ns / 1000000ull);
  return static_cast<double>(ns) / 1e6;
}

void run_rows(std::vector<LitmusRow>& rows, bool gpu) {
  if (!gpu) return;
  for (auto& r : rows) r.gpu = gpu_litmus(r.spec, r.iterations, r.budget_ns);
}

report::Table litmus_table(const std::string& title, const std::vector<LitmusRow>& rows, bool gpu_run,
                           const TableOptions& opt) {
  report::Table t("outcomes", title);
  if (opt.label) t.column("case", say("table.case"));  // the case names its test
  else t.column("test", say("table.test"));
  t.column("fence", say("table.fence"));
  if (opt.access) t.column("access", say("table.access"));
  if (opt.placement) t.column("sides-in", say("table.sides-in"));
  if (gpu_run) {  // counts only a GPU gives: the model's table leaves them out
    t.column("instances", say("table.instances"), Format::count);
    for (int o = 0; o < kOutcomes; ++o) t.column("r" + outcome_key(o), outcome_key(o), Format::count);
    t.column("weak-share", say("table.weak"), Format::percent);
  }
  t.column("allowed", say("table.allowed")).column("verdict", say("table.verdict"));
  if (opt.placement) t.column("sides-in-id", say("table.sides-in-id"));  // the placement as an id, for the exercises
  for (const auto& r : rows) {
    std::vector<std::pair<std::string, Value>> cells;
    if (opt.label) cells.emplace_back("case", r.label);
    else cells.emplace_back("test", std::string(to_string(r.spec.test)));
    cells.emplace_back("fence", fences_text(r.spec));
    if (opt.access) {
      const bool all_atomic =
          r.spec.test != Test::mp && r.spec.fence[0] == Fence::rel_acq && r.spec.fence[1] == Fence::rel_acq;
      cells.emplace_back("access", std::string(all_atomic ? "atomic_ref" : to_string(r.spec.access)));
    }
    if (opt.placement)
      cells.emplace_back("sides-in", say(r.spec.placement == Placement::same_block ? "table.one-block" : "table.two-blocks"));
    if (r.gpu) {
      cells.emplace_back("instances", static_cast<I>(r.gpu->instances));
      for (int o = 0; o < kOutcomes; ++o) cells.emplace_back("r" + outcome_key(o), static_cast<I>(r.gpu->outcome[o]));
      const auto share = weak_share(*r.gpu, r.spec.test);
      cells.emplace_back("weak-share", share ? Value{*share} : Value{report::Undefined{}});
    }
    cells.emplace_back("allowed", allowed_text(r.model));
    cells.emplace_back("verdict", litmus_verdict(r));
    if (opt.placement)
      cells.emplace_back("sides-in-id", std::string(r.spec.placement == Placement::same_block ? "one-block" : "two-blocks"));
    t.row(cells, forbidden_seen(r).empty() ? report::RowMark::none : report::RowMark::mismatch);
  }
  std::vector<std::string> labels{opt.label ? "case" : "test", "fence"}, names, counts;
  for (int o = 0; o < kOutcomes; ++o) names.push_back(outcome_key(o));
  if (gpu_run)
    for (int o = 0; o < kOutcomes; ++o) counts.push_back("r" + outcome_key(o));
  t.picture = report::outcomes_picture(labels, names, "allowed", counts);  // --html draws it
  add_legend(t, rows, gpu_run);
  return t;
}

void add_grid_facts(report::Section& s, const std::vector<LitmusRow>& rows) {
  const auto first = std::find_if(rows.begin(), rows.end(), [](const LitmusRow& r) { return r.gpu && !r.timeouts_expected; });
  if (first == rows.end()) return;
  const LitmusCounts& c = *first->gpu;
  s.fact("blocks", say("grid.blocks"), I{c.blocks}, Format::count, say("grid.blocks-note"));
  s.fact("threads", say("grid.threads"), I{c.threads}, Format::count);
  s.fact("pairs-per-round", say("grid.pairs-per-round"), static_cast<I>(c.pairs_per_round), Format::count);
  s.fact("instances-per-row", say("grid.instances-per-row"), static_cast<I>(c.instances), Format::count,
         say("grid.instances-per-row-note",
             {{"rounds", c.rounds}, {"iterations", report::grouped(static_cast<std::uint64_t>(first->iterations))}}));
  s.fact("wait-budget", say("grid.wait-budget"), budget_ms(first->budget_ns), Format::ms, say("grid.wait-budget-note"));
}

void add_same_sm_fact(report::Section& s, const std::string& id, const std::string& title, const LitmusCounts& c) {
  if (c.pairs_checked == 0) return;
  s.fact(id, title, static_cast<I>(c.pairs_same_sm), Format::count,
         say("grid.same-sm-note", {{"pairs", report::grouped(c.pairs_checked)}}));
}

void add_litmus_checks(report::Section& s, const std::vector<LitmusRow>& rows, bool gpu_run,
                       const std::string& no_gpu_note) {
  if (!gpu_run) {
    s.note(no_gpu_note);
    return;
  }
  const LitmusSummary sum = summarize(rows);
  s.agreement("no-forbidden-outcome", say("check.no-forbidden"), sum.findings.empty(),
              sum.findings.empty()
                  ? say("check.no-forbidden-detail", {{"rows", sum.rows}, {"completed", report::grouped(sum.completed)}})
                  : say("check.forbidden-detail", {{"count", sum.findings.size()}}));
  std::string t;
  for (const auto& x : sum.timeouts) t += (t.empty() ? "" : "; ") + x;
  s.check("no-wait-timed-out", say("check.no-timeout"), sum.timeouts.empty(),
          sum.timeouts.empty() ? say("check.no-timeout-detail", {{"instances", report::grouped(sum.bounded_waits)}})
                               : say("check.timed-out", {{"list", t}}));
  for (const auto& f : sum.findings) s.note(say("check.finding", {{"finding", f}}));
}

}  // namespace cudasync::threadfence
