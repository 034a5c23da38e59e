// named-barriers' phases: the reference model (a block's barriers as a barrier-phase simulation, and
// bar.red's reductions), the judges of what a GPU recorded, and the parts that show them: bar-sync
// (two groups of warps, each on its own barrier with its own thread count), producer-consumer (the
// PTX ISA's example: bar.arrive to signal, bar.sync to wait), cuda-barrier (the same with two
// cuda::barrier objects in shared memory, the mbarrier of compute capability 8.0+, and the opcodes
// its kernel compiled to) and bar-red (__syncthreads_count/and/or beside the inline PTX
// bar.red.popc/.and/.or, one row per predicate).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {

using I = std::int64_t;
using report::Format;
using report::RowMark;
using report::Value;

// ---- the model ---------------------------------------------------------------------------------------

std::string to_string(CountRule r) {
  const char* const keys[] = {"model.rule-exact", "model.rule-round-up", "model.rule-round-down"};  // CountRule's order
  return say(keys[static_cast<int>(r)]);
}

int needed_threads(int count, int cta_threads, CountRule rule) {
  const int whole_cta = (cta_threads + kWarpSize - 1) / kWarpSize * kWarpSize;
  if (count == 0) return whole_cta;
  switch (rule) {
    case CountRule::round_down: return std::max(kWarpSize, count / kWarpSize * kWarpSize);
    case CountRule::round_up:
    case CountRule::exact: return (count + kWarpSize - 1) / kWarpSize * kWarpSize;
  }
  return count;
}

std::vector<const Phase*> Simulation::phases_of(int id) const {
  std::vector<const Phase*> out;
  for (const auto& p : phases)
    if (p.id == id) out.push_back(&p);
  return out;
}

Simulation simulate(const std::vector<WarpProgram>& warps, int cta_threads, CountRule rule) {
  struct Barrier {
    int arrived = 0;
    int needed = 0;
    int count = -1;  // the count the first arrival of this phase gave
    std::vector<int> warps, waiting;
  };
  Simulation sim;
  std::array<Barrier, kBarrierCount> bars{};
  const std::size_t n = warps.size();
  std::vector<std::size_t> pc(n, 0);
  std::vector<bool> blocked(n, false);
  std::vector<bool> broken(n, false);  // stopped at a hazard
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t w = 0; w < n; ++w) {
      if (blocked[w] || broken[w] || pc[w] >= warps[w].size()) continue;
      const Step& s = warps[w][pc[w]];
      Barrier& b = bars[static_cast<std::size_t>(s.id)];
      const int wi = static_cast<int>(w);
      if (rule == CountRule::exact && s.count % kWarpSize != 0) {
        sim.hazards.push_back(say("model.hazard-count", {{"warp", w}, {"count", s.count}}));
        broken[w] = true;
        continue;
      }
      if (std::find(b.warps.begin(), b.warps.end(), wi) != b.warps.end()) {
        sim.hazards.push_back(say("model.hazard-twice", {{"warp", w}, {"id", s.id}}));
        broken[w] = true;
        continue;
      }
      if (b.count >= 0 && b.count != s.count)
        sim.hazards.push_back(say("model.hazard-counts", {{"id", s.id}, {"first", b.count}, {"second", s.count}}));
      if (b.count < 0) {
        b.count = s.count;
        b.needed = needed_threads(s.count, cta_threads, rule);
      }
      b.arrived += kWarpSize;
      b.warps.push_back(wi);
      progress = true;
      if (s.kind == StepKind::arrive) {
        ++pc[w];
      } else {
        b.waiting.push_back(wi);
        blocked[w] = true;
      }
      if (b.arrived >= b.needed) {
        Phase p;
        p.id = s.id;
        p.index = sim.completed[static_cast<std::size_t>(s.id)]++;
        p.needed_threads = b.needed;
        p.warps = b.warps;
        p.waited = b.waiting;
        for (int v : b.waiting) {
          blocked[static_cast<std::size_t>(v)] = false;
          ++pc[static_cast<std::size_t>(v)];
        }
        sim.phases.push_back(std::move(p));
        b = Barrier{};
      }
    }
  }
  for (std::size_t w = 0; w < n; ++w) {
    if (!blocked[w]) continue;
    const Step& s = warps[w][pc[w]];
    const Barrier& b = bars[static_cast<std::size_t>(s.id)];
    sim.stuck.push_back({static_cast<int>(w), s.id, b.arrived, b.needed});
  }
  return sim;
}

std::vector<WarpProgram> groups_program(const GroupsSpec& spec) {
  std::vector<WarpProgram> out;
  for (int g = 0; g < 2; ++g)
    for (int w = 0; w < spec.warps(g); ++w) {
      WarpProgram p;
      for (int ph = 0; ph < spec.phases; ++ph) p.push_back({StepKind::sync, spec.ids[g], spec.threads[g]});
      out.push_back(std::move(p));
    }
  return out;
}

std::vector<WarpProgram> pc_program(const PcSpec& spec) {
  const int count = spec.block_threads();
  std::vector<WarpProgram> out;
  for (int w = 0; w < spec.producer_warps(); ++w) {
    WarpProgram p;
    for (int r = 0; r < spec.rounds; ++r) {
      p.push_back({StepKind::arrive, spec.ids[0], count});  // slot written: full
      p.push_back({StepKind::sync, spec.ids[1], count});    // wait until read: empty
    }
    out.push_back(std::move(p));
  }
  for (int w = 0; w < spec.consumer_warps(); ++w) {
    WarpProgram p;
    for (int r = 0; r < spec.rounds; ++r) {
      p.push_back({StepKind::sync, spec.ids[0], count});
      p.push_back({StepKind::arrive, spec.ids[1], count});
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<WarpProgram> misuse_program(const MisuseCase& c, int id) {
  return std::vector<WarpProgram>(static_cast<std::size_t>(c.waiting_warps()), WarpProgram{{StepKind::sync, id, c.count}});
}

RedTotals model_red(const std::vector<std::int32_t>& predicate) {
  RedTotals t;
  t.all = 1;
  for (auto p : predicate) {
    t.count += p != 0 ? 1 : 0;
    t.all = t.all && p != 0 ? 1 : 0;
    t.any = t.any || p != 0 ? 1 : 0;
  }
  return t;
}

std::vector<std::int32_t> model_consumed(const PcSpec& spec) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(spec.rounds * spec.producers));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = spec.input[i];
  return out;
}

// ---- the judges --------------------------------------------------------------------------------------

namespace {
constexpr long long kMin = std::numeric_limits<long long>::min();
constexpr long long kMax = std::numeric_limits<long long>::max();
}  // namespace

std::string simulation_detail(const Simulation& sim) {
  if (sim.finishes()) return say("judge.phases-complete", {{"phases", sim.phases.size()}});
  if (!sim.hazards.empty()) return sim.hazards.front();
  const auto& s = sim.stuck.front();
  return say("judge.waits-forever",
             {{"warp", s.warp}, {"id", s.id}, {"arrived", s.arrived_threads}, {"needed", s.needed_threads}});
}

GroupsVerdict judge_groups(const GroupsSpec& spec, const Simulation& sim, const GroupsTrace& gpu) {
  GroupsVerdict v;
  v.origin = kMax;
  for (auto a : gpu.arrive) v.origin = std::min(v.origin, a);
  // The latest (want_max) or earliest stamp of group g's warps in phase ph, after the origin.
  const auto stat = [&](int g, int ph, bool leave, bool want_max) {
    const int first = g == 0 ? 0 : spec.warps(0);
    long long x = want_max ? kMin : kMax;
    for (int w = first; w < first + spec.warps(g); ++w) {
      const long long t = (leave ? gpu.leave : gpu.arrive)[static_cast<std::size_t>(w * spec.phases + ph)];
      x = want_max ? std::max(x, t) : std::min(x, t);
    }
    return x - v.origin;
  };
  for (std::size_t i = 0; i < sim.phases.size(); ++i) {
    const Phase& p = sim.phases[i];
    const int g = p.id == spec.ids[0] ? 0 : 1;
    GroupsPhase row;
    row.gpu_warps = gpu.arrivals[static_cast<std::size_t>(g * spec.phases + p.index)];
    row.last_in = stat(g, p.index, false, true);
    row.first_out = stat(g, p.index, true, false);
    if (row.gpu_warps != static_cast<int>(p.warps.size())) v.bad_counts.push_back(static_cast<int>(i));
    if (row.first_out < row.last_in) v.bad_order.push_back(static_cast<int>(i));
    row.agrees = row.gpu_warps == static_cast<int>(p.warps.size()) && row.first_out >= row.last_in;
    v.phases.push_back(row);
  }
  for (int w = 0; w < spec.block_threads() / kWarpSize; ++w)
    if (gpu.passed[static_cast<std::size_t>(w)] != spec.phases) v.short_passed.push_back(w);
  v.group0_done = stat(0, spec.phases - 1, true, true);
  v.group1_first = stat(1, 0, false, false);
  v.independent = !gpu.hold_gave_up && v.group0_done < v.group1_first;
  return v;
}

RoundsVerdict judge_rounds(const PcSpec& spec, const std::vector<std::int32_t>& consumed) {
  const auto model = model_consumed(spec);
  RoundsVerdict v;
  for (int r = 0; r < spec.rounds; ++r) {
    int equal = 0;
    for (int i = 0; i < spec.producers; ++i) {
      const auto at = static_cast<std::size_t>(r * spec.producers + i);
      equal += consumed[at] == model[at] ? 1 : 0;
    }
    v.equal.push_back(equal);
    v.equal_total += equal;
    if (equal != spec.producers) v.bad_rounds.push_back(r);
  }
  return v;
}

long long pc_stamp(const PcSpec& spec, const PcResult& r, int warp, int round, int k) {
  return r.stamps[static_cast<std::size_t>((warp * spec.rounds + round) * kPcStamps + k)];
}

PcTiming pc_timing(const PcSpec& spec, const PcResult& r) {
  PcTiming t;
  const int pw = spec.producer_warps(), cw = spec.consumer_warps();
  std::vector<double> arrive, full_wait, empty_wait;  // cycles
  const auto span = [&](int w, int round, int from, int to) {
    return static_cast<double>(pc_stamp(spec, r, w, round, to) - pc_stamp(spec, r, w, round, from));
  };
  for (int round = 0; round < spec.rounds; ++round) {
    long long last_produced = kMin, last_read = kMin, first_consumer_out = kMax, first_producer_out = kMax;
    for (int w = 0; w < pw; ++w) {
      last_produced = std::max(last_produced, pc_stamp(spec, r, w, round, 0));
      first_producer_out = std::min(first_producer_out, pc_stamp(spec, r, w, round, 3));
      arrive.push_back(span(w, round, 0, 1));
      empty_wait.push_back(span(w, round, 2, 3));
    }
    for (int w = pw; w < pw + cw; ++w) {
      last_read = std::max(last_read, pc_stamp(spec, r, w, round, 2));
      first_consumer_out = std::min(first_consumer_out, pc_stamp(spec, r, w, round, 1));
      full_wait.push_back(span(w, round, 0, 1));
    }
    if (first_consumer_out < last_produced) t.bad_full_rounds.push_back(round);
    if (first_producer_out < last_read) t.bad_empty_rounds.push_back(round);
  }
  t.arrive_cycles = std::llround(report::median(arrive));
  t.full_wait_cycles = std::llround(report::median(full_wait));
  t.empty_wait_cycles = std::llround(report::median(empty_wait));
  return t;
}

RedVerdict judge_red(int threads, const RedTotals& m, const RedResult& gpu) {
  RedVerdict v;
  for (int c = 0; c < kRedColumns; ++c) {
    // The value thread 0 got; every other thread must have got the same.
    const std::int32_t v0 = gpu.values[static_cast<std::size_t>(c)];
    bool same = true;
    for (int tid = 0; tid < threads; ++tid)
      same = same && gpu.values[static_cast<std::size_t>(tid * kRedColumns + c)] == v0;
    v.values.push_back(same ? std::optional<std::int32_t>(v0) : std::nullopt);
    const bool is_count = c == red_count || c == red_ptx_popc;
    const bool is_and = c == red_and || c == red_ptx_and;
    const bool ok = same && (is_count ? v0 == m.count : is_and ? (v0 != 0) == (m.all != 0) : (v0 != 0) == (m.any != 0));
    if (!ok) v.bad_columns.push_back(c);
  }
  return v;
}

// ---- bar-sync ----------------------------------------------------------------------------------------

namespace {

// "threads 0-63, warps 0-1": shared by bar-sync and producer-consumer, as are the three below.
std::string role_range(int first_thread, int threads) {
  const int w0 = first_thread / kWarpSize, w1 = (first_thread + threads) / kWarpSize - 1;
  const int last = first_thread + threads - 1;
  if (w0 == w1) return say("roles.range-one-warp", {{"first", first_thread}, {"last", last}, {"warp", w0}});
  return say("roles.range", {{"first", first_thread}, {"last", last}, {"first-warp", w0}, {"last-warp", w1}});
}

// One row of the table "phases".
std::vector<std::pair<std::string, Value>> phase_cells(const Phase& p) {
  const I waited = static_cast<I>(p.waited.size());
  return {{"barrier", static_cast<I>(p.id)},          {"phase", static_cast<I>(p.index)},
          {"count", static_cast<I>(p.needed_threads)}, {"warps", static_cast<I>(p.warps.size())},
          {"sync", waited},                             {"arrive", static_cast<I>(p.warps.size()) - waited}};
}

// The table "phases": the model's barrier phases.
report::Table phase_table(const std::string& title) {
  report::Table t("phases", title);
  t.column("barrier", say("phases.barrier")).column("phase", say("phases.phase")).column("count", say("phases.count"));
  t.column("warps", say("phases.warps")).column("sync", "sync").column("arrive", "arrive");
  t.legend.push_back(say("phases.legend"));
  return t;
}

// Check "model-finishes": the model's run of `what` ends with no warp left waiting.
void check_model_finishes(report::Section& s, const Simulation& sim, const std::string& what) {
  s.check("model-finishes", say("checks.model-finishes", {{"what", what}}), sim.finishes(), simulation_detail(sim));
}

std::string barrier_text(const GroupsSpec& spec, int g) {
  return "bar.sync " + std::to_string(spec.ids[g]) + ", " + std::to_string(spec.threads[g]);
}

void add_timeline(report::Section& s, const GroupsSpec& spec, const GroupsTrace& gpu, const GroupsVerdict& v) {
  report::Table tl("timeline", say("bar-sync.timeline-title"));
  tl.column("warp", say("phases.warp")).column("group", say("bar-sync.group")).column("barrier", say("phases.barrier"));
  for (int ph = 0; ph < spec.phases; ++ph)
    tl.column("left-" + std::to_string(ph), say("bar-sync.left-phase", {{"phase", ph}}));
  for (int w = 0; w < spec.block_threads() / kWarpSize; ++w) {
    const int g = w < spec.warps(0) ? 0 : 1;
    std::vector<std::pair<std::string, Value>> cells{
        {"warp", static_cast<I>(w)}, {"group", static_cast<I>(g)}, {"barrier", static_cast<I>(spec.ids[g])}};
    for (int ph = 0; ph < spec.phases; ++ph)
      cells.emplace_back("left-" + std::to_string(ph),
                         static_cast<I>(gpu.leave[static_cast<std::size_t>(w * spec.phases + ph)] - v.origin));
    const bool short_passed = std::find(v.short_passed.begin(), v.short_passed.end(), w) != v.short_passed.end();
    tl.row(cells, short_passed ? RowMark::mismatch : RowMark::none);
  }
  if (gpu.ns_per_cycle > 0)
    tl.legend.push_back(say("gpu.ns-per-cycle", {{"ns", report::fixed(gpu.ns_per_cycle, 3)}}));
  s.add(std::move(tl));
}

}  // namespace

report::Section bar_sync_part(Run& run) {
  const GroupsSpec& spec = run.in.groups;
  const Simulation sim = simulate(groups_program(spec), spec.block_threads());
  std::optional<GroupsTrace> gpu;
  if (run.ctx.gpu) gpu = gpu_groups(spec);

  report::Section s("bar-sync", say("bar-sync.title"));
  s.paragraph(say("bar-sync.about", {{"group-0", role_range(0, spec.threads[0])},
                                     {"phases", spec.phases},
                                     {"work-0", spec.work_cycles[0]},
                                     {"barrier-0", barrier_text(spec, 0)},
                                     {"group-1", role_range(spec.threads[0], spec.threads[1])},
                                     {"work-1", spec.work_cycles[1]},
                                     {"barrier-1", barrier_text(spec, 1)}}));
  for (int g = 0; g < 2; ++g)
    s.fact("group-" + std::to_string(g), say("bar-sync.group-title", {{"group", g}}), barrier_text(spec, g),
           report::Format::plain, say("bar-sync.group-warps", {{"warps", spec.warps(g)}}));

  report::Table phases = phase_table(say("bar-sync.phases-title"));
  std::optional<GroupsVerdict> v;
  if (gpu) {
    v = judge_groups(spec, sim, *gpu);
    phases.column("gpu-warps", say("bar-sync.gpu-warps")).column("last-in", say("bar-sync.last-in"));
    phases.column("first-out", say("bar-sync.first-out"));
    phases.legend.push_back(say("bar-sync.gpu-legend"));
  }
  for (std::size_t i = 0; i < sim.phases.size(); ++i) {
    auto cells = phase_cells(sim.phases[i]);
    RowMark mark = RowMark::none;
    if (v) {
      const GroupsPhase& p = v->phases[i];
      cells.insert(cells.end(), {{"gpu-warps", static_cast<I>(p.gpu_warps)},
                                {"last-in", static_cast<I>(p.last_in)},
                                {"first-out", static_cast<I>(p.first_out)}});
      if (!p.agrees) mark = RowMark::mismatch;
    }
    phases.row(cells, mark);
  }
  s.add(std::move(phases));
  check_model_finishes(s, sim, say("bar-sync.program"));
  if (!gpu) {
    s.note(say("bar-sync.needs-gpu"));
    return s;
  }
  add_timeline(s, spec, *gpu, *v);
  s.agreement("gpu-agrees", say("bar-sync.gpu-agrees"), v->agrees(),
              v->agrees() ? say("bar-sync.gpu-agrees-yes", {{"phases", sim.phases.size()}, {"barriers", spec.phases}})
                          : say("bar-sync.gpu-agrees-no", {{"rows", report::list_of(v->bad_counts)},
                                                           {"warps", report::list_of(v->short_passed)}}));
  s.check("no-early-release", say("bar-sync.no-early-release"), v->bad_order.empty(),
          v->bad_order.empty() ? say("bar-sync.every-phase") : say("bar-sync.phase-rows", {{"rows", report::list_of(v->bad_order)}}));
  s.check("groups-independent", say("bar-sync.groups-independent", {{"id", spec.ids[0]}}), v->independent,
          gpu->hold_gave_up ? say("bar-sync.hold-gave-up")
                            : say("bar-sync.group-times", {{"done", v->group0_done}, {"first", v->group1_first}}));
  return s;
}

// ---- producer-consumer, cuda-barrier -----------------------------------------------------------------

namespace {

std::string rounds_detail(const std::vector<int>& bad, int rounds) {
  return bad.empty() ? say("pc.rounds-ok", {{"rounds", rounds}}) : say("pc.rounds-broke", {{"rounds", report::list_of(bad)}});
}

void add_trace(report::Section& s, const PcSpec& spec, const PcResult& r) {
  const int pw = spec.producer_warps(), warps = spec.block_threads() / kWarpSize;
  long long origin = pc_stamp(spec, r, 0, 0, 0);
  for (int w = 0; w < warps; ++w) origin = std::min(origin, pc_stamp(spec, r, w, 0, 0));
  report::Table t("trace", say("pc.trace-title"));
  t.column("warp", say("phases.warp")).column("role", say("pc.role")).column("round", say("pc.round"));
  t.column("full-in", say("pc.full-in"), Format::cycles).column("full-out", say("pc.full-out"), Format::cycles);
  t.column("between", say("pc.between"), Format::cycles).column("empty-in", say("pc.empty-in"), Format::cycles);
  t.column("empty-out", say("pc.empty-out"), Format::cycles);
  for (int w = 0; w < warps; ++w)
    for (int round = 0; round < spec.rounds; ++round) {
      const auto at = [&](int k) { return Value{static_cast<I>(pc_stamp(spec, r, w, round, k) - origin)}; };
      const bool producer = w < pw;
      // Stamps (PcResult): a producer arrives at full (t0, on at t1), has fetched (t2), waits on
      // empty (t2 -> t3); a consumer waits on full (t0 -> t1), has read (t2) and arrives at empty (t2).
      t.row({{"warp", static_cast<I>(w)}, {"role", say(producer ? "pc.producer" : "pc.consumer")},
             {"round", static_cast<I>(round)}, {"full-in", at(0)}, {"full-out", at(1)}, {"between", at(2)},
             {"empty-in", at(2)}, {"empty-out", producer ? at(3) : Value{report::Undefined{}}}});
    }
  t.legend.push_back(say("pc.legend-producers"));
  t.legend.push_back(say("pc.legend-consumers"));
  s.add(std::move(t));
}

}  // namespace

void add_rounds(report::Section& s, const PcSpec& spec, const std::optional<PcResult>& gpu) {
  const auto model = model_consumed(spec);
  report::Table t("rounds", say("pc.rounds-title"));
  t.column("round", say("pc.round")).column("slots", say("pc.slots")).column("first", say("pc.slot-model", {{"slot", 0}}));
  t.column("last", say("pc.slot-model", {{"slot", spec.producers - 1}}));
  std::optional<RoundsVerdict> v;
  if (gpu) {
    v = judge_rounds(spec, gpu->consumed);
    t.column("gpu-equal", say("pc.gpu-equal", {{"producers", spec.producers}}));
  }
  for (int r = 0; r < spec.rounds; ++r) {
    const auto base = static_cast<std::size_t>(r * spec.producers);
    std::vector<std::pair<std::string, Value>> cells{
        {"round", static_cast<I>(r)},
        {"slots", static_cast<I>(spec.producers)},
        {"first", static_cast<I>(model[base])},
        {"last", static_cast<I>(model[base + static_cast<std::size_t>(spec.producers) - 1])}};
    RowMark mark = RowMark::none;
    if (v) {
      const int equal = v->equal[static_cast<std::size_t>(r)];
      cells.emplace_back("gpu-equal", static_cast<I>(equal));
      if (equal != spec.producers) mark = RowMark::mismatch;
    }
    t.row(cells, mark);
  }
  s.add(std::move(t));
  if (v)
    s.agreement("gpu-agrees", say("pc.gpu-agrees"), v->passed(),
                v->passed() ? say("pc.gpu-agrees-yes", {{"equal", v->equal_total}, {"values", model.size()}, {"rounds", spec.rounds}})
                            : say("pc.gpu-agrees-no", {{"rounds", report::list_of(v->bad_rounds)}}));
}

void add_pc_timing(report::Section& s, const PcSpec& spec, const PcResult& r, bool trace, const PcNames& names) {
  const PcTiming t = pc_timing(spec, r);
  s.fact("arrive-cycles", say("pc.producer-median", {{"call", names.arrive}}), static_cast<I>(t.arrive_cycles),
         Format::cycles, say("pc.arrive-note"));
  s.fact("full-wait-cycles", say("pc.consumer-median", {{"call", names.full_wait}}), static_cast<I>(t.full_wait_cycles),
         Format::cycles, say("pc.full-wait-note"));
  s.fact("empty-wait-cycles", say("pc.producer-median", {{"call", names.empty_wait}}),
         static_cast<I>(t.empty_wait_cycles), Format::cycles, say("pc.empty-wait-note"));
  if (r.ns_per_cycle > 0)
    s.fact("sm-clock-ghz", say("pc.sm-clock"), 1.0 / r.ns_per_cycle, Format::plain, say("pc.sm-clock-note"));
  s.check("consumers-waited", say("pc.consumers-waited"), t.consumers_waited(), rounds_detail(t.bad_full_rounds, spec.rounds));
  s.check("producers-waited", say("pc.producers-waited"), t.producers_waited(),
          rounds_detail(t.bad_empty_rounds, spec.rounds));
  if (trace) add_trace(s, spec, r);
}

report::Section producer_consumer_part(Run& run) {
  const PcSpec& spec = run.in.pc;
  const Simulation sim = simulate(pc_program(spec), spec.block_threads());
  std::optional<PcResult> gpu;
  if (run.ctx.gpu) gpu = gpu_producer_consumer(spec);
  const std::string n = std::to_string(spec.block_threads());
  const std::string full = std::to_string(spec.ids[0]), empty = std::to_string(spec.ids[1]);

  report::Section s("producer-consumer", say("pc.title"));
  s.paragraph(say("pc.code", {{"producers", role_range(0, spec.producers)},
                              {"consumers", role_range(spec.producers, spec.consumers)},
                              {"full", full},
                              {"empty", empty},
                              {"n", n}}));
  s.paragraph(say("pc.about", {{"full", full}, {"empty", empty}, {"n", n}}));
  s.fact("block-threads", say("pc.block-threads"), static_cast<I>(spec.block_threads()), Format::count,
         say("pc.block-threads-note", {{"producers", spec.producers}, {"consumers", spec.consumers}}));
  s.fact("rounds", say("pc.rounds"), static_cast<I>(spec.rounds), Format::count, say("pc.rounds-note"));
  report::Table phases = phase_table(say("pc.phases-title"));
  for (const Phase& p : sim.phases) phases.row(phase_cells(p));
  s.add(std::move(phases));
  check_model_finishes(s, sim, say("pc.program"));
  add_rounds(s, spec, gpu);
  if (gpu)
    add_pc_timing(s, spec, *gpu, run.in.trace, {"bar.arrive " + full, "bar.sync " + full, "bar.sync " + empty});
  else
    s.note(say("pc.needs-gpu"));
  return s;
}

namespace {

void add_compiled(report::Section& s, const std::string& arch) {
  const KernelCode* k = find_kernel(kernel_listing().sass, arch, "named_barriers", "cuda_barrier_pc_kernel");
  report::Table t("compiled", say("cuda-barrier.compiled-title", {{"arch", arch}}));
  t.column("opcode", say("cuda-barrier.opcode")).column("times", say("cuda-barrier.times"));
  for (const auto& [op, n] : opcode_counts(k ? k->instructions : std::vector<std::string>{}))
    t.row({{"opcode", op}, {"times", static_cast<std::int64_t>(n)}});
  if (t.rows.empty()) t.row({{"opcode", say("cuda-barrier.no-sync-instruction")}, {"times", std::int64_t{0}}});
  t.legend.push_back(say("cuda-barrier.legend-sass"));
  t.legend.push_back(say("cuda-barrier.legend-syncs"));
  t.legend.push_back(say("cuda-barrier.legend-nanosleep"));
  s.add(std::move(t));
}

}  // namespace

report::Section cuda_barrier_part(Run& run) {
  const PcSpec& spec = run.in.pc;
  if (run.ctx.gpu && run.ctx.compute_capability() < 80)
    throw WaivedError(say("cuda-barrier.waived", {{"device", run.ctx.device_text()}}));
  std::optional<PcResult> gpu;
  if (run.ctx.gpu) gpu = gpu_producer_consumer_cuda_barrier(spec);

  report::Section s("cuda-barrier", say("cuda-barrier.title"));
  s.paragraph(say("cuda-barrier.about", {{"arrivals", spec.block_threads()}}));
  s.paragraph(say("cuda-barrier.tokens"));
  add_rounds(s, spec, gpu);
  if (gpu) add_pc_timing(s, spec, *gpu, run.in.trace, {"full.arrive()", "full.wait()", "empty.wait()"});
  else s.note(say("cuda-barrier.needs-gpu"));
  const std::string arch = listing_sass_arch(kernel_listing(), run.ctx.compute_capability());
  if (!arch.empty()) add_compiled(s, arch);
  return s;
}

// ---- bar-red -----------------------------------------------------------------------------------------

namespace {

// The GPU columns, in RedColumn order ("bar" ".red.popc": an instruction name written whole would read
// as a catalog key to the words test).
const char* const kGpuColumns[kRedColumns][2] = {{"sync-count", "__syncthreads_count"}, {"sync-and", "_and"},
                                                 {"sync-or", "_or"},                   {"ptx-popc", "bar" ".red.popc"},
                                                 {"ptx-and", ".and"},                  {"ptx-or", ".or"}};

}  // namespace

report::Section bar_red_part(Run& run) {
  const int threads = run.in.red_threads, id = run.in.red_id;
  const bool gpu = run.ctx.gpu;
  report::Section s("bar-red", say("bar-red.title"));
  s.paragraph(say("bar-red.about", {{"id", id}}));
  s.fact("threads", say("bar-red.threads"), static_cast<I>(threads), report::Format::count,
         "lane = tid % 32, warp = tid / 32");
  report::Table t("reductions", say("bar-red.reductions-title"));
  t.column("predicate", say("bar-red.predicate")).column("model-count", say("phases.count"));
  t.column("model-and", "and").column("model-or", "or");
  if (gpu)
    for (const auto& c : kGpuColumns) t.column(c[0], c[1]);
  for (std::size_t i = 0; i < run.in.predicates.size(); ++i) {
    const Predicate& p = run.in.predicates[i];
    const auto values = evaluate(p, threads, run.ctx.seed);
    const RedTotals m = model_red(values);
    std::vector<std::pair<std::string, Value>> cells{{"predicate", p.text},
                                                     {"model-count", static_cast<I>(m.count)},
                                                     {"model-and", static_cast<I>(m.all)},
                                                     {"model-or", static_cast<I>(m.any)}};
    report::RowMark mark = report::RowMark::none;
    if (gpu) {
      const RedVerdict v = judge_red(threads, m, gpu_red(RedSpec{threads, id, values}));
      for (int c = 0; c < kRedColumns; ++c) {
        const auto& got = v.values[static_cast<std::size_t>(c)];
        cells.emplace_back(kGpuColumns[c][0], got ? Value{static_cast<I>(*got)} : Value{say("bar-red.differs")});
      }
      const std::string agrees =
          say("bar-red.agrees-yes", {{"threads", threads}, {"count", m.count}, {"and", m.all}, {"or", m.any}});
      mark = s.agreement("predicate-" + std::to_string(i) + "-gpu-agrees", p.text, v.passed(),
                         v.passed() ? agrees : say("bar-red.agrees-no", {{"columns", report::list_of(v.bad_columns)}}));
    }
    t.row(cells, mark);
  }
  if (gpu) t.legend.push_back(say("bar-red.gpu-legend"));
  s.add(std::move(t));
  if (!gpu) s.note(say("bar-red.needs-gpu"));
  return s;
}

}  // namespace cudasync::named_barriers
