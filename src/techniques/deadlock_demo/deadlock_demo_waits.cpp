#include "techniques/deadlock_demo/deadlock_demo_waits.hpp"

#include <algorithm>

#include "techniques/deadlock_demo/deadlock_demo.hpp"

namespace cudasync::deadlock_demo {

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

}  // namespace

std::string lanes_text(const std::string& noun, const std::vector<int>& lanes) {
  std::string s;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(lanes[i]) + (j > i ? "-" + std::to_string(lanes[j]) : "");
    i = j;
  }
  return say("span.list", {{"nouns", lanes.size() == 1 ? noun_word(noun) : nouns_word(noun)}, {"list", s}});
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

}  // namespace cudasync::deadlock_demo
