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
  return "threads " + std::to_string(first_thread) + "-" + std::to_string(first_thread + threads - 1) +
         (w0 == w1 ? ", warp " + std::to_string(w0) : ", warps " + std::to_string(w0) + "-" + std::to_string(w1));
}

std::vector<std::pair<std::string, Value>> phase_cells(const Phase& p) {
  const I waited = static_cast<I>(p.waited.size());
  return {{"barrier", static_cast<I>(p.id)},          {"phase", static_cast<I>(p.index)},
          {"count", static_cast<I>(p.needed_threads)}, {"warps", static_cast<I>(p.warps.size())},
          {"sync", waited},                             {"arrive", static_cast<I>(p.warps.size()) - waited}};
}

report::Table phase_table(const std::string& title) {
  report::Table t("phases", title);
  t.column("barrier", "barrier").column("phase", "phase").column("count", "count").column("warps", "warps");
  t.column("sync", "sync").column("arrive", "arrive");
  t.legend.push_back("count: threads the phase needs; warps: warps that arrived; sync / arrive: of them, "
                     "how many waited (bar.sync) and how many only arrived (bar.arrive)");
  return t;
}

void check_model_finishes(report::Section& s, const Simulation& sim, const std::string& what) {
  s.check("model-finishes", "reference model: " + what + " runs to the end", sim.finishes(), simulation_detail(sim));
}

namespace {

std::string barrier_text(const GroupsSpec& spec, int g) {
  return "bar.sync " + std::to_string(spec.ids[g]) + ", " + std::to_string(spec.threads[g]);
}

void add_timeline(report::Section& s, const GroupsSpec& spec, const GroupsTrace& gpu, const GroupsVerdict& v) {
  report::Table tl("timeline", "per-warp timeline: clock64 cycles after the first arrival when each warp left each phase");
  tl.column("warp", "warp").column("group", "group").column("barrier", "barrier");
  for (int ph = 0; ph < spec.phases; ++ph) tl.column("left-" + std::to_string(ph), "left " + std::to_string(ph));
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
    tl.legend.push_back("one cycle is about " + report::fixed(gpu.ns_per_cycle, 3) +
                        " ns on this GPU (clock64 against %globaltimer)");
  s.add(std::move(tl));
}

}  // namespace

report::Section bar_sync_part(Run& run) {
  const GroupsSpec& spec = run.in.groups;
  const Simulation sim = simulate(groups_program(spec), spec.block_threads());
  std::optional<GroupsTrace> gpu;
  if (run.ctx.gpu) gpu = gpu_groups(spec);

  report::Section s("bar-sync", "bar.sync id, count: two groups of warps, each on its own barrier");
  s.paragraph(
      "Group 0 (" + role_range(0, spec.threads[0]) + ") runs " + std::to_string(spec.phases) + " phases of " +
      std::to_string(spec.work_cycles[0]) + " cycles of work, each ended by " + barrier_text(spec, 0) + ". Group 1 (" +
      role_range(spec.threads[0], spec.threads[1]) + ") runs phases of " + std::to_string(spec.work_cycles[1]) +
      " cycles, each ended by " + barrier_text(spec, 1) +
      ". A barrier counts only its own arrivals, so the short group never waits for the long one. To prove it "
      "without trusting clocks, group 1 is held before its first barrier until group 0 has passed all of its "
      "phases (a flag watched with a deadline): if group 0 needed group 1, that would deadlock and the check would "
      "fail.");
  for (int g = 0; g < 2; ++g)
    s.fact("group-" + std::to_string(g), "group " + std::to_string(g), barrier_text(spec, g), report::Format::plain,
           std::to_string(spec.warps(g)) + " warps");

  report::Table phases = phase_table("barrier phases (reference model: arrivals per barrier id)");
  std::optional<GroupsVerdict> v;
  if (gpu) {
    v = judge_groups(spec, sim, *gpu);
    phases.column("gpu-warps", "gpu warps").column("last-in", "last in").column("first-out", "first out");
    phases.legend.push_back("last in / first out (gpu): clock64 cycles after the first arrival, the last warp "
                            "arriving and the first released (one SM, one clock)");
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
  check_model_finishes(s, sim, "the two groups' program");
  if (!gpu) {
    s.note("the per-warp timeline (clock64 stamps around every bar.sync) needs a GPU");
    return s;
  }
  add_timeline(s, spec, *gpu, *v);
  s.agreement("gpu-agrees", "phases and arrivals per barrier id", v->agrees(),
              v->agrees() ? std::to_string(sim.phases.size()) + " phases; every warp passed " +
                                std::to_string(spec.phases) + " barriers"
                          : "phase rows " + report::list_of(v->bad_counts) + " / warps " +
                                report::list_of(v->short_passed) + " differ");
  s.check("no-early-release", "no warp left a phase before the last warp of its group arrived", v->bad_order.empty(),
          v->bad_order.empty() ? "every phase of both barriers" : "phase rows " + report::list_of(v->bad_order));
  s.check("groups-independent",
          "group 0 passed all its phases while group 1 was held before its first barrier: bar.sync " +
              std::to_string(spec.ids[0]) + " never needed group 1",
          v->independent,
          gpu->hold_gave_up ? "group 0 never finished while group 1 was held (the hold gave up after 200 ms)"
                            : "group 0 done at cycle " + std::to_string(v->group0_done) +
                                  ", group 1 first arrived at cycle " + std::to_string(v->group1_first));
  return s;
}

}  // namespace cudasync::named_barriers
