#include "techniques/deadlock_demo/deadlock_demo_tables.hpp"

#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/deadlock_demo/deadlock_demo_judge.hpp"

namespace cudasync::deadlock_demo {

using report::Format;
using report::Section;
using report::Table;
using report::Value;
using I = std::int64_t;

Table steps_table(const std::vector<Step>& steps, const std::string& id, const std::string& title) {
  Table t(id, title);
  t.column("step", say("column.step")).column("who", say("column.who")).column("what", say("column.what"));
  for (std::size_t i = 0; i < steps.size(); ++i)
    t.row({{"step", static_cast<I>(i + 1)}, {"who", steps[i].who}, {"what", steps[i].what}});
  return t;
}

void add_model_facts(Section& s, const ScenarioModel& m, const Describe& describe, const std::string& noun) {
  if (m.deadlock) {
    for (std::size_t i = 0; i < m.waits.size(); ++i)
      s.fact("model-waits-" + std::to_string(i + 1), say("facts.model-who-waits"), m.waits[i]);
    const std::string cycle = m.graph.cycle_text();
    s.fact("model-cycle", say("facts.model-cycle"), cycle.empty() ? say("facts.none") : cycle, Format::plain,
           cycle.empty() ? "" : say("facts.cycle-note"));
    s.fact("model-cycle-nodes", say("facts.model-cycle-nodes"), static_cast<I>(m.graph.find_cycle().size()),
           Format::count);
  }
  s.fact("model-predicted", say("facts.model-predicted"), ranges_text(fold(m.records, describe), noun));
}

void add_model_checks(Section& s, const ScenarioModel& m, bool expect_deadlock) {
  if (expect_deadlock) {
    const Verdict v = model_cycle(m);
    s.check("model-deadlocks", say("checks.model-deadlocks"), v.passed, v.detail);
  }
  s.check("model-fix-completes", say("checks.model-fix-completes"), m.fix_completes, m.fix_result);
}

Table ranges_table(const std::vector<Record>& records, const Describe& describe, const std::string& noun,
                   const std::string& id, const std::string& title) {
  Table t(id, title);
  t.column("first", say("ranges.first", {{"noun", noun_word(noun)}}))
      .column("last", say("ranges.last", {{"noun", noun_word(noun)}}))
      .column("state", say("ranges.state"))
      .column("what", say("ranges.what"));
  t.column("first-start", say("ranges.started"), Format::ms).column("last-start", say("ranges.last-started"), Format::ms);
  t.column("first-end", say("ranges.ended"), Format::ms).column("last-end", say("ranges.last-ended"), Format::ms);
  // The earliest and latest of the range's times (ns on the grid's clock), in ms; "-" for none.
  const auto span = [&records](int a, int b, bool start) -> std::pair<Value, Value> {
    long long lo = -1, hi = -1;
    for (int i = a; i <= b; ++i) {
      const Record& r = records[static_cast<std::size_t>(i)];
      const long long v = start ? r.start_ns : r.end_ns;
      if (v < 0) continue;
      lo = lo < 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (lo < 0) return {report::Undefined{}, report::Undefined{}};
    return {static_cast<double>(lo) / 1e6, static_cast<double>(hi) / 1e6};
  };
  for (const auto& r : fold(records, describe)) {
    const auto [first_start, last_start] = span(r.first, r.last, true);
    const auto [first_end, last_end] = span(r.first, r.last, false);
    t.row({{"first", r.first}, {"last", r.last}, {"state", to_string(r.state)}, {"what", r.what},
           {"first-start", first_start}, {"last-start", last_start}, {"first-end", first_end},
           {"last-end", last_end}});
  }
  t.legend.push_back(say("ranges.legend"));
  return t;
}

void add_gpu_ranges(Section& s, const std::vector<Record>& records, const Describe& describe, const std::string& noun,
                    const std::string& table_id, const std::string& title, const std::string& fact_id,
                    const std::string& fact_title) {
  s.add(ranges_table(records, describe, noun, table_id, title));
  s.fact(fact_id, fact_title, ranges_text(fold(records, describe), noun));
}

void add_health(Section& s, const std::optional<Health>& h, const std::string& after) {
  if (!h) return;
  s.fact("health", say("health.title"), say(h->ok ? "health.passed" : "health.failed"), Format::plain, h->detail);
  s.check("health", say("health.check", {{"part", after}}), h->ok, h->detail);
}

report::Measurement launch_time(const std::string& id, const std::string& title, std::optional<double> ms,
                                const std::string& note) {
  std::vector<double> samples;
  if (ms) samples.push_back(*ms);
  return report::measured(id, title, Format::ms, samples, ms.has_value(), note);
}

std::string grid_text(int blocks, int threads) {
  return "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

std::string ms_text(double ms) { return report::fixed(ms, 3) + " ms"; }

}  // namespace cudasync::deadlock_demo
