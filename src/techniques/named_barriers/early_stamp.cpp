// named-barriers' early-stamp part: does a clock read placed right after bar.sync wait for the
// barrier? Measured beside a stamp taken behind a shared-memory access, which the PTX ISA makes wait.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/report/text_format.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {

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

namespace {

using I = std::int64_t;

std::string barrier_text(const StampSpec& spec, StampBarrier b) {
  return b == StampBarrier::syncthreads ? std::string("__syncthreads()")
                                        : "bar.sync " + std::to_string(spec.id) + ", " + std::to_string(spec.block_threads());
}
const char* barrier_id(StampBarrier b) { return b == StampBarrier::syncthreads ? "syncthreads" : "named"; }

}  // namespace

report::Section early_stamp_section(const StampSpec& spec, const std::vector<std::pair<StampBarrier, StampResult>>& gpu,
                                    bool gpu_run) {
  report::Section s("early-stamp", say("early-stamp.title"));
  s.paragraph(say("early-stamp.question"));
  s.paragraph(say("early-stamp.about", {{"warps", spec.warps},
                                        {"rounds", spec.rounds},
                                        {"late", report::grouped(static_cast<std::uint64_t>(spec.late_cycles))}}));
  s.fact("model", say("early-stamp.model"), say("early-stamp.model-value"), report::Format::plain,
         "PTX ISA 9.0, barrier{.cta}");
  report::Table t("stamps", say("early-stamp.stamps-title"));
  t.column("barrier", say("phases.barrier"))
      .column("naive", say("early-stamp.naive-median"), report::Format::count)
      .column("earliest", say("early-stamp.naive-earliest"), report::Format::count)
      .column("naive-before", say("early-stamp.naive-early"), report::Format::count)
      .column("guarded", say("early-stamp.guarded-median"), report::Format::count)
      .column("guarded-before", say("early-stamp.guarded-early"), report::Format::count);
  for (StampBarrier b : {StampBarrier::syncthreads, StampBarrier::named}) {
    std::vector<std::pair<std::string, report::Value>> cells{{"barrier", barrier_text(spec, b)}};
    const auto found = std::find_if(gpu.begin(), gpu.end(), [&](const auto& g) { return g.first == b; });
    if (found == gpu.end()) {
      for (const char* k : {"naive", "earliest", "naive-before", "guarded", "guarded-before"})
        cells.emplace_back(k, report::NeedsGpu{});
      t.row(cells);
      continue;
    }
    const StampVerdict v = judge_stamps(spec, found->second);
    cells.insert(cells.end(), {{"naive", static_cast<I>(v.naive_median)},
                               {"earliest", static_cast<I>(v.naive_earliest)},
                               {"naive-before", static_cast<I>(v.naive_before)},
                               {"guarded", static_cast<I>(v.guarded_median)},
                               {"guarded-before", static_cast<I>(v.guarded_before)}});
    const std::string id = barrier_id(b);
    const std::string early = say("early-stamp.guarded-early-detail", {{"early", v.guarded_before}, {"samples", v.samples}});
    t.row(cells, s.agreement("gpu-agrees-" + id, say("early-stamp.gpu-agrees", {{"barrier", barrier_text(spec, b)}}),
                             v.guarded_waited(),
                             v.bad_rounds.empty() ? early
                                                  : say("early-stamp.guarded-early-rounds",
                                                        {{"early", early}, {"rounds", report::list_of(v.bad_rounds)}})));
    s.fact("naive-" + id, say("early-stamp.naive-stamp", {{"barrier", barrier_text(spec, b)}}), stamp_finding(v));
    if (found->second.ns_per_cycle > 0 && b == StampBarrier::syncthreads)
      t.legend.push_back(say("gpu.ns-per-cycle", {{"ns", report::fixed(found->second.ns_per_cycle, 3)}}));
  }
  t.legend.push_back(say("early-stamp.legend", {{"waits", (spec.warps - 1) * spec.rounds}}));
  s.add(std::move(t));
  if (!gpu_run) s.fact("verdict", say("early-stamp.verdict"), say("early-stamp.verdict-value"));
  return s;
}

report::Section early_stamp_part(Run& run) {
  StampSpec spec;
  spec.id = run.in.groups.ids[0] == 0 ? run.in.groups.ids[1] : run.in.groups.ids[0];
  std::vector<std::pair<StampBarrier, StampResult>> gpu;
  if (run.ctx.gpu)
    for (StampBarrier b : {StampBarrier::syncthreads, StampBarrier::named}) gpu.emplace_back(b, gpu_early_stamp(spec, b));
  return early_stamp_section(spec, gpu, run.ctx.gpu);
}

}  // namespace cudasync::named_barriers
