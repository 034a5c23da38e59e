// Part early-stamp: does a clock read placed right after bar.sync wait for the barrier? Measured
// beside a stamp taken behind a shared-memory access, which the PTX ISA makes wait.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#include "techniques/named_barriers/named_barriers_judge.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

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
    t.row(cells, v.guarded_waited() ? report::RowMark::none : report::RowMark::mismatch);
    const std::string id = barrier_id(b);
    const std::string early = say("early-stamp.guarded-early-detail", {{"early", v.guarded_before}, {"samples", v.samples}});
    s.agreement("gpu-agrees-" + id, say("early-stamp.gpu-agrees", {{"barrier", barrier_text(spec, b)}}),
                v.guarded_waited(),
                v.bad_rounds.empty()
                    ? early
                    : say("early-stamp.guarded-early-rounds", {{"early", early}, {"rounds", report::list_of(v.bad_rounds)}}));
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
