// The lock protocols as core/simt programs, the combining lock's own instructions, and the trace
// in this lesson's words, as report tables.
#include "techniques/lock/model.hpp"

#include <algorithm>

namespace cudasync::lock {

using simt::Instr;

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::completed: return "completes";
    case Outcome::deadlock: return "deadlock";
    case Outcome::step_limit: return "round limit";
  }
  return "round limit";
}

Protocol protocol_of(Variant v) {
  // Variant's order; both ttas variants run the ttas program (the counter's line is not modelled).
  static const Protocol p[kVariants] = {
      Protocol::book,    Protocol::book_atomic_add, Protocol::lock_functions,  Protocol::fenced,    Protocol::acq_rel,
      Protocol::thread_lock, Protocol::backoff,     Protocol::ticket,          Protocol::warp_aggregated,
      Protocol::combining,   Protocol::ttas,        Protocol::ttas,            Protocol::delay_after,
      Protocol::delay_before};
  return p[static_cast<int>(v)];
}

bool SimResult::answers_exact() const {
  if (static_cast<long long>(answers.size()) != expected) return false;
  std::vector<long long> sorted = answers;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k)
    if (sorted[k] != static_cast<long long>(k)) return false;
  return true;
}

namespace {

// Registers, words and the combining lock's tallies.
enum Reg { R, V, T, B };  // CAS result, the counter's value, the ticket, blocked
enum Word { kMutex, kCnt, kNext, kServing, kSlots };  // slots: state, value, server per thread
enum Tally { kHandoffs, kLargestPass, kServedByOthers, kTallies };

Instr tag(Instr i, Op op) { return i.tagged(static_cast<int>(op)); }
Op op_of(const Instr& i) { return static_cast<Op>(i.tag); }

Instr spin(int target, int reconverge, std::string code, Op op = Op::bra_r_ne0) {
  return tag(simt::branch(simt::reg_ne(R, 0), target, reconverge, std::move(code)), op);
}
Instr cas(std::string code, bool acquire = false) {
  const Instr i = tag(simt::cas(kMutex, simt::value(1), R, std::move(code)), Op::cas);
  return acquire ? i.acquiring() : i;
}
Instr load_cnt(std::string code) { return tag(simt::load(kCnt, V, std::move(code)), Op::ld_cnt); }
Instr store_cnt(std::string code) { return tag(simt::store(kCnt, simt::reg_plus(V, 1), std::move(code)), Op::st_cnt); }
Instr add_cnt(std::string code) { return tag(simt::atomic_add(kCnt, simt::value(1), -1, std::move(code)), Op::add_cnt); }
Instr release(std::string code) { return tag(simt::exch(kMutex, simt::value(0), std::move(code)), Op::exch); }
Instr fence(std::string code) { return tag(simt::fence(std::move(code)), Op::fence); }
Instr lock_held(int target, int reconverge, std::string code) {
  return tag(simt::branch(simt::word_ne(kMutex, simt::value(0)), target, reconverge, std::move(code)), Op::bra_lock_held);
}

Instr delay(std::string code) { return tag(simt::nop(std::move(code)), Op::delay); }

// Where a protocol waits inside its critical section (the blog's delay remedy).
enum class Delay { none, before_load, after_store };

// The book's lock/unlock around the blog's critical section, with optional extras.
void book_body(std::vector<Instr>& c, bool fences, bool atomic_ref, bool atomic_add, Delay wait = Delay::none) {
  const int cas_pc = static_cast<int>(c.size());
  c.push_back(atomic_ref ? cas("lock: while (!m.compare_exchange_strong(z = 0, 1, acquire))", true)
                         : cas("lock: while (atomicCAS(mutex, 0, 1) != 0)"));
  c.push_back(spin(cas_pc, cas_pc + 2, "        ;   // spin: try again"));
  if (fences) c.push_back(fence("      __threadfence();"));
  if (wait == Delay::before_load) c.push_back(delay("delay(ns);   // wait before reading"));
  if (atomic_add) {
    c.push_back(add_cnt("atomicAdd(cnt, 1);"));
  } else {
    c.push_back(load_cnt("*cnt = *cnt + 1;   // load"));
    c.push_back(store_cnt("*cnt = *cnt + 1;   // store"));
  }
  if (wait == Delay::after_store) c.push_back(delay("delay(ns);   // the blog: a delay after the increment"));
  if (fences) c.push_back(fence("unlock: __threadfence();"));
  c.push_back(release(atomic_ref ? "unlock: m.store(0, release);"
                                 : fences ? "        atomicExch(mutex, 0);" : "unlock: atomicExch(mutex, 0);"));
}

// The test before the test-and-set: a plain load of the lock word, and compare_exchange (acquire)
// only when it read 0; both go back to `target` to wait again.
void test_then_set(std::vector<Instr>& c, int target, const std::string& poll, int poll_reconverge,
                   const std::string& swap, const std::string& retry, int retry_reconverge) {
  c.push_back(lock_held(target, poll_reconverge, poll));
  c.push_back(cas(swap, true));
  c.push_back(spin(target, retry_reconverge, retry, Op::bra_retry));
}

// "blocks 0, 2-4" / "lane 3": who a combiner's pass served.
std::string ids_text(const std::string& noun, const std::vector<int>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(ids[i]) + (j > i ? "-" + std::to_string(ids[j]) : "");
    i = j + 1;
  }
  if (noun == "block") return say(ids.size() == 1 ? "model.block" : "model.blocks", {{"n", s}});
  return say(ids.size() == 1 ? "model.lane" : "model.lanes", {{"n", s}});
}

// "block 3" when every block has one thread, else "lane 3" (of its block).
struct Who {
  bool by_block = false;
  int threads = 1;
  std::string operator()(int gl) const {
    return by_block ? say("model.block", {{"n", gl}}) : say("model.lane", {{"n", gl % threads}});
  }
};

// The combining lock's slots: state (0 idle, 1 pending, 2 done), value (the request's argument,
// then its answer), server (whose pass answered it) for each of `lanes` threads.
void combining_code(std::vector<Instr>& c, int lanes, const Who& who) {
  const int state = kSlots, value = kSlots + lanes, server = kSlots + 2 * lanes;
  c.push_back(tag(simt::custom([=](simt::Exec& x) {
                    x.word(state + x.lane()) = 1;
                    x.word(value + x.lane()) = 1;
                    x.word(server + x.lane()) = -1;
                    x.text = say("model.requests");
                    return false;
                  }, "slot[me] = {pending, +1};   // the request: fetch-and-add(1)"),
                  Op::publish));
  c.push_back(tag(simt::custom([=](simt::Exec& x) {
                    const int me = x.lane();
                    if (x.word(state + me) != 2) {
                      x.text = say("model.no-answer");
                      return false;
                    }
                    const long long answer = x.word(value + me), by = x.word(server + me);
                    x.log(answer);
                    if (by != me) ++x.tally(kServedByOthers);
                    x.text = by == me ? say("model.answer-own", {{"answer", answer}})
                                      : say("model.answer-from", {{"answer", answer}, {"who", who(static_cast<int>(by))}});
                    return true;
                  }, "wait: if (slot[me] is done) goto 8;   // its answer is in the slot", 8, 8),
                  Op::bra_slot_done));
  test_then_set(c, 1, "      if (m.load(relaxed) != 0) goto wait;", 8,
                "      r = m.compare_exchange(z = 0, 1, acquire);", "      if (!r) goto wait;", 8);
  c.push_back(tag(simt::custom([=](simt::Exec& x) {
                    const long long before = x.word(kCnt);  // from L2: the acquire dropped this SM's L1
                    long long cnt = before;
                    std::vector<int> served;
                    for (int k = 0; k < x.lanes(); ++k)
                      if (x.word(state + k) == 1) {
                        const long long arg = x.word(value + k);
                        x.word(state + k) = 2;
                        x.word(value + k) = cnt;
                        x.word(server + k) = x.lane();
                        cnt += arg;
                        served.push_back(k);
                      }
                    x.text = served.empty()
                                 ? say("model.serves-nobody", {{"before", before}, {"after", cnt}})
                                 : say("model.serves", {{"who", ids_text(who.by_block ? "block" : "lane", served)},
                                                        {"before", before},
                                                        {"after", cnt}});
                    x.word(kCnt) = cnt;
                    x.keep_in_l1(kCnt, cnt);
                    ++x.tally(kHandoffs);
                    x.tally(kLargestPass) = std::max<long long>(x.tally(kLargestPass), static_cast<long long>(served.size()));
                    return false;
                  }, "      for each slot s: if pending { slot[s] = {done, cnt}; cnt += 1; }"),
                  Op::combine));
  c.push_back(release("      m.store(0, release);"));
  c.push_back(tag(simt::jump(1, "      goto wait;   // its own request was served too"), Op::jmp));
}

// The catalog key of each Protocol's name, in its order.
const char* const kProgramNames[] = {"program.book",   "program.book-atomic-add", "program.lock-functions",
                                     "program.fenced", "program.acq-rel",         "program.thread-lock",
                                     "program.backoff", "program.ticket",         "program.warp-aggregated",
                                     "program.combining", "program.ttas",         "program.delay-after",
                                     "program.delay-before"};

void protocol_code(std::vector<Instr>& c, Protocol p, int lanes, const Who& who) {
  switch (p) {
    case Protocol::book: return book_body(c, false, false, false);
    case Protocol::book_atomic_add: return book_body(c, false, false, true);
    case Protocol::fenced: return book_body(c, true, false, false);
    case Protocol::acq_rel: return book_body(c, false, true, false);
    case Protocol::delay_after: return book_body(c, false, false, false, Delay::after_store);
    case Protocol::delay_before: return book_body(c, false, false, false, Delay::before_load);
    case Protocol::lock_functions:
      c = {cas("lock() { while (atomicCAS(mutex, 0, 1) != 0)"), spin(0, 2, "          ;   // spin: try again"),
           fence("        __threadfence(); }   // lock() returns"), load_cnt("*cnt = *cnt + 1;   // load"),
           store_cnt("*cnt = *cnt + 1;   // store"), fence("unlock() { __threadfence();"),
           release("          atomicExch(mutex, 0); }")};
      return;
    case Protocol::thread_lock:
      c = {tag(simt::set(B, simt::value(1), "bool blocked = true;"), Op::clear_done),
           tag(simt::branch(simt::reg_eq(B, 0), 9, 9, "while (blocked) {"), Op::bra_done),
           cas("  if (0 == atomicCAS(mutex, 0, 1)) {"), spin(8, 8, "  (else: on to the end of the loop body)"),
           add_cnt("    atomicAdd(cnt, 1);"), fence("    __threadfence();"), release("    atomicExch(mutex, 0);"),
           tag(simt::set(B, simt::value(0), "    blocked = false; }"), Op::set_done), tag(simt::jump(1, "}"), Op::jmp)};
      return;
    case Protocol::backoff:
      c = {cas("lock: r = m.compare_exchange(z = 0, 1, acquire)", true),
           tag(simt::branch(simt::reg_eq(R, 0), 4, 4, "      while (!r) {"), Op::bra_r_eq0),
           tag(simt::nop("        __nanosleep(ns); ns = min(2 * ns, max);"), Op::sleep),
           tag(simt::jump(0, "        r = m.compare_exchange(...); }"), Op::jmp), load_cnt("*cnt = *cnt + 1;   // load"),
           store_cnt("*cnt = *cnt + 1;   // store"), release("unlock: m.store(0, release);")};
      return;
    case Protocol::ticket:
      c = {tag(simt::atomic_add(kNext, simt::value(1), T, "lock: t = atomicAdd(&next, 1);"), Op::take_ticket),
           tag(simt::branch(simt::word_ne(kServing, simt::reg_plus(T)), 1, 2,
                            "      while (serving.load(acquire) != t) back_off(t - serving);")
                   .acquiring(),
               Op::bra_not_turn),
           load_cnt("*cnt = *cnt + 1;   // load"), store_cnt("*cnt = *cnt + 1;   // store"),
           tag(simt::store(kServing, simt::reg_plus(T, 1), "unlock: serving.store(t + 1, release);"), Op::st_serving)};
      return;
    case Protocol::combining: return combining_code(c, lanes, who);
    case Protocol::ttas:
      test_then_set(c, 0, "lock: while (m.load(relaxed) != 0) ;   // test", 1,
                    "      r = m.compare_exchange(z = 0, 1, acquire);   // test-and-set", "      if (!r) goto lock;", 3);
      c.push_back(load_cnt("*cnt = *cnt + 1;   // load"));
      c.push_back(store_cnt("*cnt = *cnt + 1;   // store"));
      c.push_back(release("unlock: m.store(0, release);"));
      return;
    case Protocol::warp_aggregated:
      c = {tag(simt::branch(simt::not_leader(), 6, 6, "if (lane == leader) {"), Op::bra_not_leader),
           cas("  while (!m.compare_exchange_strong(z = 0, 1, acquire))", true), spin(1, 3, "    ;   // spin"),
           load_cnt("  v = *cnt;"),
           tag(simt::store(kCnt, simt::reg_plus_live_lanes(V), "  *cnt = v + n;   // the warp's n updates"), Op::st_cnt),
           release("  m.store(0, release); }"), tag(simt::syncwarp("__syncwarp();"), Op::syncwarp)};
      return;
  }
}

// What one traced lane did in one step, in the words of the lesson's traces.
std::string cell(const simt::Machine& m, const simt::Event& e) {
  using K = simt::Event::Kind;
  if (e.kind == K::exited) return say("cell.exited");
  if (e.kind == K::parked) return say(e.holds ? "cell.holds-waits-at" : "cell.waits-at", {{"pc", e.pc}});
  if (e.kind == K::at_sync) return say("cell.waits-at-syncwarp");
  const Instr& in = m.code[static_cast<std::size_t>(e.pc)];
  const bool back = in.target <= e.pc;
  const std::string n = std::to_string(e.wrote);
  switch (op_of(in)) {
    case Op::cas: return say(e.taken ? "cell.cas-takes" : "cell.cas-taken");
    case Op::bra_r_ne0: return say(e.taken ? (back ? "cell.spins" : "cell.skips") : back ? "cell.leaves-loop" : "cell.goes-in");
    case Op::bra_retry: return say(e.taken ? (back ? "cell.spins" : "cell.skips") : "cell.has-lock");
    case Op::bra_r_eq0: return say(e.taken ? "cell.leaves-loop" : "cell.stays-in-loop");
    case Op::bra_done: return say(e.taken ? "cell.leaves-loop" : "cell.tries");
    case Op::jmp: return say("cell.loops-back");
    case Op::clear_done: return "blocked = true";
    case Op::set_done: return "blocked = false";
    case Op::ld_cnt: {
      if (e.from == simt::Event::From::l1_stale) return say("cell.load-stale", {{"v", e.read}, {"l2", e.l2}});
      return say(e.from == simt::Event::From::l1 ? "cell.load-l1-hit" : "cell.load-from-l2", {{"v", e.read}});
    }
    case Op::st_cnt: return "cnt = " + n;
    case Op::add_cnt: return "atomicAdd: cnt = " + n;
    case Op::exch: return say("cell.releases");
    case Op::fence: return say("cell.fence");
    case Op::sleep: return say("cell.sleeps");
    case Op::delay: return say("cell.delay");
    case Op::take_ticket: return say("cell.ticket", {{"ticket", e.read}});
    case Op::bra_not_turn: return e.taken ? say("cell.serving-waits", {{"serving", e.read}}) : say("cell.its-turn");
    case Op::st_serving: return "serving = " + n;
    case Op::bra_not_leader: return say(e.taken ? "cell.not-leader" : "cell.leader");
    case Op::syncwarp: return "__syncwarp";
    case Op::loop: return say(e.taken ? "cell.next-iteration" : "cell.last-done");
    case Op::exit: return say("cell.exits");
    case Op::bra_lock_held: return say(e.taken ? "cell.lock-taken-polls" : "cell.reads-0");
    case Op::publish:
    case Op::bra_slot_done:
    case Op::combine: return e.text;
  }
  return e.text;
}

// "lane 0 goes to 2", "lanes 1-3 go to 0"
std::string lanes_go(std::uint32_t mask, int pc) {
  const bool one = (mask & (mask - 1u)) == 0;
  return say(one ? "model.lane-goes" : "model.lanes-go", {{"lanes", simt::mask_text(mask)}, {"pc", pc}});
}

TraceRow row_of(const simt::Machine& m, const simt::Row& r, const std::vector<int>& traced, bool by_block) {
  TraceRow row;
  row.step = r.step;
  for (const auto& e : r.lanes) row.cells.push_back(cell(m, e));
  row.mutex = r.memory[kMutex];
  row.cnt = r.memory[kCnt];
  for (int k : traced) {
    if (!by_block && k > 0) break;
    const long long line = r.l1[static_cast<std::size_t>(k) * m.words.size() + kCnt];
    row.l1 += (row.l1.empty() ? "SM" : ", SM") + std::to_string(k) + " " +
              (line == simt::kAbsent ? std::string("-") : std::to_string(line));
  }
  for (const auto& s : r.splits)
    if (s.warp == 0)
      row.note = say("model.split", {{"first", lanes_go(s.fall, s.next)},
                                     {"second", lanes_go(s.taken, s.target)},
                                     {"pc", s.reconverge}});
  if (r.stuck || r.repeats >= 0) {
    const std::string end = r.stuck ? say("model.nobody-moves") : say("model.repeats", {{"step", r.repeats}});
    row.note = row.note.empty() ? end : say("model.note-and", {{"note", row.note}, {"more", end}});
  }
  return row;
}

void describe_deadlock(const SimConfig& c, const simt::Result& r, const Who& who, SimResult& res) {
  const int h = r.holder[kMutex];
  if (h >= 0) {
    const int pc = r.lanes[static_cast<std::size_t>(h)].pc;
    const std::string holder =
        c.threads > kWarpSize ? say("model.of-warp", {{"who", who(h)}, {"warp", (h % c.threads) / kWarpSize}}) : who(h);
    res.holder = say(c.regime == Regime::lockstep ? "model.holder-lockstep" : "model.holder",
                     {{"who", holder}, {"pc", pc}});
  } else {
    res.holder = say("model.nobody-holds");
  }
  const std::uint32_t spin = r.warp_running.empty() ? 0u : r.warp_running.front();
  if (c.regime == Regime::lockstep && spin) {
    const auto others = std::count_if(r.warp_running.begin() + 1, r.warp_running.end(), [](std::uint32_t m) { return m != 0; });
    res.spinners = say("model.spinners", {{"lanes", simt::mask_text(spin)}, {"pc", r.warp_pc.front()}});
    if (others) res.spinners += say("model.more-warps-spin", {{"warps", others}});
  } else {
    res.spinners = say("model.others-spin");
  }
}

}  // namespace

simt::Machine machine_of(const SimConfig& c) {
  simt::Machine m;
  m.name = say(kProgramNames[static_cast<int>(c.protocol)]);
  m.scheduling = c.regime;
  m.blocks = c.blocks;
  m.threads = c.threads;
  m.iters = c.iters;
  m.tallies = kTallies;
  m.words = {{"mutex", simt::Word::Kind::lock}, {"cnt", simt::Word::Kind::plain, true}, {"next"}, {"serving"}};
  const int lanes = m.lanes();
  if (c.protocol == Protocol::combining) {
    for (const char* field : {"state", "value", "server"})
      for (int k = 0; k < lanes; ++k)
        m.words.push_back({std::string("slot[") + std::to_string(k) + "]." + field, simt::Word::Kind::plain, false,
                           std::string(field) == "server"});
  }
  protocol_code(m.code, c.protocol, lanes, Who{c.threads == 1, c.threads});
  const int pc = static_cast<int>(m.code.size());
  m.code.push_back(tag(simt::loop(0, pc + 1, "if (++i < iters) goto top;"), Op::loop));
  m.code.push_back(tag(simt::exit("return;"), Op::exit));
  return m;
}

simt::Machine program_of(Protocol p) {
  SimConfig c;
  c.protocol = p;
  c.threads = 1;
  return machine_of(c);
}

SimResult simulate(const SimConfig& c) {
  const Who who{c.threads == 1, c.threads};
  const simt::Machine m = machine_of(c);
  simt::Trace t;
  t.rows = c.trace_rows;
  const int traced = std::min(c.trace_lanes, who.by_block ? c.blocks : c.threads);
  for (int k = 0; k < traced; ++k) t.lanes.push_back(k);  // global lane k: block k (by block) or lane k of block 0
  const simt::Result r = simt::run(m, t, c.max_rounds);
  SimResult res;
  res.config = c;
  res.outcome = r.outcome;
  res.rounds = r.steps;
  res.count = r.memory[kCnt];
  res.expected = static_cast<long long>(c.blocks) * c.threads * c.iters;
  if (r.deadlock()) {
    res.repeat_from = r.repeat_from;
    res.cycle_rounds = r.steps - r.repeat_from;
    describe_deadlock(c, r, who, res);
  }
  for (int k : t.lanes) res.columns.push_back(say(who.by_block ? "model.block" : "model.lane", {{"n", k}}));
  for (const auto& row : r.trace) res.trace.push_back(row_of(m, row, t.lanes, who.by_block));
  res.rows_not_shown = r.rows_not_shown;
  res.stale_reads = r.stale_reads;
  if (r.first_stale)
    res.first_stale = say("model.first-stale", {{"step", r.first_stale->step},
                                                {"who", who(r.first_stale->lane)},
                                                {"read", r.first_stale->read},
                                                {"l2", r.first_stale->l2}});
  res.answers = r.log;
  res.handoffs = r.tallies[kHandoffs];
  res.largest_pass = r.tallies[kLargestPass];
  res.served_by_others = r.tallies[kServedByOthers];
  return res;
}

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
