// Who was stuck, on whom, and whether the GPU agrees with the model: the records folded into ranges
// and the wait-for graph with its cycle (the GPU's records and the model's predictions go through
// the same folding, so the two are compared range by range); a run of core's SIMT machine read as
// records and a graph; the verdicts; and the tables every part's section is built from.
#include "techniques/deadlock_demo/lesson.hpp"

#include <algorithm>
#include <functional>

#include "core/report/text_format.hpp"

namespace cudasync::deadlock_demo {

using report::Format;
using report::Section;
using report::Table;
using report::Value;
using I = std::int64_t;

namespace {

// The lanes its warp runs, for a lockstep lane (global indices).
std::vector<int> running_with(const simt::Result& r, int lane) {
  const simt::Machine& m = r.machine;
  const int per_block = (m.threads + simt::kWarpSize - 1) / simt::kWarpSize;
  const int block = lane / m.threads, thread = lane % m.threads;
  const auto wi = static_cast<std::size_t>(block * per_block + thread / simt::kWarpSize);
  const int first = block * m.threads + (thread / simt::kWarpSize) * simt::kWarpSize;
  std::vector<int> out;
  if (wi >= r.warp_running.size()) return out;
  for (int k = 0; k < simt::kWarpSize; ++k)
    if ((r.warp_running[wi] >> k) & 1u) out.push_back(first + k);
  return out;
}

struct Wait {
  std::vector<int> to;
  std::string on;
  bool next_flag = false;  // it waits for the flag of the lane after it
};

// Records folded into ranges, each with when its first and last member started and ended (ms on
// %globaltimer from the grid's start; "-" where none recorded it).
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

}  // namespace

std::string to_string(State s) {
  switch (s) {
    case State::never_started: return say("state.never-started");
    case State::finished: return say("state.finished");
    case State::gave_up: return say("state.gave-up");
    case State::late: return say("state.late");
  }
  return say("state.never-started");
}

std::vector<Range> fold(const std::vector<Record>& records, const Describe& describe) {
  std::vector<Range> out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const int idx = static_cast<int>(i);
    const State s = static_cast<State>(records[i].state);
    std::string what = describe(idx, records[i]);
    if (!out.empty() && out.back().state == s && out.back().what == what && out.back().last == idx - 1) {
      out.back().last = idx;
      continue;
    }
    out.push_back({idx, idx, s, std::move(what)});
  }
  return out;
}

std::string span_text(int first, int last, const std::string& noun) {
  if (first == last) return say("span.one", {{"noun", noun_word(noun)}, {"index", first}});
  return say("span.many", {{"nouns", nouns_word(noun)}, {"first", first}, {"last", last}});
}

std::string range_text(const Range& r, const std::string& noun) {
  return say("span.did", {{"who", span_text(r.first, r.last, noun)}, {"what", r.what}});
}

std::string ranges_text(const std::vector<Range>& rs, const std::string& noun) {
  std::string s;
  for (const auto& r : rs) s += (s.empty() ? "" : say("list.separator")) + range_text(r, noun);
  return s;
}

int count_in(const std::vector<Range>& rs, State s) {
  int n = 0;
  for (const auto& r : rs)
    if (r.state == s) n += r.last - r.first + 1;
  return n;
}

int WaitGraph::add_node(const std::string& name) {
  const auto it = std::find(nodes.begin(), nodes.end(), name);
  if (it != nodes.end()) return static_cast<int>(it - nodes.begin());
  nodes.push_back(name);
  return static_cast<int>(nodes.size()) - 1;
}

void WaitGraph::add_edge(int from, int to, const std::string& on) { edges.push_back({from, to, on}); }

std::vector<int> WaitGraph::find_cycle() const {
  const int n = static_cast<int>(nodes.size());
  std::vector<std::vector<int>> out(static_cast<std::size_t>(n));
  for (const auto& e : edges) out[static_cast<std::size_t>(e.from)].push_back(e.to);
  // Iterative depth-first search with colours: a grey node reached again closes a cycle, which the
  // path from that node to the top of the stack spells out.
  std::vector<int> colour(static_cast<std::size_t>(n), 0);  // 0 white, 1 grey (on the path), 2 black
  for (int root = 0; root < n; ++root) {
    if (colour[static_cast<std::size_t>(root)] != 0) continue;
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    colour[static_cast<std::size_t>(root)] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& succ = out[static_cast<std::size_t>(v)];
      if (next == succ.size()) {
        colour[static_cast<std::size_t>(v)] = 2;
        stack.pop_back();
        continue;
      }
      const int w = succ[next++];
      if (colour[static_cast<std::size_t>(w)] == 1) {
        std::vector<int> cycle;
        std::size_t k = 0;
        while (stack[k].first != w) ++k;
        for (; k < stack.size(); ++k) cycle.push_back(stack[k].first);
        return cycle;
      }
      if (colour[static_cast<std::size_t>(w)] == 0) {
        colour[static_cast<std::size_t>(w)] = 1;
        stack.push_back({w, 0});
      }
    }
  }
  return {};
}

std::string WaitGraph::cycle_text() const {
  const auto c = find_cycle();
  if (c.empty()) return "";
  const auto name = [&](int i) { return nodes[static_cast<std::size_t>(i)]; };
  std::string s;
  if (c.size() <= 6) {
    for (int v : c) s += name(v) + " -> ";
    return s + name(c.front());
  }
  for (std::size_t i = 0; i < 3; ++i) s += name(c[i]) + " -> ";
  return s + "... -> " + name(c.back()) + " -> " + name(c.front()) + say("graph.nodes", {{"count", c.size()}});
}

std::string lanes_text(const std::string& noun, const std::vector<int>& lanes) {
  return say("span.list",
             {{"nouns", lanes.size() == 1 ? noun_word(noun) : nouns_word(noun)}, {"list", report::ranges_text(lanes)}});
}

ModelRun run_model(const simt::Machine& m, int trace_lanes, int trace_rows) {
  ModelRun run;
  simt::Trace trace;
  for (int l = 0; l < std::min(trace_lanes, m.lanes()); ++l) trace.lanes.push_back(l);
  trace.rows = trace_rows;
  run.result = simt::run(m, trace);
  run.noun = m.threads == 1 && m.blocks > 1 ? "block" : "lane";
  const simt::Result& r = run.result;
  const int n = m.lanes();
  const bool lockstep = m.scheduling == simt::Scheduling::lockstep;
  const auto parked = [&](int l) { return lockstep && !r.lanes[static_cast<std::size_t>(l)].running; };
  for (int l = 0; l < n; ++l) {
    const simt::Lane& ln = r.lanes[static_cast<std::size_t>(l)];
    Record rec;
    rec.start_ns = 0;
    rec.state = static_cast<int>(ln.exited ? State::finished : State::gave_up);
    if (!ln.exited && parked(l)) {
      rec.on = -1;
      rec.seen = ln.pc;
    } else if (!ln.exited && ln.wait_word >= 0) {
      rec.on = m.words[static_cast<std::size_t>(ln.wait_word)].id;
      rec.seen = ln.seen;
    }
    run.records.push_back(rec);
  }
  if (!r.deadlock()) return run;
  // The wait-for graph, lane by lane.
  const std::string& noun = run.noun;
  for (int l = 0; l < n; ++l) run.graph.add_node(span_text(l, l, noun));
  std::vector<Wait> waits(static_cast<std::size_t>(n));
  for (int l = 0; l < n; ++l) {
    const simt::Lane& ln = r.lanes[static_cast<std::size_t>(l)];
    if (ln.exited) continue;
    Wait& w = waits[static_cast<std::size_t>(l)];
    if (parked(l)) {
      w.to = running_with(r, l);
      w.on = say("waits.reconverge", {{"pc", ln.pc}});
    } else if (ln.wait_word >= 0) {
      const simt::Word& wd = m.words[static_cast<std::size_t>(ln.wait_word)];
      if (wd.kind == simt::Word::Kind::lock && ln.seen > 0) {
        w.to = {static_cast<int>(ln.seen - 1)};
        w.on = say("waits.lock-held", {{"lock", wd.name}, {"seen", ln.seen}});
      } else if (wd.kind == simt::Word::Kind::flag && wd.owner >= 0) {
        w.to = {wd.owner};
        w.on = say("waits.its-flag", {{"flag", wd.name}, {"seen", ln.seen}});
        w.next_flag = wd.owner == (l + 1) % n;
      }
    }
    for (int t : w.to) run.graph.add_edge(l, t, w.on);
  }
  // Folded for the report: consecutive lanes that wait for the same lanes on the same thing, or
  // each for the next lane on the same kind of thing, form one line.
  const auto target_text = [&](int l) -> std::string {
    const Wait& w = waits[static_cast<std::size_t>(l)];
    if (w.next_flag) return say("waits.the-next", {{"noun", noun_word(noun)}});
    return w.to.empty() ? say("waits.nobody") : lanes_text(noun, w.to);
  };
  const auto on_text = [&](int l) {
    const std::string& on = waits[static_cast<std::size_t>(l)].on;
    const auto p = on.find('[');  // "its flag[3] (read 0)" folds with "its flag[4] (read 0)"
    return p == std::string::npos ? on : on.substr(0, p) + on.substr(on.find(']') + 1);
  };
  const auto exited = [&](int l) { return r.lanes[static_cast<std::size_t>(l)].exited; };
  for (int l = 0; l < n;) {
    if (exited(l)) {
      ++l;
      continue;
    }
    int j = l;
    while (j + 1 < n && !exited(j + 1) && target_text(j + 1) == target_text(l) && on_text(j + 1) == on_text(l)) ++j;
    const bool around = waits[static_cast<std::size_t>(l)].next_flag && j == n - 1 && l == 0;
    const std::string line = say(j > l ? "waits.many" : "waits.one",
                                 {{"who", span_text(l, j, noun)}, {"whom", target_text(l)}, {"on", on_text(l)}});
    run.waits.push_back(around ? say("waits.around", {{"line", line}, {"last", span_text(j, j, noun)},
                                                      {"first", span_text(0, 0, noun)}})
                               : line);
    l = j + 1;
  }
  return run;
}

std::string blocks_text(int first, int last) { return span_text(first, last, "block"); }
Record rec(State s, int on, long long seen) {
  Record r;
  r.start_ns = 0;
  r.state = static_cast<int>(s);
  r.on = on;
  r.seen = seen;
  return r;
}

// Every scenario words "late" and "never started" the same way; what a finished record did and on
// what a stuck one gave up differ.
Describe describe_as(std::string finished, std::function<std::string(const Record&)> gave_up) {
  return [finished = std::move(finished), gave_up = std::move(gave_up)](int, const Record& r) -> std::string {
    switch (static_cast<State>(r.state)) {
      case State::finished: return finished;
      case State::gave_up: return gave_up(r);
      case State::late: return say("state.late");
      case State::never_started: return say("state.never-started");
    }
    return "";
  };
}

std::string parked_or(const Record& r, const std::string& spun) {
  return r.on < 0 ? say("describe.parked", {{"pc", r.seen}}) : spun;
}

Coresidency model_coresidency() {
  return assumed_coresidency(kGridThreads, 32, kH100Limits, say("model.assumed-h100"));
}

Verdict stuck_agreement(const std::vector<Record>& gpu, const std::vector<Record>& model, const Describe& describe,
                        const std::string& noun) {
  const auto g = fold(gpu, describe), m = fold(model, describe);
  if (g == m) return {true, ranges_text(g, noun)};
  return {false, say("judge.gpu-model", {{"gpu", ranges_text(g, noun)}, {"model", ranges_text(m, noun)}})};
}

Verdict ended_at_deadline(const std::vector<Record>& records, bool timed_out, int deadline_ms, const std::string& noun) {
  int missing = 0, gave = 0;
  long long last_end = -1;
  for (const auto& r : records) {
    if (r.state == static_cast<int>(State::never_started)) ++missing;
    if (r.state == static_cast<int>(State::gave_up)) {
      ++gave;
      last_end = std::max(last_end, r.end_ns);
    }
  }
  const std::string last = last_end >= 0 ? report::fixed(static_cast<double>(last_end) / 1e6, 3) + " ms" : "-";
  const std::string gave_up =
      say("judge.gave-up", {{"count", gave}, {"nouns", gave == 1 ? noun_word(noun) : nouns_word(noun)}, {"last", last},
                            {"deadline", deadline_ms}});
  return {missing == 0 && gave > 0 && timed_out,
          missing ? say("judge.gave-up-missing", {{"gave-up", gave_up}, {"missing", missing}}) : gave_up};
}

Verdict completed(const GridRun& run) {
  return {run.completed && run.result_ok, run.completed ? run.result : say(kGaveUpAtDeadline)};
}

Verdict cooperative_refused(const CoopRun& c) {
  const bool nothing_ran = std::all_of(c.run.records.begin(), c.run.records.end(), [](const Record& r) {
    return r.state == static_cast<int>(State::never_started);
  });
  return {!c.launched && c.error_code == 720 && nothing_ran,
          say(nothing_ran ? "judge.refused-none-ran" : "judge.refused-one-ran",
              {{"error", c.error_name}, {"code", c.error_code}, {"ms", report::fixed(c.host_ms, 3)}})};
}

Verdict cooperative_completed(const CoopRun& c) {
  return {c.launched && c.run.completed && c.run.result_ok, cooperative_outcome(c)};
}

std::string cooperative_outcome(const CoopRun& c) {
  if (c.launched) return say("judge.ran", {{"result", c.run.completed ? c.run.result : say(kGaveUpAtDeadline)}});
  return c.error_name + " (" + number_text(c.error_code) + "): " + c.error_text;
}

Verdict model_cycle(const ScenarioModel& m) {
  const std::string cycle = m.graph.cycle_text();
  return {m.deadlock && !cycle.empty(), cycle.empty() ? say("judge.no-cycle") : cycle};
}

Verdict lock_count_exact(const LaneRun& run) {
  const std::string counter = say("judge.counter", {{"count", run.count}, {"expected", run.expected}});
  return {!run.timed_out && run.count == run.expected,
          run.timed_out ? say("judge.counter-gave-up", {{"counter", counter}, {"gave-up", say(kLaneGaveUpAtDeadline)}})
                        : counter};
}

Verdict fix_counts_exact(const LockOrderRun& run) {
  return {run.count_a == run.expected && run.count_b == run.expected,
          say("judge.fix-counts", {{"a", run.count_a}, {"b", run.count_b}, {"expected", run.expected}})};
}

int tickets_in_order(const std::vector<int>& tickets) {
  int in_order = 0;
  for (std::size_t i = 0; i < tickets.size(); ++i) in_order += tickets[i] == static_cast<int>(i);
  return in_order;
}

bool as_specified(const BarrierObservation& seen, const ScenarioModel& model, const Describe& describe) {
  return fold(barrier_records(seen), describe) == fold(model.records, describe);
}

Verdict child_ended(const ChildOutcome& c) {
  switch (c.status) {
    case ChildOutcome::Status::ok: return {true, say("judge.child-answered")};
    case ChildOutcome::Status::cuda_error: return {true, say("judge.child-cuda-error", {{"message", c.message}})};
    default: return {false, c.message};
  }
}

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
    // The same graph as rows, which the HTML page draws: who waits for whom, and on what.
    Table g("wait-for", say("table.wait-for"));
    g.column("waiter", say("column.waiter")).column("waits-for", say("column.waits-for")).column("on", say("column.on"));
    for (const auto& e : m.graph.edges)
      g.row({{"waiter", m.graph.nodes[static_cast<std::size_t>(e.from)]},
             {"waits-for", m.graph.nodes[static_cast<std::size_t>(e.to)]},
             {"on", e.on}});
    g.picture = report::graph_picture("waiter", "waits-for", "on");
    s.add(std::move(g));
  }
  s.fact("model-predicted", say("facts.model-predicted"), ranges_text(fold(m.records, describe), noun));
}

void add_model_checks(Section& s, const ScenarioModel& m, bool expect_deadlock) {
  if (expect_deadlock) {
    s.check("model-deadlocks", say("checks.model-deadlocks"), model_cycle(m));
  }
  s.check("model-fix-completes", say("checks.model-fix-completes"), m.fix_completes, m.fix_result);
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
