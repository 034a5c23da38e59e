#include "techniques/deadlock_demo/deadlock_demo_section_util.hpp"

#include <algorithm>
#include <cstdio>

namespace cudasync::deadlock_demo::detail {

using report::Check;
using report::LaneTable;
using report::Measurement;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;

std::string ms_of_ns(long long ns) { return report::fixed(static_cast<double>(ns) / 1e6, 3) + " ms"; }

LaneTable steps_table(const std::vector<Step>& steps, const std::string& id, const std::string& title) {
  LaneTable t;
  t.id = id;
  t.title = title;
  t.columns = {{"step", "step", ""}, {"who", "who", ""}, {"what", "what", ""}};
  for (std::size_t i = 0; i < steps.size(); ++i)
    t.add_row({static_cast<I>(i + 1), steps[i].who, steps[i].what});
  return t;
}

void add_model_facts(Section& s, const ScenarioModel& m, const Describe& describe, const std::string& noun) {
  if (m.deadlock) {
    for (std::size_t i = 0; i < m.waits.size(); ++i)
      s.facts.push_back({"model: who waits for whom", m.waits[i], "", ""});
    const std::string cycle = m.graph.cycle_text();
    s.facts.push_back({"model: wait-for cycle", cycle.empty() ? std::string("none") : cycle, "",
                       cycle.empty() ? "" : "every node waits for the next: none can move first"});
  }
  s.facts.push_back({"model: predicted", ranges_text(fold(m.records, describe), noun), "", ""});
}

LaneTable ranges_table(const std::vector<Record>& records, const Describe& describe, const std::string& noun,
                       const std::string& id, const std::string& title, bool with_times) {
  LaneTable t;
  t.id = id;
  t.title = title;
  t.columns = {{"who", noun + "s", ""}, {"state", "state", ""}, {"what", "what they did", ""}};
  if (with_times) {
    t.columns.push_back({"started_ms", "started (ms)", ""});
    t.columns.push_back({"ended_ms", "ended (ms)", ""});
  }
  const auto span = [](const std::vector<Record>& rs, int a, int b, bool start) -> Value {
    long long lo = -1, hi = -1;
    for (int i = a; i <= b; ++i) {
      const Record& r = rs[static_cast<std::size_t>(i)];
      const long long v = start ? r.start_ns : r.end_ns;
      if (v < 0) continue;
      lo = lo < 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (lo < 0) return Undefined{};
    const std::string l = fixed(static_cast<double>(lo) / 1e6, 3), h = fixed(static_cast<double>(hi) / 1e6, 3);
    return l == h ? l : l + " - " + h;
  };
  for (const auto& r : fold(records, describe)) {
    std::vector<Value> row{r.first == r.last ? std::to_string(r.first) : std::to_string(r.first) + "-" + std::to_string(r.last),
                           std::string(to_string(r.state)), r.what};
    if (with_times) {
      row.push_back(span(records, r.first, r.last, true));
      row.push_back(span(records, r.first, r.last, false));
    }
    t.add_row(std::move(row));
  }
  if (with_times) t.legend.push_back("times on %globaltimer from the grid's start (the first block's), ms: first - last");
  return t;
}

Check stuck_agreement(const std::vector<Record>& gpu, const std::vector<Record>& model, const Describe& describe,
                      const std::string& noun) {
  const auto g = fold(gpu, describe), m = fold(model, describe);
  Check c;
  c.name = "GPU agrees with the reference model: who was stuck, and on what";
  c.passed = g == m;
  c.detail = c.passed ? ranges_text(g, noun)
                      : "GPU: " + ranges_text(g, noun) + " | model: " + ranges_text(m, noun);
  return c;
}

Check ended_check(const std::vector<Record>& records, bool timed_out, int deadline_ms, const std::string& noun) {
  int missing = 0, gave = 0;
  long long last_end = -1;
  for (const auto& r : records) {
    if (r.state == static_cast<int>(State::never_started)) ++missing;
    if (r.state == static_cast<int>(State::gave_up)) {
      ++gave;
      last_end = std::max(last_end, r.end_ns);
    }
  }
  Check c;
  c.name = "the deadlock ended at its deadline, and every " + noun + " said where it was";
  c.passed = missing == 0 && gave > 0 && timed_out;
  c.detail = std::to_string(gave) + " " + noun + (gave == 1 ? "" : "s") + " gave up; the last at " +
             (last_end >= 0 ? ms_of_ns(last_end) : std::string("-")) + " (deadline " + std::to_string(deadline_ms) +
             " ms)" + (missing ? "; " + std::to_string(missing) + " recorded nothing" : "");
  return c;
}

void add_health(Section& s, const std::optional<Health>& h, const std::string& after) {
  if (!h) return;
  s.facts.push_back({"health check afterwards", h->ok ? std::string("passed") : std::string("FAILED"), "", h->detail});
  s.checks.push_back({"health check after " + after + ": this process still runs kernels", h->ok, h->detail});
}

Measurement launch_time(const std::string& name, std::optional<double> ms, const std::string& note) {
  Measurement m;
  m.name = name;
  m.unit = "ms";
  if (ms) m.samples.push_back(*ms);
  m.needs_gpu = !ms;
  m.note = note;
  return m;
}

void add_model_checks(Section& s, const ScenarioModel& m, bool expect_deadlock) {
  if (expect_deadlock) {
    const std::string cycle = m.graph.cycle_text();
    s.checks.push_back({"reference model: the schedule deadlocks, with a cycle in its wait-for graph",
                        m.deadlock && !cycle.empty(), cycle.empty() ? "no cycle found" : cycle});
  }
  s.checks.push_back({"reference model: the fix completes", m.fix_completes, m.fix_result});
}

}  // namespace cudasync::deadlock_demo::detail
