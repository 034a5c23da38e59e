#include "techniques/deadlock_demo/deadlock_demo_trace.hpp"

#include <algorithm>
#include <map>

namespace cudasync::deadlock_demo {

using report::Table;
using report::Value;
using I = std::int64_t;

namespace {

std::vector<int> bits(std::uint32_t mask) {
  std::vector<int> out;
  for (int k = 0; k < 32; ++k)
    if ((mask >> k) & 1u) out.push_back(k);
  return out;
}

}  // namespace

std::string verdict(const ModelRun& r) {
  const simt::Result& res = r.result;
  if (res.completed()) {
    const long long count = res.word("counter");
    if (count < 0) return say("verdict.completes", {{"steps", res.steps}});
    return say("verdict.completes-counter", {{"steps", res.steps}, {"count", count}, {"lanes", res.machine.lanes()}});
  }
  if (res.deadlock())
    return res.repeat_from == 0 ? say("verdict.deadlock-start", {{"steps", res.steps}})
                                : say("verdict.deadlock", {{"steps", res.steps}, {"from", res.repeat_from}});
  return say("verdict.undecided", {{"steps", res.steps}});
}

std::string event_text(const ModelRun& r, const simt::Event& e) {
  switch (e.kind) {
    case simt::Event::Kind::exited: return say("event.exited");
    case simt::Event::Kind::parked: return say("event.waits-at", {{"pc", e.pc}});
    case simt::Event::Kind::at_sync: return say("event.waits-at-syncwarp");
    case simt::Event::Kind::ran: break;
  }
  const simt::Machine& m = r.result.machine;
  const simt::Instr& in = m.code[static_cast<std::size_t>(e.pc)];
  const std::string word = e.word >= 0 ? m.words[static_cast<std::size_t>(e.word)].name : "";
  switch (in.op) {
    case simt::Op::cas:
      return e.read == 0 ? say("event.cas-takes", {{"word", word}})
                         : say("event.cas-held", {{"word", word}, {"read", e.read}, {"holder", span_text(static_cast<int>(e.read - 1), static_cast<int>(e.read - 1), r.noun)}});
    case simt::Op::load: return say("event.reads", {{"word", word}, {"read", e.read}});
    case simt::Op::store:
    case simt::Op::add: return word + " = " + number_text(e.wrote);
    case simt::Op::exch: return e.wrote == 0 ? say("event.releases", {{"word", word}}) : word + " = " + number_text(e.wrote);
    case simt::Op::loop: return say(e.taken ? "event.next-round" : "event.done");
    case simt::Op::branch:
      if (e.taken) return say(in.target <= e.pc ? "event.spins" : "event.jumps");
      return say(in.target <= e.pc ? "event.leaves-loop" : "event.goes-on");
    case simt::Op::exit: return say("event.exits");
    default: return e.text;
  }
}

std::string memory_text(const ModelRun& r, const std::vector<long long>& memory) {
  const simt::Machine& m = r.result.machine;
  const auto traced = r.result.traced.size();
  std::map<std::string, std::vector<long long>> families;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < m.words.size() && i < memory.size(); ++i) {
    const std::string& name = m.words[i].name;
    const auto sp = name.find('[');
    const std::string fam = sp == std::string::npos ? name : name.substr(0, sp);
    if (!families.count(fam)) order.push_back(fam);
    families[fam].push_back(memory[i]);
  }
  std::string s;
  for (const auto& fam : order) {
    const auto& v = families[fam];
    std::string item = fam + " ";
    const std::size_t shown = v.size() == 1 ? 1 : std::min(v.size(), traced);
    for (std::size_t i = 0; i < shown; ++i) item += (i ? "," : "") + number_text(v[i]);
    if (shown < v.size()) item += ",...";
    s += (s.empty() ? "" : ", ") + item;
  }
  return s;
}

std::string row_note(const ModelRun& r, const simt::Row& row) {
  std::string note;
  for (const simt::Split& sp : row.splits)
    note += (note.empty() ? "" : say("list.separator")) + say("note.split", {{"taken", lanes_text(r.noun, bits(sp.taken))},
                                                            {"target", sp.target},
                                                            {"fall", lanes_text(r.noun, bits(sp.fall))},
                                                            {"next", sp.next},
                                                            {"reconverge", sp.reconverge}});
  if (row.repeats >= 0)
    note += (note.empty() ? std::string() : say("list.separator")) +
            (row.repeats == 0 ? say("note.repeats-start") : say("note.repeats", {{"step", row.repeats}}));
  if (row.stuck) note += (note.empty() ? std::string() : say("list.separator")) + say("note.nobody-moves");
  return note;
}

Table program_table(const simt::Machine& m, const std::string& id) {
  Table t(id, say("trace.program-title", {{"name", m.name}}));
  t.column("pc", "pc").column("code", say("trace.code"));
  for (std::size_t i = 0; i < m.code.size(); ++i) t.row({{"pc", static_cast<I>(i)}, {"code", m.code[i].code}});
  return t;
}

Table trace_table(const ModelRun& r, const std::string& id, const std::string& title) {
  const simt::Result& res = r.result;
  Table t(id, title);
  t.column("step", say("column.step"));
  for (int lane : res.traced) t.column(r.noun + "-" + number_text(lane), span_text(lane, lane, r.noun));
  t.column("memory", say("trace.memory")).column("note", say("trace.note"));
  for (const auto& row : res.trace) {
    std::vector<std::pair<std::string, Value>> cells{{"step", static_cast<I>(row.step)}};
    for (std::size_t k = 0; k < row.lanes.size(); ++k) {
      const std::string text = event_text(r, row.lanes[k]);
      cells.emplace_back(r.noun + "-" + number_text(res.traced[k]), text.empty() ? Value{report::Undefined{}} : Value{text});
    }
    cells.emplace_back("memory", memory_text(r, row.memory));
    cells.emplace_back("note", row_note(r, row));
    t.row(cells);
  }
  std::vector<std::string> lanes;
  for (int lane : res.traced) lanes.push_back(r.noun + "-" + number_text(lane));
  t.picture = report::grid_picture("step", lanes);  // --html draws it
  if (res.rows_not_shown > 0)
    t.legend.push_back(say("trace.more-steps", {{"count", res.rows_not_shown}, {"verdict", verdict(r)}}));
  if (res.machine.scheduling == simt::Scheduling::lockstep) t.legend.push_back(say("trace.waits-at-legend"));
  return t;
}

void add_waits(report::Section& s, const ModelRun& r, const std::string& id, const std::string& label) {
  for (std::size_t i = 0; i < r.waits.size(); ++i)
    s.fact(id + "-waits-" + std::to_string(i + 1), say("facts.who-waits", {{"label", label}}), r.waits[i]);
  const std::string cycle = r.graph.cycle_text();
  if (cycle.empty()) return;
  s.fact(id + "-cycle", say("facts.wait-for-cycle", {{"label", label}}), cycle);
  s.fact(id + "-cycle-nodes", say("facts.cycle-nodes", {{"label", label}}),
         static_cast<std::int64_t>(r.graph.find_cycle().size()), report::Format::count);
}

Verdict run_cycle(const ModelRun& r) {
  const std::string cycle = r.graph.cycle_text();
  return {r.deadlock() && !cycle.empty(), r.deadlock() ? (cycle.empty() ? say("judge.no-cycle") : cycle) : verdict(r)};
}

}  // namespace cudasync::deadlock_demo
