#include "techniques/deadlock_demo/deadlock_demo_model.hpp"

#include <algorithm>
#include <functional>

namespace cudasync::deadlock_demo {

namespace {

constexpr int kTraceLanes = 4;
constexpr int kTraceRows = 12;

std::string blocks_text(int first, int last) { return span_text(first, last, "block"); }
Record rec(State s, int on = -1, long long seen = 0) {
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

}  // namespace

Coresidency model_coresidency() {
  return assumed_coresidency(kGridThreads, 32, kH100Limits, say("model.assumed-h100"));
}

// ---- grid-oversubscribed --------------------------------------------------------------------------

Describe barrier_describe(int blocks) {
  return describe_as(say("describe.passed-barrier"), [blocks](const Record& r) {
    return say("describe.spun-on-counter", {{"seen", r.seen}, {"blocks", blocks}});
  });
}

ScenarioModel grid_barrier_model(int blocks, const Coresidency& c) {
  ScenarioModel m;
  const int limit = c.limit();
  const int first = std::min(blocks, limit);
  m.steps.push_back({say("model.block-scheduler"), say("grid-model.starts", {{"blocks", blocks_text(0, first - 1)},
                                                                             {"limit", limit}, {"coresidency", c.text()}})});
  m.steps.push_back({blocks_text(0, first - 1), say("grid-model.each-add", {{"first", first}, {"blocks", blocks}})});
  if (blocks <= limit) {
    m.steps.push_back({blocks_text(0, blocks - 1), say("grid-model.pass", {{"blocks", blocks}})});
    m.records.assign(static_cast<std::size_t>(blocks), rec(State::finished, 0, blocks));
  } else {
    m.deadlock = true;
    const std::string resident = blocks_text(0, limit - 1), waiting = blocks_text(limit, blocks - 1);
    m.steps.push_back({resident, say("grid-model.spin", {{"blocks", blocks}})});
    m.steps.push_back({waiting, say("grid-model.wait-slot")});
    m.steps.push_back({say("model.deadlock"), say("grid-model.deadlock")});
    m.steps.push_back({say("model.the-deadline"), say("grid-model.deadline", {{"resident", resident}, {"waiting", waiting}})});
    const int a = m.graph.add_node(say("model.node-resident", {{"blocks", resident}}));
    const int b = m.graph.add_node(say("model.node-no-slot", {{"blocks", waiting}}));
    m.graph.add_edge(a, b, say("grid-model.edge-counter", {{"limit", limit}, {"blocks", blocks}}));
    m.graph.add_edge(b, a, say("model.edge-slot", {{"limit", limit}}));
    m.waits = {say("grid-model.waits-counter", {{"resident", resident}, {"waiting", waiting}, {"limit", limit}, {"blocks", blocks}}),
               say("model.waits-slot", {{"waiting", waiting}, {"resident", resident}})};
    m.records.assign(static_cast<std::size_t>(limit), rec(State::gave_up, 0, limit));
    m.records.resize(static_cast<std::size_t>(blocks), rec(State::late, 0));
  }
  m.fix_steps = {
      {say("grid-model.fix-1"), say("grid-model.fix-1-what", {{"limit", limit}})},
      {say("grid-model.fix-2"), say(blocks <= limit ? "grid-model.fix-2-fits" : "grid-model.fix-2-refused",
                                    {{"blocks", blocks}})},
  };
  m.fix_completes = true;
  m.fix_result = say("grid-model.fix-result",
                     {{"limit", limit}, {"sum", static_cast<long long>(limit) * (limit + 1) / 2}});
  return m;
}

// ---- producer-before-consumer -----------------------------------------------------------------------

Describe chain_describe() {
  return describe_as(say("state.finished"),
                     [](const Record& r) { return say("describe.spun-on-next-block", {{"seen", r.seen}}); });
}

ScenarioModel chain_model(int blocks, const Coresidency& c) {
  ScenarioModel m;
  const int limit = c.limit();
  const int first = std::min(blocks, limit);
  m.steps.push_back({say("model.block-scheduler"), say("chain-model.starts", {{"blocks", blocks_text(0, first - 1)}})});
  if (blocks <= limit) {
    m.steps.push_back({blocks_text(blocks - 1, blocks - 1), say("chain-model.producer")});
    m.steps.push_back({blocks_text(0, blocks - 1), say("chain-model.each-sees")});
    m.records.assign(static_cast<std::size_t>(blocks), rec(State::finished));
    for (int b = 0; b + 1 < blocks; ++b) m.records[static_cast<std::size_t>(b)] = rec(State::finished, b + 1, 1);
  } else {
    m.deadlock = true;
    const std::string resident = blocks_text(0, limit - 1), waiting = blocks_text(limit, blocks - 1);
    m.steps.push_back({resident, say("chain-model.spin", {{"last", limit - 1}, {"limit", limit}})});
    m.steps.push_back({waiting, say("chain-model.wait-slot", {{"producer", blocks - 1}})});
    m.steps.push_back({say("model.deadlock"), say("chain-model.deadlock")});
    m.steps.push_back({say("model.the-deadline"), say("chain-model.deadline", {{"resident", resident}, {"waiting", waiting}})});
    const int a = m.graph.add_node(say("model.node-resident", {{"blocks", resident}}));
    const int b = m.graph.add_node(say("model.node-no-slot", {{"blocks", waiting}}));
    m.graph.add_edge(a, b, say("chain-model.edge-flag", {{"last", limit - 1}, {"limit", limit}}));
    m.graph.add_edge(b, a, say("model.edge-slot", {{"limit", limit}}));
    m.waits = {say("chain-model.waits-chain", {{"resident", resident}, {"waiting", waiting}, {"producer", blocks - 1}}),
               say("model.waits-slot", {{"waiting", waiting}, {"resident", resident}})};
    for (int b2 = 0; b2 < limit; ++b2) m.records.push_back(rec(State::gave_up, b2 + 1, 0));
    for (int b2 = limit; b2 < blocks; ++b2) m.records.push_back(rec(State::late, b2 + 1 < blocks ? b2 + 1 : -1));
  }
  m.fix_steps = {
      {say("chain-model.fix-first"), say("chain-model.fix-first-what")},
      {say("chain-model.fix-ticket-0"), say("chain-model.fix-ticket-0-what")},
      {say("chain-model.fix-ticket-t"), say("chain-model.fix-ticket-t-what")},
      {say("chain-model.fix-finish"), say("chain-model.fix-finish-what")},
  };
  m.fix_completes = true;
  m.fix_result = say("chain-model.fix-result");
  return m;
}

// ---- warp-spinlock --------------------------------------------------------------------------------

Describe spinlock_describe() {
  return describe_as(say("state.finished"), [](const Record& r) {
    return parked_or(r, say("describe.gave-up-on-lock", {{"holder", r.seen - 1}}));
  });
}

Describe ring_describe() {
  return describe_as(say("state.finished"), [](const Record& r) {
    return parked_or(r, say("describe.spun-on-next-lane", {{"seen", r.seen}}));
  });
}

WarpModel warp_model(const std::vector<simt::Scheduling>& traces) {
  using simt::Scheduling;
  WarpModel w;
  w.lock_lockstep = run_model(spinlock_machine(Scheduling::lockstep, kWarpSize));
  w.lock_independent = run_model(spinlock_machine(Scheduling::independent, kWarpSize));
  w.ring_lockstep = run_model(ring_machine(Scheduling::lockstep, kWarpSize));
  w.ring_independent = run_model(ring_machine(Scheduling::independent, kWarpSize));
  for (Scheduling s : traces) w.lock_traces.push_back(run_model(spinlock_machine(s, kTraceLanes), kTraceLanes, kTraceRows));
  w.ring_trace = run_model(ring_machine(Scheduling::independent, kTraceLanes), kTraceLanes, kTraceRows);
  return w;
}

// ---- lock-order ------------------------------------------------------------------------------------

Describe lock_order_describe() {
  return describe_as(say("state.finished"), [](const Record& r) {
    return say("describe.gave-up-on-lock-ab", {{"lock", r.on == 0 ? "A" : "B"}, {"holder", r.seen - 1}});
  });
}

LockOrderModel lock_order_model() {
  LockOrderModel lo;
  lo.broken = run_model(lock_order_machine(false, 1), 2, 40);
  lo.fixed = run_model(lock_order_machine(true, 2), 2, 40);
  ScenarioModel& m = lo.m;
  m.deadlock = lo.broken.deadlock();
  m.graph = lo.broken.graph;
  m.waits = lo.broken.waits;
  m.records = lo.broken.records;
  const std::string block0 = blocks_text(0, 0), block1 = blocks_text(1, 1);
  m.steps = {
      {block0, say("lock-model.takes-a")},
      {say("lock-model.both"), say("lock-model.both-what")},
      {block0, say("lock-model.tries-b")},
      {block1, say("lock-model.tries-a")},
      {say("model.deadlock"), say("lock-model.deadlock")},
  };
  m.fix_steps = {
      {say("lock-model.fix-order"), say("lock-model.fix-order-what")},
      {block0, say("lock-model.fix-block-0")},
      {block1, say("lock-model.fix-block-1")},
  };
  m.fix_completes = lo.fixed.completed();
  m.fix_result = say("lock-model.fix-result", {{"count", lo.fixed.word("count")}});
  return lo;
}

// ---- divergent-syncthreads and syncwarp-mask ----------------------------------------------------------

ScenarioModel barrier_model(bool syncwarp, int present, BarrierVariant variant) {
  ScenarioModel m;
  if (variant == BarrierVariant::if_else) {
    const std::string in = span_text(0, present - 1, "thread"), out = span_text(present, kSyncBlockThreads - 1, "thread");
    m.steps = {
        {in, say("barrier-model.if-branch")},
        {out, say("barrier-model.else-branch")},
        {say("barrier-model.as-specified"), say("barrier-model.if-else-undefined", {{"threads", kSyncBlockThreads}})},
    };
    for (int t = 0; t < kSyncBlockThreads; ++t)
      m.records.push_back(t < present ? rec(State::finished, -1, 1) : rec(State::finished, -1, 7));
    m.fix_steps = {{say("barrier-model.the-fix"), say("barrier-model.if-else-fix")}};
    m.fix_completes = true;
    m.fix_result = say("barrier-model.if-else-fix-result");
    return m;
  }
  m.deadlock = true;
  const int threads = syncwarp ? kWarpSize : kSyncBlockThreads;
  const std::string noun = syncwarp ? "lane" : "thread";
  const std::string call = syncwarp ? "__syncwarp(0xffffffff)" : "__syncthreads()";
  const std::string rescue = syncwarp ? call : say("barrier-model.unaligned");
  const std::string in = span_text(0, present - 1, noun), out = span_text(present, threads - 1, noun);
  m.steps = {
      {in, say("barrier-model.reach", {{"call", call}, {"present", present}, {"threads", threads}})},
      {out, say("barrier-model.wait-flag", {{"in", in}})},
      {say("model.deadlock"), say("barrier-model.deadlock", {{"noun", noun_word(noun)}})},
      {say("barrier-model.rescue"), say("barrier-model.rescue-what", {{"out", out}, {"rescue", rescue}, {"threads", threads}})},
  };
  const int a = m.graph.add_node(say("barrier-model.node-at-barrier", {{"who", in}}));
  const int b = m.graph.add_node(say("barrier-model.node-spinning", {{"who", out}}));
  m.graph.add_edge(a, b, say("barrier-model.edge-barrier", {{"present", present}, {"threads", threads}}));
  m.graph.add_edge(b, a, say("barrier-model.edge-flag"));
  m.waits = {say("barrier-model.waits-barrier", {{"in", in}, {"out", out}, {"call", call}, {"present", present}, {"threads", threads}}),
             say("barrier-model.waits-flag", {{"out", out}, {"in", in}})};
  for (int t = 0; t < threads; ++t) m.records.push_back(t < present ? rec(State::finished, -1, 1) : rec(State::gave_up));
  m.fix_steps = {{say("barrier-model.the-fix"),
                  say("barrier-model.fix", {{"call", call}, {"noun", noun_word(noun)}, {"nouns", nouns_word(noun)}})}};
  m.fix_completes = true;
  m.fix_result = say(syncwarp ? "barrier-model.fix-result-lane" : "barrier-model.fix-result-thread");
  return m;
}

std::vector<Record> barrier_records(const BarrierObservation& o) {
  // The rescue began when the first absent thread gave up (it records the time just before its call).
  long long rescue = -1;
  for (int t = o.present; t < o.threads; ++t) {
    const long long at = o.arrive_ns[static_cast<std::size_t>(t)];
    if (at >= 0 && (rescue < 0 || at < rescue)) rescue = at;
  }
  const bool if_else = o.variant == static_cast<int>(BarrierVariant::if_else);
  std::vector<Record> out;
  for (int t = 0; t < o.threads; ++t) {
    const auto i = static_cast<std::size_t>(t);
    const long long arrive = o.arrive_ns[i], leave = o.leave_ns[i];
    const auto st = static_cast<BarrierState>(o.state[i]);
    Record r = rec(State::never_started);
    r.start_ns = arrive;
    r.end_ns = leave;
    if (t >= o.present && if_else) {
      if (st == BarrierState::rescued) r = rec(State::finished, -1, 7);
      else if (arrive >= 0) r = rec(State::gave_up, -1, 3);
      r.start_ns = arrive;
      r.end_ns = leave;
    } else if (t < o.present) {
      if (st == BarrierState::passed) r = rec(State::finished, -1, rescue >= 0 && leave >= rescue ? 1 : 0);
      else if (arrive >= 0) r = rec(State::gave_up, -1, 3);
      r.start_ns = arrive;
      r.end_ns = leave;
    } else if (st == BarrierState::saw_flag) {
      r = rec(State::finished, -1, 2);
      r.start_ns = arrive;
    } else if (st == BarrierState::rescued) {
      r = rec(State::gave_up, -1, 0);
      r.start_ns = arrive;
      r.end_ns = leave;
    } else if (arrive >= 0) {
      r = rec(State::gave_up, -1, 5);
      r.start_ns = arrive;
    } else if (o.progress_ns[i] >= 0) {
      r = rec(State::gave_up, -1, 4);
      r.end_ns = o.progress_ns[i];  // the last time it was seen spinning
    }
    out.push_back(r);
  }
  return out;
}

Describe barrier_child_describe(bool syncwarp, BarrierVariant variant) {
  const bool if_else = variant == BarrierVariant::if_else;
  const std::string call = syncwarp ? "__syncwarp(0xffffffff)" : if_else ? say("describe.if-branch-call") : "__syncthreads()";
  const std::string rescue = syncwarp ? call : "barrier.sync 0";
  const std::string waited = say(if_else ? "describe.else-arrived" : "describe.the-rescue");
  const std::string early = say(if_else ? "describe.else-arrived" : "describe.rest-arrived");
  return [call, rescue, waited, early](int, const Record& r) -> std::string {
    switch (static_cast<State>(r.state)) {
      case State::finished:
        if (r.seen == 2) return say("describe.saw-flag", {{"call", call}});
        if (r.seen == 7) return say("describe.else-left");
        return r.seen == 1 ? say("describe.waited-in", {{"call", call}, {"until", waited}})
                           : say("describe.left-before", {{"call", call}, {"before", early}});
      case State::gave_up:
        switch (r.seen) {
          case 3: return say("describe.never-left", {{"call", call}});
          case 4: return say("describe.stopped-running");
          case 5: return say("describe.rescue-never-left", {{"rescue", rescue}});
          default: return say("describe.rescued", {{"rescue", rescue}});
        }
      case State::late: return say("state.late");
      case State::never_started: return say("describe.recorded-nothing");
    }
    return "";
  };
}

}  // namespace cudasync::deadlock_demo
