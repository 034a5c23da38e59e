// Part bar-sync: two groups of warps, each on its own barrier with its own thread count. Also the
// phase table and the "runs to the end" check the producer/consumer part shows too.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#include "techniques/named_barriers/named_barriers_judge.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

namespace {
using I = std::int64_t;
using report::RowMark;
using report::Value;
}  // namespace

std::string role_range(int first_thread, int threads) {
  const int w0 = first_thread / kWarpSize, w1 = (first_thread + threads) / kWarpSize - 1;
  const int last = first_thread + threads - 1;
  if (w0 == w1) return say("roles.range-one-warp", {{"first", first_thread}, {"last", last}, {"warp", w0}});
  return say("roles.range", {{"first", first_thread}, {"last", last}, {"first-warp", w0}, {"last-warp", w1}});
}

std::vector<std::pair<std::string, Value>> phase_cells(const Phase& p) {
  const I waited = static_cast<I>(p.waited.size());
  return {{"barrier", static_cast<I>(p.id)},          {"phase", static_cast<I>(p.index)},
          {"count", static_cast<I>(p.needed_threads)}, {"warps", static_cast<I>(p.warps.size())},
          {"sync", waited},                             {"arrive", static_cast<I>(p.warps.size()) - waited}};
}

report::Table phase_table(const std::string& title) {
  report::Table t("phases", title);
  t.column("barrier", say("phases.barrier")).column("phase", say("phases.phase")).column("count", say("phases.count"));
  t.column("warps", say("phases.warps")).column("sync", "sync").column("arrive", "arrive");
  t.legend.push_back(say("phases.legend"));
  return t;
}

void check_model_finishes(report::Section& s, const Simulation& sim, const std::string& what) {
  s.check("model-finishes", say("checks.model-finishes", {{"what", what}}), sim.finishes(), simulation_detail(sim));
}

namespace {

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

}  // namespace cudasync::named_barriers
