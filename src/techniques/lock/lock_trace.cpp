#include "techniques/lock/lock_trace.hpp"

namespace cudasync::lock {

using I = std::int64_t;

report::Table program_table(Protocol p) {
  const simt::Machine m = program_of(p);
  report::Table t("program", say("trace.program-title", {{"name", m.name}}));
  t.column("pc", "pc").column("code", say("trace.code"));
  for (std::size_t i = 0; i < m.code.size(); ++i) t.row({{"pc", static_cast<I>(i)}, {"code", m.code[i].code}});
  return t;
}

report::Table trace_table(const SimResult& r, const std::string& id, const std::string& title, bool show_l1) {
  report::Table t(id, title);
  t.column("step", say("trace.step"));
  const std::string noun = r.config.threads == 1 ? "block-" : "lane-";
  for (std::size_t k = 0; k < r.columns.size(); ++k) t.column(noun + std::to_string(k), r.columns[k]);
  t.column("mutex", "mutex").column("cnt", "cnt (L2)");
  if (show_l1) t.column("l1", say("trace.counter-in-l1"));
  t.column("note", say("trace.note"));
  for (const auto& row : r.trace) {
    std::vector<std::pair<std::string, report::Value>> cells{{"step", static_cast<I>(row.step)}};
    for (std::size_t k = 0; k < row.cells.size(); ++k)
      cells.emplace_back(noun + std::to_string(k),
                         row.cells[k].empty() ? report::Value{report::Undefined{}} : report::Value{row.cells[k]});
    cells.emplace_back("mutex", static_cast<I>(row.mutex));
    cells.emplace_back("cnt", static_cast<I>(row.cnt));
    if (show_l1) cells.emplace_back("l1", row.l1);
    cells.emplace_back("note", row.note);
    t.row(cells);
  }
  std::vector<std::string> lanes;
  for (std::size_t k = 0; k < r.columns.size(); ++k) lanes.push_back(noun + std::to_string(k));
  t.picture = report::grid_picture("step", lanes);  // --html draws it
  if (r.rows_not_shown > 0)
    t.legend.push_back(say(r.outcome == Outcome::completed  ? "trace.more-steps-completes"
                           : r.outcome == Outcome::deadlock ? "trace.more-steps-deadlock"
                                                            : "trace.more-steps-limit",
                           {{"rows", r.rows_not_shown}, {"steps", r.rounds}}));
  return t;
}

std::string trace_id(Regime r) { return std::string("trace-") + simt::to_string(r); }

std::string regime_title(Regime r) {
  return say(r == Regime::lockstep ? "trace.regime-lockstep" : "trace.regime-independent");
}

}  // namespace cudasync::lock
