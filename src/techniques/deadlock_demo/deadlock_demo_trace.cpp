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
    return "completes in " + number_text(res.steps) + " steps" +
           (count >= 0 ? ", counter " + number_text(count) + " of " + number_text(res.machine.lanes()) : "");
  }
  if (res.deadlock())
    return "deadlock: the state after step " + number_text(res.steps) + " is the state " +
           (res.repeat_from == 0 ? std::string("it started in") : "after step " + number_text(res.repeat_from));
  return "undecided after " + number_text(res.steps) + " steps";
}

std::string event_text(const ModelRun& r, const simt::Event& e) {
  switch (e.kind) {
    case simt::Event::Kind::exited: return "exited";
    case simt::Event::Kind::parked: return "waits at " + number_text(e.pc);
    case simt::Event::Kind::at_sync: return "waits at __syncwarp";
    case simt::Event::Kind::ran: break;
  }
  const simt::Machine& m = r.result.machine;
  const simt::Instr& in = m.code[static_cast<std::size_t>(e.pc)];
  const std::string word = e.word >= 0 ? m.words[static_cast<std::size_t>(e.word)].name : "";
  switch (in.op) {
    case simt::Op::cas:
      return "CAS " + word + ": " + number_text(e.read) +
             (e.read == 0 ? ", takes it" : " (held by " + r.noun + " " + number_text(e.read - 1) + ")");
    case simt::Op::load: return "reads " + word + " = " + number_text(e.read);
    case simt::Op::store:
    case simt::Op::add: return word + " = " + number_text(e.wrote);
    case simt::Op::exch: return e.wrote == 0 ? "releases " + word : word + " = " + number_text(e.wrote);
    case simt::Op::loop: return e.taken ? "next round" : "done";
    case simt::Op::branch:
      if (e.taken) return in.target <= e.pc ? "spins" : "jumps";
      return in.target <= e.pc ? "leaves the loop" : "goes on";
    case simt::Op::exit: return "exits";
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
    note += (note.empty() ? "" : "; ") + lanes_text(r.noun, bits(sp.taken)) + " go to " + number_text(sp.target) + ", " +
            lanes_text(r.noun, bits(sp.fall)) + " to " + number_text(sp.next) + "; they meet again at " + number_text(sp.reconverge);
  if (row.repeats >= 0)
    note += std::string(note.empty() ? "" : "; ") +
            (row.repeats == 0 ? std::string("the same state as at the start")
                              : "the same state as after step " + number_text(row.repeats)) +
            ": it repeats forever";
  if (row.stuck) note += std::string(note.empty() ? "" : "; ") + "nobody can move";
  return note;
}

Table program_table(const simt::Machine& m, const std::string& id) {
  Table t(id, "the program the model runs: " + m.name);
  t.column("pc", "pc").column("code", "code");
  for (std::size_t i = 0; i < m.code.size(); ++i) t.row({{"pc", static_cast<I>(i)}, {"code", m.code[i].code}});
  return t;
}

Table trace_table(const ModelRun& r, const std::string& id, const std::string& title) {
  const simt::Result& res = r.result;
  Table t(id, title);
  t.column("step", "step");
  for (int lane : res.traced) t.column(r.noun + "-" + number_text(lane), r.noun + " " + number_text(lane));
  t.column("memory", "memory").column("note", "note");
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
  if (res.rows_not_shown > 0) t.legend.push_back("... " + number_text(res.rows_not_shown) + " more steps, not shown; " + verdict(r));
  if (res.machine.scheduling == simt::Scheduling::lockstep)
    t.legend.push_back("waits at N: the warp is not running this lane; it resumes at pc N when the warp reconverges");
  return t;
}

void add_waits(report::Section& s, const ModelRun& r, const std::string& id, const std::string& label) {
  for (std::size_t i = 0; i < r.waits.size(); ++i)
    s.fact(id + "-waits-" + std::to_string(i + 1), label + ": who waits for whom", r.waits[i]);
  const std::string cycle = r.graph.cycle_text();
  if (!cycle.empty()) s.fact(id + "-cycle", label + ": wait-for cycle", cycle);
}

Verdict run_cycle(const ModelRun& r) {
  const std::string cycle = r.graph.cycle_text();
  return {r.deadlock() && !cycle.empty(), r.deadlock() ? (cycle.empty() ? "no cycle found" : cycle) : verdict(r)};
}

}  // namespace cudasync::deadlock_demo
