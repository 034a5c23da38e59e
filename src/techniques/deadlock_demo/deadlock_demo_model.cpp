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
      case State::late: return "started after the deadline";
      case State::never_started: return "never started";
    }
    return "";
  };
}

std::string parked_or(const Record& r, const std::string& spun) {
  return r.on < 0 ? "waited at the reconvergence point (pc " + number_text(r.seen) + ")" : spun;
}

}  // namespace

Coresidency model_coresidency() {
  return assumed_coresidency(kGridThreads, 32, kH100Limits, "assumed: an H100, no GPU here");
}

// ---- grid-oversubscribed --------------------------------------------------------------------------

Describe barrier_describe(int blocks) {
  return describe_as("passed the barrier",
                     [blocks](const Record& r) { return "spun on the counter at " + number_text(r.seen) + "/" + number_text(blocks); });
}

ScenarioModel grid_barrier_model(int blocks, const Coresidency& c) {
  ScenarioModel m;
  const int limit = c.limit();
  const int first = std::min(blocks, limit);
  m.steps.push_back({"block scheduler", "starts " + blocks_text(0, first - 1) + ": " + number_text(limit) +
                                            " fit at once (" + c.text() + ")"});
  m.steps.push_back({blocks_text(0, first - 1), "each add 1 to the counter: " + number_text(first) + "/" + number_text(blocks)});
  if (blocks <= limit) {
    m.steps.push_back({blocks_text(0, blocks - 1), "see " + number_text(blocks) + "/" + number_text(blocks) + " and pass the barrier"});
    m.records.assign(static_cast<std::size_t>(blocks), rec(State::finished, 0, blocks));
  } else {
    m.deadlock = true;
    const std::string resident = blocks_text(0, limit - 1), waiting = blocks_text(limit, blocks - 1);
    m.steps.push_back({resident, "spin until the counter reaches " + number_text(blocks) + ", each holding its SM slot"});
    m.steps.push_back({waiting, "wait for an SM slot; none is freed, since no resident block can finish"});
    m.steps.push_back({"deadlock", "neither side can move; without a deadline the kernel would never end"});
    m.steps.push_back({"the deadline", resident + " give up and exit; " + waiting +
                                           " then start, see the deadline has passed, and return"});
    const int a = m.graph.add_node(resident + " (resident, spinning)");
    const int b = m.graph.add_node(waiting + " (no slot)");
    m.graph.add_edge(a, b, "the counter: " + number_text(limit) + " of " + number_text(blocks) + " arrived, the rest are theirs to add");
    m.graph.add_edge(b, a, "an SM slot: all " + number_text(limit) + " are held by spinning blocks");
    m.waits = {resident + " wait for " + waiting + ": the counter (" + number_text(limit) + "/" + number_text(blocks) + ")",
               waiting + " wait for " + resident + ": an SM slot"};
    m.records.assign(static_cast<std::size_t>(limit), rec(State::gave_up, 0, limit));
    m.records.resize(static_cast<std::size_t>(blocks), rec(State::late, 0));
  }
  m.fix_steps = {
      {"fix 1: size the grid", "cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs = " + number_text(limit) +
                                   " blocks: all start at once, the counter reaches " + number_text(limit) + "/" + number_text(limit) +
                                   ", all pass"},
      {"fix 2: cooperative launch",
       blocks <= limit ? "cudaLaunchCooperativeKernel with " + number_text(blocks) + " blocks: they fit, it runs and completes"
                       : "cudaLaunchCooperativeKernel with " + number_text(blocks) +
                             " blocks: the runtime checks co-residency first and returns "
                             "cudaErrorCooperativeLaunchTooLarge (720); nothing runs, nothing hangs"},
  };
  m.fix_completes = true;
  m.fix_result = number_text(limit) + " blocks pass the barrier; each reads its neighbour's value: sum " +
                 number_text(static_cast<long long>(limit) * (limit + 1) / 2) + " = N(N+1)/2";
  return m;
}

// ---- producer-before-consumer -----------------------------------------------------------------------

Describe chain_describe() {
  return describe_as("finished", [](const Record& r) { return "spun on the next block's flag (saw " + number_text(r.seen) + ")"; });
}

ScenarioModel chain_model(int blocks, const Coresidency& c) {
  ScenarioModel m;
  const int limit = c.limit();
  const int first = std::min(blocks, limit);
  m.steps.push_back({"block scheduler", "starts " + blocks_text(0, first - 1) + " (in index order, as the hardware "
                                            "does; the programming model promises no order)"});
  if (blocks <= limit) {
    m.steps.push_back({blocks_text(blocks - 1, blocks - 1), "the producer: sets its flag at once"});
    m.steps.push_back({blocks_text(0, blocks - 1), "each sees the flag of the block after it, adds, sets its own"});
    m.records.assign(static_cast<std::size_t>(blocks), rec(State::finished));
    for (int b = 0; b + 1 < blocks; ++b) m.records[static_cast<std::size_t>(b)] = rec(State::finished, b + 1, 1);
  } else {
    m.deadlock = true;
    const std::string resident = blocks_text(0, limit - 1), waiting = blocks_text(limit, blocks - 1);
    m.steps.push_back({resident, "each spins on the flag of the block after it; block " + number_text(limit - 1) +
                                     " waits for block " + number_text(limit) + ", which has not started"});
    m.steps.push_back({waiting, "wait for an SM slot; block " + number_text(blocks - 1) +
                                    ", the producer whose flag starts the chain, is among them"});
    m.steps.push_back({"deadlock", "no resident block can finish, so no slot is freed"});
    m.steps.push_back({"the deadline", resident + " give up and exit; " + waiting +
                                           " start after the deadline and return"});
    const int a = m.graph.add_node(resident + " (resident, spinning)");
    const int b = m.graph.add_node(waiting + " (no slot)");
    m.graph.add_edge(a, b, "the next block's flag: block " + number_text(limit - 1) + " needs block " + number_text(limit) +
                               "'s, each block below it the one above");
    m.graph.add_edge(b, a, "an SM slot: all " + number_text(limit) + " are held by spinning blocks");
    m.waits = {resident + " wait for " + waiting + ": the chain of flags starts at block " + number_text(blocks - 1),
               waiting + " wait for " + resident + ": an SM slot"};
    for (int b2 = 0; b2 < limit; ++b2) m.records.push_back(rec(State::gave_up, b2 + 1, 0));
    for (int b2 = limit; b2 < blocks; ++b2) m.records.push_back(rec(State::late, b2 + 1 < blocks ? b2 + 1 : -1));
  }
  m.fix_steps = {
      {"every block, first thing", "ticket = atomicAdd(&next, 1): tickets follow the order blocks start in, "
                                   "whatever their hardware index"},
      {"ticket 0", "the producer: publishes at once"},
      {"ticket t > 0", "waits for ticket t - 1's flag; that block took its ticket earlier, so it holds a slot or "
                       "has finished"},
      {"as blocks finish", "slots free up and the next blocks start, draw the next tickets, and find their "
                           "predecessor's flag set or soon set"},
  };
  m.fix_completes = true;
  m.fix_result = "every block finishes, with prefix sums by ticket (ticket t holds (t + 1)(t + 2) / 2)";
  return m;
}

// ---- warp-spinlock --------------------------------------------------------------------------------

Describe spinlock_describe() {
  return describe_as("finished", [](const Record& r) {
    return parked_or(r, "gave up on the lock (held by lane " + number_text(r.seen - 1) + ")");
  });
}

Describe ring_describe() {
  return describe_as("finished",
                     [](const Record& r) { return parked_or(r, "spun on the next lane's flag (saw " + number_text(r.seen) + ")"); });
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
  return describe_as("finished", [](const Record& r) {
    return std::string("gave up waiting on lock ") + (r.on == 0 ? "A" : "B") + " (held by block " + number_text(r.seen - 1) + ")";
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
  m.steps = {
      {"block 0", "takes lock A; block 1 takes lock B"},
      {"both", "say so (holding[b] = 1) and wait until the other holds its first lock: the window in which "
               "each holds one lock, made certain instead of left to timing"},
      {"block 0", "tries lock B: held by block 1"},
      {"block 1", "tries lock A: held by block 0"},
      {"deadlock", "each waits for a lock the other holds and will release only after taking the one it waits for"},
  };
  m.fix_steps = {
      {"one global order", "both blocks take A first, then B: whoever holds A can always get B, because nobody "
                           "holds B without holding A"},
      {"block 0", "takes A, then B, adds, releases B and A; block 1 spins on A meanwhile, holding nothing"},
      {"block 1", "takes A, then B, and so on, turn by turn"},
  };
  m.fix_completes = lo.fixed.completed();
  m.fix_result = "the model's two blocks, 2 rounds each: count " + number_text(lo.fixed.word("count")) + " of 4";
  return lo;
}

// ---- divergent-syncthreads and syncwarp-mask ----------------------------------------------------------

ScenarioModel barrier_model(bool syncwarp, int present, BarrierVariant variant) {
  ScenarioModel m;
  if (variant == BarrierVariant::if_else) {
    const std::string in = span_text(0, present - 1, "thread"), out = span_text(present, kSyncBlockThreads - 1, "thread");
    m.steps = {
        {in, "reach the if branch's __syncthreads()"},
        {out, "reach the else branch's __syncthreads(): another instruction for the same barrier 0"},
        {"as specified", "undefined: the condition differs across the block. If the hardware counts every arrival "
                         "at barrier 0, wherever it comes from, all " + number_text(kSyncBlockThreads) + " have arrived and all leave"},
    };
    for (int t = 0; t < kSyncBlockThreads; ++t)
      m.records.push_back(t < present ? rec(State::finished, -1, 1) : rec(State::finished, -1, 7));
    m.fix_steps = {{"the fix", "one __syncthreads() after the if / else, reached by every thread"}};
    m.fix_completes = true;
    m.fix_result = "not run: the fix is a barrier every thread reaches";
    return m;
  }
  m.deadlock = true;
  const int threads = syncwarp ? kWarpSize : kSyncBlockThreads;
  const std::string noun = syncwarp ? "lane" : "thread";
  const std::string call = syncwarp ? "__syncwarp(0xffffffff)" : "__syncthreads()";
  const std::string rescue = syncwarp ? call : "barrier.sync 0 (the unaligned form)";
  const std::string in = span_text(0, present - 1, noun), out = span_text(present, threads - 1, noun);
  m.steps = {
      {in, "reach " + call + ": " + number_text(present) + " of the " + number_text(threads) + " it waits for"},
      {out, "wait for a flag that " + in + " set after the barrier"},
      {"deadlock", "as the barrier is specified (it completes when every " + noun + " it names has arrived), "
                   "neither side can move"},
      {"the deadline (cudasync's rescue)", out + " give up and call " + rescue + " themselves, at another call "
                                             "site: " + number_text(threads) + " of " + number_text(threads) + ", the barrier completes"},
  };
  const int a = m.graph.add_node(in + " (at the barrier)");
  const int b = m.graph.add_node(out + " (spinning)");
  m.graph.add_edge(a, b, "the barrier: " + number_text(present) + " of " + number_text(threads) + " arrived");
  m.graph.add_edge(b, a, "the flag, set after the barrier (read 0)");
  m.waits = {in + " wait for " + out + ": " + call + " (" + number_text(present) + "/" + number_text(threads) + ")",
             out + " wait for " + in + ": the flag they set after it"};
  for (int t = 0; t < threads; ++t) m.records.push_back(t < present ? rec(State::finished, -1, 1) : rec(State::gave_up));
  m.fix_steps = {{"the fix", "call " + call + " where every " + noun + " it names reaches it (outside the "
                             "divergent branch), or name only the " + noun + "s that arrive"}};
  m.fix_completes = true;
  m.fix_result = "not run: the fix is a barrier every " + noun + " reaches, which any correct kernel shows";
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
  const std::string call = syncwarp ? "__syncwarp(0xffffffff)" : if_else ? "the if branch's __syncthreads()" : "__syncthreads()";
  const std::string rescue = syncwarp ? call : "barrier.sync 0";
  const std::string waited = if_else ? "the else branch's threads arrived" : "the rescue";
  const std::string early = if_else ? "the else branch's threads arrived" : "the rest arrived";
  return [call, rescue, waited, early](int, const Record& r) -> std::string {
    switch (static_cast<State>(r.state)) {
      case State::finished:
        if (r.seen == 2) return "saw the flag: the others had passed " + call + " without them";
        if (r.seen == 7) return "called the else branch's __syncthreads() and left it";
        return r.seen == 1 ? "waited in " + call + " until " + waited : "left " + call + " before " + early;
      case State::gave_up:
        switch (r.seen) {
          case 3: return "arrived at " + call + " and never left";
          case 4: return "stopped running before their deadline, still spinning on the flag";
          case 5: return "gave up on the flag, called " + rescue + " (the rescue) and never left it";
          default: return "gave up on the flag at the deadline, then called " + rescue + " (the rescue)";
        }
      case State::late: return "started after the deadline";
      case State::never_started: return "recorded nothing";
    }
    return "";
  };
}

}  // namespace cudasync::deadlock_demo
