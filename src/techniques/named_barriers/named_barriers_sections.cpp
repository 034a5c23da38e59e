#include "techniques/named_barriers/named_barriers_sections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/report/text_format.hpp"

namespace cudasync::named_barriers {

using report::Check;
using report::LaneTable;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;
using report::fixed;
using report::list_of;

namespace {


std::string role_range(int first_thread, int threads) {
  const int w0 = first_thread / kWarpSize, w1 = (first_thread + threads) / kWarpSize - 1;
  return "threads " + std::to_string(first_thread) + "-" + std::to_string(first_thread + threads - 1) +
         (w0 == w1 ? ", warp " + std::to_string(w0) : ", warps " + std::to_string(w0) + "-" + std::to_string(w1));
}

// The model's phase table of one barrier program.
LaneTable phase_table(const std::string& id, const std::string& title, const Simulation& sim,
                      const std::vector<int>& warp_ids_to_show) {
  (void)warp_ids_to_show;
  LaneTable t;
  t.id = id;
  t.title = title;
  t.columns = {{"barrier", "barrier", ""},
               {"phase", "phase", ""},
               {"count", "count", ""},
               {"warps", "warps", ""},
               {"waited", "sync", ""},
               {"arrived_only", "arrive", ""}};
  t.legend.push_back("count: threads the phase needs; warps: warps that arrived; sync / arrive: of them, "
                     "how many waited (bar.sync) and how many only arrived (bar.arrive)");
  for (const auto& p : sim.phases) {
    const I waited = static_cast<I>(p.waited.size());
    t.add_row({static_cast<I>(p.id), static_cast<I>(p.index), static_cast<I>(p.needed_threads),
               static_cast<I>(p.warps.size()), waited, static_cast<I>(p.warps.size()) - waited});
  }
  return t;
}

Check model_finishes(const Simulation& sim, const std::string& what) {
  std::string detail;
  if (sim.finishes()) {
    detail = std::to_string(sim.phases.size()) + " phases complete; no warp is left waiting";
  } else if (!sim.hazards.empty()) {
    detail = sim.hazards.front();
  } else {
    const auto& s = sim.stuck.front();
    detail = "warp " + std::to_string(s.warp) + " waits forever at barrier " + std::to_string(s.id) + " (" +
             std::to_string(s.arrived_threads) + " of " + std::to_string(s.needed_threads) + " threads arrived)";
  }
  return {"reference model: " + what + " runs to the end", sim.finishes(), detail};
}

// What the stamps of a producer/consumer run show.
struct PcTiming {
  bool consumers_waited_for_producers = true;  // every round: consumers left `full` after the last producer arrived
  bool producers_waited_for_consumers = true;  // every round: producers left `empty` after the last consumer read
  std::vector<int> bad_full_rounds, bad_empty_rounds;
  long long arrive_cycles = 0;     // median: producer bar.arrive, t1 - t0
  long long full_wait_cycles = 0;  // median: consumer bar.sync(full), t1 - t0
  long long empty_wait_cycles = 0; // median: producer bar.sync(empty), t3 - t2
};

long long pc_stamp(const PcSpec& spec, const PcResult& r, int warp, int round, int k) {
  return r.stamps[static_cast<std::size_t>((warp * spec.rounds + round) * kPcStamps + k)];
}

PcTiming pc_timing(const PcSpec& spec, const PcResult& r) {
  PcTiming t;
  const int pw = spec.producer_warps(), cw = spec.consumer_warps();
  std::vector<double> arrive, full_wait, empty_wait;  // cycles
  for (int round = 0; round < spec.rounds; ++round) {
    long long last_produced = std::numeric_limits<long long>::min(), last_read = last_produced;
    long long first_consumer_out = std::numeric_limits<long long>::max(), first_producer_out = first_consumer_out;
    for (int w = 0; w < pw; ++w) {
      last_produced = std::max(last_produced, pc_stamp(spec, r, w, round, 0));
      first_producer_out = std::min(first_producer_out, pc_stamp(spec, r, w, round, 3));
      arrive.push_back(static_cast<double>(pc_stamp(spec, r, w, round, 1) - pc_stamp(spec, r, w, round, 0)));
      empty_wait.push_back(static_cast<double>(pc_stamp(spec, r, w, round, 3) - pc_stamp(spec, r, w, round, 2)));
    }
    for (int w = pw; w < pw + cw; ++w) {
      last_read = std::max(last_read, pc_stamp(spec, r, w, round, 2));
      first_consumer_out = std::min(first_consumer_out, pc_stamp(spec, r, w, round, 1));
      full_wait.push_back(static_cast<double>(pc_stamp(spec, r, w, round, 1) - pc_stamp(spec, r, w, round, 0)));
    }
    if (first_consumer_out < last_produced) t.bad_full_rounds.push_back(round);
    if (first_producer_out < last_read) t.bad_empty_rounds.push_back(round);
  }
  t.consumers_waited_for_producers = t.bad_full_rounds.empty();
  t.producers_waited_for_consumers = t.bad_empty_rounds.empty();
  t.arrive_cycles = std::llround(report::median(arrive));
  t.full_wait_cycles = std::llround(report::median(full_wait));
  t.empty_wait_cycles = std::llround(report::median(empty_wait));
  return t;
}

// Values: every consumed value against the model; the rows are rounds.
void add_values(Section& s, const PcSpec& spec, const std::optional<PcResult>& gpu) {
  const auto model = model_consumed(spec);
  LaneTable t;
  t.id = "rounds";
  t.title = "what went through the slots, round by round";
  t.columns = {{"round", "round", ""}, {"slots", "slots", ""}, {"first", "slot 0 (model)", ""},
               {"last", "slot " + std::to_string(spec.producers - 1) + " (model)", ""}};
  if (gpu) t.columns.push_back({"gpu_equal", "consumed = produced (gpu)", ""});
  std::size_t equal_total = 0;
  std::vector<int> bad_rounds;
  for (int r = 0; r < spec.rounds; ++r) {
    const auto base = static_cast<std::size_t>(r * spec.producers);
    std::vector<Value> row{static_cast<I>(r), static_cast<I>(spec.producers), static_cast<I>(model[base]),
                           static_cast<I>(model[base + static_cast<std::size_t>(spec.producers) - 1])};
    RowMark mark = RowMark::none;
    if (gpu) {
      int equal = 0;
      for (int i = 0; i < spec.producers; ++i)
        equal += gpu->consumed[base + static_cast<std::size_t>(i)] == model[base + static_cast<std::size_t>(i)] ? 1 : 0;
      equal_total += static_cast<std::size_t>(equal);
      row.push_back(std::to_string(equal) + " of " + std::to_string(spec.producers));
      if (equal != spec.producers) {
        mark = RowMark::mismatch;
        bad_rounds.push_back(r);
      }
    }
    t.add_row(std::move(row), mark);
  }
  s.tables.push_back(std::move(t));
  if (gpu)
    s.checks.push_back(report::model_agreement("every value consumed equals the value produced", bad_rounds.empty(),
                                 bad_rounds.empty() ? std::to_string(equal_total) + " of " + std::to_string(model.size()) +
                                                          " values, " + std::to_string(spec.rounds) + " rounds"
                                                    : "rounds " + list_of(bad_rounds) + " differ"));
}

void add_pc_trace(Section& s, const PcSpec& spec, const PcResult& r, const std::string& full_name,
                  const std::string& empty_name) {
  const int pw = spec.producer_warps(), warps = spec.block_threads() / kWarpSize;
  long long origin = std::numeric_limits<long long>::max();
  for (int w = 0; w < warps; ++w) origin = std::min(origin, pc_stamp(spec, r, w, 0, 0));
  LaneTable t;
  t.id = "trace";
  t.title = "trace: clock64 cycles after the first stamp, lane 0 of each warp";
  t.columns = {{"warp", "warp", ""}, {"role", "role", ""}, {"round", "round", ""}, {"full", full_name, ""},
               {"between", "between", ""}, {"empty", empty_name, ""}};
  for (int w = 0; w < warps; ++w)
    for (int round = 0; round < spec.rounds; ++round) {
      const auto at = [&](int k) { return std::to_string(pc_stamp(spec, r, w, round, k) - origin); };
      if (w < pw)
        t.add_row({static_cast<I>(w), std::string("producer"), static_cast<I>(round), "arrive " + at(0) + ", on at " + at(1),
                   "fetched " + at(2), "wait " + at(2) + " -> " + at(3)});
      else
        t.add_row({static_cast<I>(w), std::string("consumer"), static_cast<I>(round), "wait " + at(0) + " -> " + at(1),
                   "read " + at(2), "arrive " + at(2)});
    }
  t.legend.push_back("arrive: signals and goes on; wait a -> b: entered the wait at a, released at b");
  s.tables.push_back(std::move(t));
}

void add_pc_timing(Section& s, const PcSpec& spec, const PcResult& r, bool trace, const std::string& arrive_name,
                   const std::string& full_wait_name, const std::string& empty_wait_name) {
  const PcTiming t = pc_timing(spec, r);
  s.facts.push_back({"producer " + arrive_name + ", median", static_cast<I>(t.arrive_cycles), "",
                     "cycles from the signal to the next instruction: it does not wait"});
  s.facts.push_back({"consumer " + full_wait_name + ", median", static_cast<I>(t.full_wait_cycles), "",
                     "cycles waiting for the producers"});
  s.facts.push_back({"producer " + empty_wait_name + ", median", static_cast<I>(t.empty_wait_cycles), "",
                     "cycles waiting for the consumers to read"});
  if (r.ns_per_cycle > 0)
    s.facts.push_back({"SM clock during the run", fixed(1.0 / r.ns_per_cycle, 2) + " GHz", "",
                       "clock64 against %globaltimer"});
  s.checks.push_back({"consumers left the full barrier only after the last producer had arrived, every round",
                      t.consumers_waited_for_producers,
                      t.consumers_waited_for_producers ? std::to_string(spec.rounds) + " rounds"
                                                       : "rounds " + list_of(t.bad_full_rounds) + " broke the order"});
  s.checks.push_back({"producers left the empty barrier only after the last consumer had read, every round",
                      t.producers_waited_for_consumers,
                      t.producers_waited_for_consumers ? std::to_string(spec.rounds) + " rounds"
                                                       : "rounds " + list_of(t.bad_empty_rounds) + " broke the order"});
  if (trace) add_pc_trace(s, spec, r, "full barrier", "empty barrier");
}

bool contains_op(const std::vector<std::string>& ins, const std::string& prefix) {
  return std::any_of(ins.begin(), ins.end(), [&](const std::string& i) {
    const std::string op = i.rfind('@', 0) == 0 ? i.substr(i.find(' ') + 1) : i;
    return op.rfind(prefix, 0) == 0;
  });
}

// Opcodes (the first word, after a predicate guard) with how often each appears.
std::vector<std::pair<std::string, int>> opcode_counts(const std::vector<std::string>& ins) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& i : ins) {
    std::string op = i.rfind('@', 0) == 0 ? i.substr(i.find(' ') + 1) : i;
    op = op.substr(0, op.find(' '));
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == op; });
    if (it == out.end()) out.emplace_back(op, 1);
    else ++it->second;
  }
  return out;
}

struct KernelPart {
  const char* name;  // short kernel name prefix
  const char* part;
};
const KernelPart kKernelParts[] = {
    {"groups_kernel", "bar-sync: two groups, bar.sync id, count"},
    {"pc_kernel", "producer-consumer: bar.arrive + bar.sync"},
    {"red_kernel", "bar-red: __syncthreads_count/and/or, bar.red"},
    {"cuda_barrier_pc_kernel", "cuda-barrier: cuda::barrier arrive/wait"},
    {"misuse_kernel", "misuse: bad count, rescue bar.arrive"},
    {"cost_kernel<0>", "cost: __syncthreads()"},
    {"cost_kernel<1>", "cost: bar.sync 1|2, half"},
    {"cost_kernel<2>", "cost: bar.arrive + bar.sync"},
    {"cost_kernel<3>", "cost: cuda::barrier arrive_and_wait"},
};
bool is_lesson_kernel(const std::string& mangled) { return mangled.find("14named_barriers") != std::string::npos; }

}  // namespace

// ---------------------------------------------------------------------------------------------

Section setup_section(const Inputs& in, bool gpu, const std::string& device) {
  Section s;
  s.id = "setup";
  s.title = "setup: one block, sixteen hardware barriers";
  s.paragraphs.push_back(
      "Each block (CTA) has sixteen hardware barriers, numbered 0 to 15. bar.sync a, b makes the warp wait at "
      "barrier a until b threads have arrived; without b, every thread of the block. __syncthreads() is bar.sync 0. "
      "bar.arrive a, b counts the warp's arrival and does not wait. A thread count must be a multiple of 32: "
      "warps arrive as a whole (PTX ISA, \"bar, barrier\").");
  s.facts.push_back({"backend", std::string(gpu ? "GPU " + device : "reference model"), "",
                     gpu ? "checked against the reference model" : "no GPU: the model's answers only"});
  s.facts.push_back({"barrier ids used", std::to_string(in.groups.ids[0]) + " and " + std::to_string(in.groups.ids[1]), "",
                     "--barrier-ids; __syncthreads() and __syncthreads_count/and/or use barrier 0"});
  s.facts.push_back({"bar-sync block", static_cast<I>(in.groups.block_threads()), "",
                     "group 0: " + std::to_string(in.groups.threads[0]) + " threads, group 1: " +
                         std::to_string(in.groups.threads[1])});
  s.facts.push_back({"producer-consumer block", static_cast<I>(in.pc.block_threads()), "",
                     std::to_string(in.pc.producers) + " producers, " + std::to_string(in.pc.consumers) + " consumers, " +
                         std::to_string(in.pc.rounds) + " rounds"});
  s.facts.push_back({"bar-red block", static_cast<I>(in.red_threads), "", ""});
  return s;
}

Section groups_section(const GroupsSpec& spec, const std::optional<GroupsTrace>& gpu) {
  const Simulation sim = simulate(groups_program(spec), spec.block_threads());
  Section s;
  s.id = "bar_sync";
  s.title = "bar.sync id, count: two groups of warps, each on its own barrier";
  s.paragraphs.push_back(
      "Group 0 (" + role_range(0, spec.threads[0]) + ") runs " + std::to_string(spec.phases) + " phases of " +
      std::to_string(spec.work_cycles[0]) + " cycles of work, each ended by bar.sync " + std::to_string(spec.ids[0]) +
      ", " + std::to_string(spec.threads[0]) + ". Group 1 (" + role_range(spec.threads[0], spec.threads[1]) +
      ") runs phases of " + std::to_string(spec.work_cycles[1]) + " cycles, each ended by bar.sync " +
      std::to_string(spec.ids[1]) + ", " + std::to_string(spec.threads[1]) +
      ". A barrier counts only its own arrivals, so the short group never waits for the long one. To prove it "
      "without trusting clocks, group 1 is held before its first barrier until group 0 has passed all of its "
      "phases (a flag watched with a deadline): if group 0 needed group 1, that would deadlock and the check would "
      "fail.");
  s.facts.push_back({"group 0", "bar.sync " + std::to_string(spec.ids[0]) + ", " + std::to_string(spec.threads[0]), "",
                     std::to_string(spec.warps(0)) + " warps"});
  s.facts.push_back({"group 1", "bar.sync " + std::to_string(spec.ids[1]) + ", " + std::to_string(spec.threads[1]), "",
                     std::to_string(spec.warps(1)) + " warps"});
  LaneTable phases = phase_table("phases", "barrier phases (reference model: arrivals per barrier id)", sim, {});
  if (gpu) {
    phases.columns.push_back({"gpu_warps", "gpu warps", ""});
    phases.columns.push_back({"last_arrival", "last in", ""});
    phases.columns.push_back({"first_release", "first out", ""});
  }
  long long origin = std::numeric_limits<long long>::max();
  if (gpu)
    for (auto a : gpu->arrive) origin = std::min(origin, a);
  std::vector<int> bad_counts, bad_order;
  // Per group and phase, from the stamps.
  const auto warp_range = [&](int g) {
    const int first = g == 0 ? 0 : spec.warps(0);
    return std::pair<int, int>{first, first + spec.warps(g)};
  };
  const auto stat = [&](int g, int ph, bool leave, bool want_max) {
    const auto [b, e] = warp_range(g);
    long long v = want_max ? std::numeric_limits<long long>::min() : std::numeric_limits<long long>::max();
    for (int w = b; w < e; ++w) {
      const long long x = (leave ? gpu->leave : gpu->arrive)[static_cast<std::size_t>(w * spec.phases + ph)];
      v = want_max ? std::max(v, x) : std::min(v, x);
    }
    return v - origin;
  };
  if (gpu) {
    std::vector<std::vector<Value>> rows = std::move(phases.rows);
    std::vector<RowMark> marks = std::move(phases.marks);
    phases.rows.clear();
    phases.marks.clear();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Phase& p = sim.phases[i];
      const int g = p.id == spec.ids[0] ? 0 : 1;
      const int got = gpu->arrivals[static_cast<std::size_t>(g * spec.phases + p.index)];
      const long long last_in = stat(g, p.index, false, true), first_out = stat(g, p.index, true, false);
      rows[i].push_back(static_cast<I>(got));
      rows[i].push_back(static_cast<I>(last_in));
      rows[i].push_back(static_cast<I>(first_out));
      RowMark m = marks[i];
      if (got != static_cast<int>(p.warps.size())) {
        bad_counts.push_back(static_cast<int>(i));
        m = RowMark::mismatch;
      }
      if (first_out < last_in) {
        bad_order.push_back(static_cast<int>(i));
        m = RowMark::mismatch;
      }
      phases.add_row(std::move(rows[i]), m);
    }
    phases.legend.push_back("last in / first out (gpu): clock64 cycles after the first arrival, the last warp "
                            "arriving and the first released (one SM, one clock)");
  }
  s.tables.push_back(std::move(phases));
  s.checks.push_back(model_finishes(sim, "the two groups' program"));
  if (!gpu) {
    s.notes.push_back("the per-warp timeline (clock64 stamps around every bar.sync) needs a GPU");
    return s;
  }
  // The per-warp timeline.
  LaneTable tl;
  tl.id = "timeline";
  tl.title = "per-warp timeline: clock64 cycles after the first arrival when each warp left each phase";
  tl.columns = {{"warp", "warp", ""}, {"group", "group", ""}, {"barrier", "barrier", ""}};
  for (int ph = 0; ph < spec.phases; ++ph)
    tl.columns.push_back({"left_" + std::to_string(ph), "left " + std::to_string(ph), ""});
  std::vector<int> short_passed;
  for (int w = 0; w < spec.block_threads() / kWarpSize; ++w) {
    const int g = w < spec.warps(0) ? 0 : 1;
    std::vector<Value> row{static_cast<I>(w), static_cast<I>(g), static_cast<I>(spec.ids[g])};
    for (int ph = 0; ph < spec.phases; ++ph)
      row.push_back(static_cast<I>(gpu->leave[static_cast<std::size_t>(w * spec.phases + ph)] - origin));
    const bool ok = gpu->passed[static_cast<std::size_t>(w)] == spec.phases;
    if (!ok) short_passed.push_back(w);
    tl.add_row(std::move(row), ok ? RowMark::none : RowMark::mismatch);
  }
  if (gpu->ns_per_cycle > 0)
    tl.legend.push_back("one cycle is about " + fixed(gpu->ns_per_cycle, 3) + " ns on this GPU (clock64 against %globaltimer)");
  s.tables.push_back(std::move(tl));
  s.checks.push_back(report::model_agreement("phases and arrivals per barrier id",
                               bad_counts.empty() && short_passed.empty(),
                               bad_counts.empty() && short_passed.empty()
                                   ? std::to_string(sim.phases.size()) + " phases; every warp passed " +
                                         std::to_string(spec.phases) + " barriers"
                                   : "phase rows " + list_of(bad_counts) + " / warps " + list_of(short_passed) + " differ"));
  s.checks.push_back({"no warp left a phase before the last warp of its group arrived", bad_order.empty(),
                      bad_order.empty() ? "every phase of both barriers" : "phase rows " + list_of(bad_order)});
  const long long short_done = stat(0, spec.phases - 1, true, true);
  const long long long_first = stat(1, 0, false, false);
  const bool independent = !gpu->hold_gave_up && short_done < long_first;
  s.checks.push_back({"group 0 passed all its phases while group 1 was held before its first barrier: bar.sync " +
                          std::to_string(spec.ids[0]) + " never needed group 1",
                      independent,
                      gpu->hold_gave_up ? "group 0 never finished while group 1 was held (the hold gave up after 200 ms)"
                                        : "group 0 done at cycle " + std::to_string(short_done) +
                                              ", group 1 first arrived at cycle " + std::to_string(long_first)});
  return s;
}

Section pc_section(const PcSpec& spec, const std::optional<PcResult>& gpu, bool trace) {
  const Simulation sim = simulate(pc_program(spec), spec.block_threads());
  const std::string n = std::to_string(spec.block_threads());
  const std::string full = std::to_string(spec.ids[0]), empty = std::to_string(spec.ids[1]);
  Section s;
  s.id = "producer_consumer";
  s.title = "producer/consumer: bar.arrive to signal, bar.sync to wait (the seed's pattern)";
  s.paragraphs.push_back("producers (" + role_range(0, spec.producers) + "): st.shared slot; bar.arrive " + full + ", " +
                         n + "; ld.global next; bar.sync " + empty + ", " + n + ".  consumers (" +
                         role_range(spec.producers, spec.consumers) + "): bar.sync " + full + ", " + n +
                         "; ld.shared slot; bar.arrive " + empty + ", " + n + ".");
  s.paragraphs.push_back(
      "Barrier " + full + " completes when all " + n + " threads have arrived: the producers by bar.arrive, which "
      "does not wait, the consumers by bar.sync, which does. So a consumer reads only after every producer wrote, while "
      "the producers are already fetching the next value. Barrier " + empty +
      " is the way back: the producers wait there until every consumer has read. bar.arrive also makes the "
      "producer's earlier stores visible to the threads of the barrier when it completes (PTX ISA, \"bar, barrier\").");
  s.facts.push_back({"thread count of both barriers", static_cast<I>(spec.block_threads()), "",
                     std::to_string(spec.producers) + " producers + " + std::to_string(spec.consumers) + " consumers"});
  s.facts.push_back({"rounds", static_cast<I>(spec.rounds), "", "one phase of each barrier per round"});
  s.tables.push_back(phase_table("phases", "barrier phases (reference model)", sim, {}));
  s.checks.push_back(model_finishes(sim, "the producer/consumer program"));
  add_values(s, spec, gpu);
  if (gpu) add_pc_timing(s, spec, *gpu, trace, "bar.arrive " + full, "bar.sync " + full, "bar.sync " + empty);
  else s.notes.push_back("the values the GPU consumed and the arrival/wait stamps (--trace) need a GPU");
  return s;
}

Section red_section(int threads, int id, const std::vector<RedRun>& runs) {
  Section s;
  s.id = "bar_red";
  s.title = "bar.red: __syncthreads_count / _and / _or beside bar.red.popc / .and / .or";
  s.paragraphs.push_back(
      "A barrier that also reduces a predicate over the block: every thread waits, and every thread gets the "
      "number of threads whose predicate is true (popc), whether all are (and), whether any is (or). "
      "__syncthreads_count/and/or compile to bar.red on barrier 0; the inline PTX here uses barrier " +
      std::to_string(id) + ". __syncthreads_and/or promise only non-zero for true (CUDA C++ Programming Guide, "
      "\"Synchronization Functions\"); they are compared as truth values.");
  s.facts.push_back({"threads in the block", static_cast<I>(threads), "", "lane = tid % 32, warp = tid / 32"});
  const bool gpu = !runs.empty() && runs.front().gpu.has_value();
  LaneTable t;
  t.id = "reductions";
  t.title = "what every thread received";
  t.columns = {{"predicate", "predicate", ""}, {"model_count", "count", ""}, {"model_and", "and", ""}, {"model_or", "or", ""}};
  if (gpu) {
    t.columns.push_back({"sync_count", "__syncthreads_count", ""});
    t.columns.push_back({"sync_and", "_and", ""});
    t.columns.push_back({"sync_or", "_or", ""});
    t.columns.push_back({"ptx_popc", "bar.red.popc", ""});
    t.columns.push_back({"ptx_and", ".and", ""});
    t.columns.push_back({"ptx_or", ".or", ""});
  }
  for (const auto& run : runs) {
    const RedTotals m = model_red(run.values);
    std::vector<Value> row{run.predicate.text, static_cast<I>(m.count), static_cast<I>(m.all), static_cast<I>(m.any)};
    RowMark mark = RowMark::none;
    if (run.gpu) {
      std::vector<int> bad_threads;
      for (int c = 0; c < kRedColumns; ++c) {
        // The value thread 0 got; every other thread must have got the same.
        const std::int32_t v0 = run.gpu->values[static_cast<std::size_t>(c)];
        bool same = true;
        for (int tid = 0; tid < threads; ++tid)
          same = same && run.gpu->values[static_cast<std::size_t>(tid * kRedColumns + c)] == v0;
        row.push_back(same ? Value{static_cast<I>(v0)} : Value{std::string("differs")});
        const bool is_count = c == red_count || c == red_ptx_popc;
        const bool is_and = c == red_and || c == red_ptx_and;
        const bool ok = same && (is_count ? v0 == m.count : is_and ? (v0 != 0) == (m.all != 0) : (v0 != 0) == (m.any != 0));
        if (!ok) bad_threads.push_back(c);
      }
      if (!bad_threads.empty()) mark = RowMark::mismatch;
      s.checks.push_back(report::model_agreement(run.predicate.text,
                                   bad_threads.empty(),
                                   bad_threads.empty() ? "all " + std::to_string(threads) + " threads got count " +
                                                             std::to_string(m.count) + ", and " + std::to_string(m.all) +
                                                             ", or " + std::to_string(m.any) + " from both forms"
                                                       : "columns " + list_of(bad_threads) + " differ"));
    }
    t.add_row(std::move(row), mark);
  }
  if (gpu) t.legend.push_back("gpu columns: the value every thread received (\"differs\" if threads disagree)");
  s.tables.push_back(std::move(t));
  if (!gpu) s.notes.push_back("what the GPU's __syncthreads_* and bar.red return needs a GPU");
  return s;
}

Section cuda_barrier_section(const PcSpec& spec, const std::optional<PcResult>& gpu, bool trace, const std::string& arch,
                             const std::vector<std::string>& sass) {
  Section s;
  s.id = "cuda_barrier";
  s.title = "cuda::barrier: the same producer/consumer with arrive tokens and wait";
  s.paragraphs.push_back(
      "Two cuda::barrier<cuda::thread_scope_block> objects in shared memory, full and empty, each expecting " +
      std::to_string(spec.block_threads()) + " arrivals per phase. producers: slot = v; (void)full.arrive(); "
      "auto t = empty.arrive(); fetch the next v; empty.wait(std::move(t)).  consumers: auto t = full.arrive(); "
      "full.wait(std::move(t)); read; (void)empty.arrive().");
  s.paragraphs.push_back(
      "arrive() returns a token for the current phase; wait(token) returns once that phase has completed, so the "
      "arrival and the wait can be far apart, and any number of barriers can exist (they live in shared memory, not "
      "in the sixteen hardware slots). On compute capability 8.0+ libcu++ builds them on the mbarrier object of the "
      "PTX ISA; the lesson waives this part below 8.0.");
  add_values(s, spec, gpu);
  if (gpu) add_pc_timing(s, spec, *gpu, trace, "full.arrive()", "full.wait()", "empty.wait()");
  else s.notes.push_back("the values the GPU consumed and the stamps need a GPU");
  if (!arch.empty()) {
    LaneTable t;
    t.id = "compiled";
    t.title = "what cuda_barrier_pc_kernel compiled to (" + arch + "), by opcode";
    t.columns = {{"opcode", "opcode", ""}, {"times", "times", ""}};
    for (const auto& [op, n] : opcode_counts(sass)) t.add_row({op, static_cast<I>(n)});
    if (t.rows.empty()) t.add_row({std::string("(no synchronization instruction)"), static_cast<I>(0)});
    t.legend.push_back("SYNCS.ARRIVE: arrive (a token comes back); SYNCS.PHASECHK...TRYWAIT: has the phase completed?");
    t.legend.push_back("NANOSLEEP: the back-off of wait() between tries; all of them in the listing part");
    s.tables.push_back(std::move(t));
  }
  return s;
}

std::vector<std::string> kernel_sass(const KernelListing& listing, const std::string& arch, const std::string& name) {
  for (const auto& k : listing.sass)
    if (k.arch == arch && is_lesson_kernel(k.function) && short_kernel_name(k.function) == name) return k.instructions;
  return {};
}

Section listing_section(const KernelListing& listing, const std::string& arch) {
  Section s;
  s.id = "listing";
  s.title = "PTX and SASS: what these kernels compiled to in this build";
  s.paragraphs.push_back(
      "Read back at build time from the object files linked into this binary (cuobjdump -ptx and -sass), keeping "
      "only barrier, fence and mbarrier instructions. In SASS, BAR.SYNC is bar.sync, BAR.ARV is bar.arrive, "
      "BAR.RED.POPC/AND/OR with B2R.RESULT is bar.red; SYNCS.* (sm_90) and ATOMS.ARRIVE (sm_80) are the mbarrier "
      "operations behind cuda::barrier.");
  if (!listing.available) {
    s.notes.push_back(listing.reason);
    return s;
  }
  const auto sass_archs = listing.sass_archs(), ptx_archs = listing.ptx_archs();
  std::string archs_text, ptx_text;
  for (const auto& a : sass_archs) archs_text += (archs_text.empty() ? "" : ", ") + a;
  for (const auto& a : ptx_archs) ptx_text += (ptx_text.empty() ? "" : ", ") + std::string("compute_") + a.substr(3);
  s.facts.push_back({"SASS in this build", archs_text.empty() ? std::string("none") : archs_text, "", ""});
  s.facts.push_back({"PTX in this build", ptx_text.empty() ? std::string("none") : ptx_text, "", ""});
  s.facts.push_back({"SASS shown", arch.empty() ? std::string("none") : arch, "", ""});
  const std::string ptx_arch = ptx_archs.empty() ? "" : ptx_archs.back();
  LaneTable ptx;
  ptx.id = "ptx";
  ptx.title = "PTX" + (ptx_arch.empty() ? std::string() : " (compute_" + ptx_arch.substr(3) + ")");
  ptx.columns = {{"kernel", "kernel", ""}, {"instructions", "instructions (each once, xN: how often)", ""}};
  LaneTable sass;
  sass.id = "sass";
  sass.title = "SASS (" + arch + ")";
  sass.columns = ptx.columns;
  for (const auto& kp : kKernelParts) {
    for (const auto& k : listing.ptx)
      if (k.arch == ptx_arch && is_lesson_kernel(k.function) && short_kernel_name(k.function) == kp.name)
        ptx.add_row({std::string(kp.name), distinct_instructions(k.instructions)});
    for (const auto& k : listing.sass)
      if (k.arch == arch && is_lesson_kernel(k.function) && short_kernel_name(k.function) == kp.name)
        sass.add_row({std::string(kp.name), distinct_instructions(k.instructions)});
  }
  for (const auto& kp : kKernelParts) sass.legend.push_back(std::string(kp.name) + ": " + kp.part);
  if (!ptx.rows.empty()) s.tables.push_back(std::move(ptx));
  if (!sass.rows.empty()) s.tables.push_back(std::move(sass));
  if (arch.empty()) return s;
  const int sm = std::atoi(arch.c_str() + 3);
  struct Expect {
    const char* kernel;
    std::vector<std::string> ops;
  };
  std::vector<Expect> expect = {{"groups_kernel", {"BAR.SYNC"}},
                                {"pc_kernel", {"BAR.ARV", "BAR.SYNC"}},
                                {"red_kernel", {"BAR.RED.POPC", "BAR.RED.AND", "BAR.RED.OR", "B2R.RESULT"}}};
  if (sm >= 90) expect.push_back({"cuda_barrier_pc_kernel", {"SYNCS.ARRIVE", "SYNCS.PHASECHK"}});
  else if (sm >= 80) expect.push_back({"cuda_barrier_pc_kernel", {"ATOMS.ARRIVE"}});
  for (const auto& e : expect) {
    const auto ins = kernel_sass(listing, arch, e.kernel);
    std::vector<std::string> missing;
    for (const auto& op : e.ops)
      if (!contains_op(ins, op)) missing.push_back(op);
    std::string want;
    for (const auto& op : e.ops) want += (want.empty() ? "" : ", ") + op;
    std::string miss;
    for (const auto& op : missing) miss += (miss.empty() ? "" : ", ") + op;
    s.checks.push_back({std::string(e.kernel) + " compiled to " + want + " (" + arch + ")", missing.empty(),
                        missing.empty() ? std::to_string(ins.size()) + " synchronization instructions" : "missing: " + miss});
  }
  return s;
}

Section misuse_section(const std::vector<MisuseCase>& cases, int id, const std::vector<std::optional<MisuseOutcome>>& gpu,
                       bool gpu_run) {
  Section s;
  s.id = "misuse";
  s.title = "misuse, safely: bar.sync with a bad thread count";
  s.paragraphs.push_back(
      "The PTX ISA requires a thread count that is a multiple of 32, and a barrier completes only when that many "
      "threads have arrived. A count larger than the threads that arrive therefore waits forever, and a hardware "
      "barrier cannot be interrupted: no software deadline reaches a warp inside bar.sync.");
  s.paragraphs.push_back(
      "So this part runs in a child process (this binary, started with a hidden option) that the parent waits for "
      "with a timeout, and inside its kernel rescue warps watch the waiting warps: if they are still inside the "
      "barrier after a settle time, one rescue warp adds 32 arrivals with bar.arrive (a legal arrival), and the next "
      "watches again. Nothing can hang the terminal, and whatever a bad count does to the GPU happens to the child's "
      "CUDA context, not this one.");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const MisuseCase& c = cases[i];
    const std::string call = "bar.sync " + std::to_string(id) + ", " + std::to_string(c.count);
    const bool multiple = c.count % kWarpSize == 0;
    const std::string tag = "case " + std::to_string(i) + ": ";
    s.facts.push_back({tag + call, std::to_string(c.arrive_threads) + " threads arrive (" +
                                       std::to_string(c.waiting_warps()) + " warps, 20 us apart)",
                       "", std::to_string(c.rescue_warps()) + " rescue warps"});
    // The model's readings.
    std::vector<CountRule> rules = multiple ? std::vector<CountRule>{CountRule::exact}
                                            : std::vector<CountRule>{CountRule::round_up, CountRule::round_down};
    LaneTable pred;
    pred.id = "case_" + std::to_string(i) + "_model";
    pred.title = tag + "the reference model" + std::string(multiple ? "" : ": the count is undefined, two readings");
    pred.columns = {{"reading", "count read as", ""}, {"phases", "warps released together", ""},
                    {"rescues", "rescue arrivals needed", ""}, {"without_rescue", "without them", ""}};
    std::vector<MisusePrediction> predictions;
    for (CountRule r : rules) {
      const MisusePrediction p = predict_misuse(c, r);
      predictions.push_back(p);
      std::string sizes;
      for (int z : p.phase_sizes) sizes += (sizes.empty() ? "" : " + ") + std::to_string(z);
      const int needed = needed_threads(c.count, c.arrive_threads, r);
      pred.add_row({std::to_string(needed) + " threads" + (multiple ? "" : std::string(" (") + to_string(r) + ")"), sizes,
                    static_cast<I>(p.rescues),
                    std::string(p.hangs_without_rescue() ? "hangs forever" : "finishes")});
    }
    s.tables.push_back(std::move(pred));
    if (!gpu_run) continue;
    const auto& o = gpu[i];
    if (!o) continue;
    if (o->status != MisuseOutcome::Status::ok) {
      const bool safe = o->status == MisuseOutcome::Status::cuda_error;
      s.checks.push_back({tag + "nothing hung: the child process finished and this process is unaffected", safe,
                          std::string(to_string(o->status)) + ": " + o->message});
      if (safe)
        s.notes.push_back(tag + "the GPU stopped the kernel with an error (" + o->message +
                          "); that error would have made this process's CUDA context unusable, which is why the "
                          "part runs in a child process");
      continue;
    }
    const MisuseObservation& seen = o->seen;
    const auto groups = observed_phases(seen);
    std::vector<int> sizes;
    for (const auto& g : groups) sizes.push_back(static_cast<int>(g.size()));
    LaneTable t;
    t.id = "case_" + std::to_string(i) + "_gpu";
    t.title = tag + "what the GPU did (%globaltimer, microseconds after warp 0 arrived)";
    t.columns = {{"warp", "warp", ""}, {"arrived", "arrived", ""}, {"left", "left", ""}, {"waited", "waited", ""},
                 {"released_by", "released by", ""}};
    for (std::size_t w = 0; w < seen.arrive_ns.size(); ++w) {
      const long long a = seen.arrive_ns[w], l = seen.leave_ns[w];
      std::string by = "its phase completing";
      for (std::size_t k = 0; k < seen.rescue_ns.size(); ++k)
        if (l >= seen.rescue_ns[k] && (k + 1 == seen.rescue_ns.size() || l < seen.rescue_ns[k + 1]))
          by = "rescue arrival " + std::to_string(k + 1);
      t.add_row({static_cast<I>(w), fixed(static_cast<double>(a) / 1000.0, 1), fixed(static_cast<double>(l) / 1000.0, 1),
                 fixed(static_cast<double>(l - a) / 1000.0, 1), by});
    }
    for (std::size_t k = 0; k < seen.rescue_ns.size(); ++k)
      t.legend.push_back("rescue arrival " + std::to_string(k + 1) + " (bar.arrive " + std::to_string(id) + ", " +
                         std::to_string(c.count) + ") at " + fixed(static_cast<double>(seen.rescue_ns[k]) / 1000.0, 1) +
                         " us");
    s.tables.push_back(std::move(t));
    std::string sizes_text;
    for (int z : sizes) sizes_text += (sizes_text.empty() ? "" : " + ") + std::to_string(z);
    const int rescues = static_cast<int>(seen.rescue_ns.size());
    std::string matched;
    for (const auto& p : predictions)
      if (p.phase_sizes == sizes && p.rescues == rescues) matched = multiple ? "the model" : to_string(p.rule);
    s.facts.push_back({tag + "observed", sizes_text + " warps released together, " + std::to_string(rescues) +
                                             " rescue arrivals", "", "child process: " + fixed(o->seconds, 2) + " s"});
    s.checks.push_back({tag + "nothing hung: every waiting warp was released and the child process finished", true,
                        std::to_string(seen.arrive_ns.size()) + " warps released, " + std::to_string(rescues) +
                            " by rescue arrivals"});
    if (multiple) {
      s.checks.push_back(report::model_agreement(tag + call + " with " + std::to_string(c.arrive_threads) + " threads arriving",
                                   !matched.empty(),
                                   "model: " + std::to_string(predictions.front().rescues) +
                                       " rescue arrivals needed; GPU: " + std::to_string(rescues)));
    } else if (!matched.empty()) {
      s.notes.push_back(tag + "this GPU behaved as if the count " + std::to_string(c.count) + " were " + matched +
                        ". The PTX ISA promises nothing here: another GPU or driver may differ.");
    } else {
      s.notes.push_back(tag + "this GPU matched neither reading of the count; the PTX ISA promises nothing here.");
    }
  }
  if (!gpu_run) s.notes.push_back("what a real GPU does with these counts needs a GPU; the model shows the readings");
  return s;
}

Section cost_section(const std::vector<CostRow>& rows, bool gpu_run, int iterations) {
  Section s;
  s.id = "cost";
  s.title = "cost: ns per barrier in one block";
  s.paragraphs.push_back(
      "Each figure is the time of a loop of " + std::to_string(iterations) +
      " barriers in one block divided by the count (%globaltimer inside the kernel, one sample per launch). "
      "bar.sync 1|2 half: each half of the block on its own barrier. bar.arrive + bar.sync: a round trip, half "
      "the block arrives on barrier 1 and waits on 2, the other half the reverse (two phases per iteration).");
  for (const auto& r : rows) {
    report::Measurement m;
    m.name = r.name + ", " + std::to_string(r.block_threads) + " threads";
    m.unit = "ns";
    m.samples = r.ns;
    m.needs_gpu = !gpu_run;
    m.note = r.note;
    s.measurements.push_back(std::move(m));
  }
  return s;
}

}  // namespace cudasync::named_barriers
