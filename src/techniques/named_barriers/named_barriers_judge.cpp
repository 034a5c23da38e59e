#include "techniques/named_barriers/named_barriers_judge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernel_listing.hpp"
#include "core/report/report.hpp"
#include "core/report/text_format.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

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

StampVerdict judge_stamps(const StampSpec& spec, const StampResult& r) {
  StampVerdict v;
  std::vector<double> naive, guarded;
  const auto at = [&](const std::vector<long long>& x, int round, int warp) {
    return x[static_cast<std::size_t>(round * spec.warps + warp)];
  };
  for (int round = 0; round < spec.rounds; ++round) {
    int last = 0;
    for (int w = 1; w < spec.warps; ++w)
      if (at(r.arrive, round, w) > at(r.arrive, round, last)) last = w;
    const long long completes = at(r.arrive, round, last);
    bool bad = false;
    for (int w = 0; w < spec.warps; ++w) {
      if (w == last) continue;
      const long long n = at(r.naive, round, w) - completes, g = at(r.guarded, round, w) - completes;
      ++v.samples;
      v.naive_before += n < 0 ? 1 : 0;
      v.guarded_before += g < 0 ? 1 : 0;
      bad = bad || g < 0;
      naive.push_back(static_cast<double>(n));
      guarded.push_back(static_cast<double>(g));
      v.naive_earliest = v.samples == 1 ? n : std::min(v.naive_earliest, n);
    }
    if (bad) v.bad_rounds.push_back(round);
  }
  v.naive_median = std::llround(report::median(naive));
  v.guarded_median = std::llround(report::median(guarded));
  return v;
}

std::string stamp_finding(const StampVerdict& v) {
  const auto rel = [](long long cycles) {
    return say(cycles < 0 ? "judge.cycles-before" : "judge.cycles-after",
               {{"cycles", report::format_value(static_cast<double>(cycles < 0 ? -cycles : cycles), report::Format::count)}});
  };
  if (v.naive_before == 0)
    return say("judge.naive-waited", {{"samples", v.samples}, {"median", rel(v.naive_median)}});
  return say("judge.naive-early", {{"early", v.naive_before}, {"samples", v.samples}, {"median", rel(v.naive_median)},
                                   {"earliest", rel(v.naive_earliest)}});
}

std::vector<OpcodeExpectation> listing_expectations(int sm) {
  std::vector<OpcodeExpectation> expect = {{"groups_kernel", {"BAR.SYNC"}},
                                           {"pc_kernel", {"BAR.ARV", "BAR.SYNC"}},
                                           {"red_kernel", {"BAR.RED.POPC", "BAR.RED.AND", "BAR.RED.OR", "B2R.RESULT"}}};
  if (sm >= 90) expect.push_back({"cuda_barrier_pc_kernel", {"SYNCS.ARRIVE", "SYNCS.PHASECHK"}});
  else if (sm >= 80) expect.push_back({"cuda_barrier_pc_kernel", {"ATOMS.ARRIVE"}});
  return expect;
}

std::vector<std::string> missing_opcodes(const std::vector<std::string>& instructions,
                                         const std::vector<std::string>& opcodes) {
  std::vector<std::string> missing;
  for (const auto& op : opcodes)
    if (!has_opcode(instructions, op)) missing.push_back(op);
  return missing;
}

std::vector<std::vector<int>> observed_phases(const MisuseObservation& o) {
  std::vector<int> order(o.arrive_ns.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return o.arrive_ns[static_cast<std::size_t>(a)] < o.arrive_ns[static_cast<std::size_t>(b)];
  });
  std::vector<std::vector<int>> groups;
  for (int w : order) {
    const auto wi = static_cast<std::size_t>(w);
    if (!groups.empty() && o.arrive_ns[wi] < o.leave_ns[static_cast<std::size_t>(groups.back().front())]) {
      groups.back().push_back(w);
      continue;
    }
    groups.push_back({w});
  }
  return groups;
}

int released_by(const MisuseObservation& o, std::size_t warp) {
  const long long left = o.leave_ns[warp];
  int by = 0;
  for (std::size_t k = 0; k < o.rescue_ns.size(); ++k)
    if (left >= o.rescue_ns[k] && (k + 1 == o.rescue_ns.size() || left < o.rescue_ns[k + 1])) by = static_cast<int>(k) + 1;
  return by;
}

std::optional<MisusePrediction> matched_prediction(const std::vector<MisusePrediction>& predictions,
                                                   const MisuseObservation& o) {
  std::vector<int> sizes;
  for (const auto& g : observed_phases(o)) sizes.push_back(static_cast<int>(g.size()));
  const int rescues = static_cast<int>(o.rescue_ns.size());
  std::optional<MisusePrediction> matched;
  for (const auto& p : predictions)
    if (p.phase_sizes == sizes && p.rescues == rescues) matched = p;
  return matched;
}

}  // namespace cudasync::named_barriers
