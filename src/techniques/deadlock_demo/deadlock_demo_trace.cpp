#include "techniques/deadlock_demo/deadlock_demo_trace.hpp"

namespace cudasync::deadlock_demo {

using report::Table;
using report::Value;
using I = std::int64_t;

std::string verdict(const simt::Result& r) {
  if (r.completed) {
    const long long count = r.word("counter");
    return "completes in " + std::to_string(r.steps) + " steps" +
           (count >= 0 ? ", counter " + std::to_string(count) + " of " + std::to_string(r.machine.lanes) : "");
  }
  if (r.deadlock)
    return "deadlock: the state after step " + std::to_string(r.steps) + " is the state " +
           (r.repeat_from == 0 ? std::string("it started in") : "after step " + std::to_string(r.repeat_from));
  return "undecided after " + std::to_string(r.steps) + " steps";
}

Table program_table(const simt::Machine& m, const std::string& id) {
  Table t(id, "the program the model runs: " + m.name);
  t.column("pc", "pc").column("code", "code");
  for (std::size_t i = 0; i < m.code.size(); ++i) t.row({{"pc", static_cast<I>(i)}, {"code", m.code[i].code}});
  return t;
}

Table trace_table(const simt::Result& r, const std::string& id, const std::string& title) {
  Table t(id, title);
  t.column("step", "step");
  for (std::size_t k = 0; k < r.columns.size(); ++k) t.column(r.machine.noun + "-" + std::to_string(k), r.columns[k]);
  t.column("memory", "memory").column("note", "note");
  for (const auto& row : r.trace) {
    std::vector<std::pair<std::string, Value>> cells{{"step", static_cast<I>(row.step)}};
    for (std::size_t k = 0; k < row.cells.size(); ++k)
      cells.emplace_back(r.machine.noun + "-" + std::to_string(k),
                         row.cells[k].empty() ? Value{report::Undefined{}} : Value{row.cells[k]});
    cells.emplace_back("memory", row.memory);
    cells.emplace_back("note", row.note);
    t.row(cells);
  }
  if (r.rows_not_shown > 0)
    t.legend.push_back("... " + std::to_string(r.rows_not_shown) + " more steps, not shown; " + verdict(r));
  if (r.machine.regime == simt::Regime::lockstep)
    t.legend.push_back("waits at N: the warp is not running this lane; it resumes at pc N when the warp reconverges");
  return t;
}

void add_waits(report::Section& s, const simt::Result& r, const std::string& id, const std::string& label) {
  for (std::size_t i = 0; i < r.waits.size(); ++i)
    s.fact(id + "-waits-" + std::to_string(i + 1), label + ": who waits for whom", r.waits[i]);
  const std::string cycle = r.graph.cycle_text();
  if (!cycle.empty()) s.fact(id + "-cycle", label + ": wait-for cycle", cycle);
}

Verdict run_cycle(const simt::Result& r) {
  const std::string cycle = r.graph.cycle_text();
  return {r.deadlock && !cycle.empty(), r.deadlock ? (cycle.empty() ? "no cycle found" : cycle) : verdict(r)};
}

}  // namespace cudasync::deadlock_demo
