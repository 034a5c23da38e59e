// --bench: ns per barrier by grid size, a core/sweep over the correct barriers and own's candidates
// (rows) and 1, 2, 4 blocks per SM and full co-residency (columns), every ratio over grid.sync
// measured in the same run, beside the floor (one dependent L2 atomic round trip) and the cost
// model's prediction of every in-kernel barrier (lockfree_barrier_cost.cpp).
#include <algorithm>

#include "core/sweep/sweep.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_bench.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_gpu.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_judge.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using I = std::int64_t;
using report::Format;

constexpr int kBenchReps = 21, kBenchK1 = 200, kBenchK2 = 1200;
constexpr int kFloorChain = 2000;

int sm_count(const Run& run) { return run.ctx.gpu ? run.ctx.device->sm_count : kModelSmCount; }

// The grid sizes the sweep times: 1, 2 and 4 blocks per SM and full co-residency, ascending.
std::vector<int> grid_sizes(const Run& run) {
  const int sms = sm_count(run);
  const int full = std::min(run.limits.software.limit(), run.limits.cooperative.limit());
  std::vector<int> blocks;
  for (int per_sm : {1, 2, 4})
    if (per_sm * sms <= full) blocks.push_back(per_sm * sms);
  if (full > 0) blocks.push_back(full);
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  return blocks;
}

// The correct barriers, own's candidates right after own.
std::vector<Barrier> timed_barriers() {
  std::vector<Barrier> v;
  for (Barrier b : all_barriers()) {
    if (is_correct(b)) v.push_back(b);
    if (b == Barrier::own) v.insert(v.end(), std::begin(kOwnCandidates), std::end(kOwnCandidates));
  }
  return v;
}

// Why barrier b is not timed at a grid of n blocks on this GPU, or "" when it is.
std::string not_timed(Barrier b, int n, const Run& run) {
  const Limits& lim = run.limits;
  if (!run.ctx.gpu) return "";
  if (b == Barrier::grid_sync && !lim.cooperative_launch) return say("bench.waived-no-cooperative");
  if (is_own(b) && b != Barrier::own && n > lim.candidates.limit())
    return say("bench.candidate-does-not-fit", {{"blocks", n}, {"residency", lim.candidates.text()}});
  if (!uses_clusters(b)) return "";
  if (!lim.cluster_unsupported.empty()) return say("bench.waived-because", {{"why", lim.cluster_unsupported}});
  const Coresidency c = cluster_for(n, lim).second;
  if (n > c.limit()) return say("bench.clusters-do-not-fit", {{"blocks", n}, {"residency", c.text()}});
  return "";
}

}  // namespace

void bench_setup(Run& run, report::Section& sec) {
  const Limits& lim = run.limits;
  sec.title = say("bench.setup-title");
  sec.paragraph(say("bench.about", {{"k1", kBenchK1}, {"k2", kBenchK2}, {"reps", kBenchReps}}));
  sec.fact("threads", say("setup.threads"), static_cast<I>(run.options.threads), Format::count);
  sec.fact("resident-software", say("setup.resident-software"), static_cast<I>(lim.software.limit()),
           Format::count, per_sm_text(lim.software));
  sec.fact("resident-grid-sync", say("setup.resident-grid-sync"), static_cast<I>(lim.cooperative.limit()),
           Format::count, per_sm_text(lim.cooperative));
  const bool waived = run.ctx.gpu && !lim.cluster_unsupported.empty();
  sec.fact("own-cluster", "own-cluster", waived ? say("waived") : std::string("sm_90"), Format::plain,
           waived ? lim.cluster_unsupported : say("bench.cluster-sizes-note"));
  report::Table t("grid-sizes", say("bench.grid-sizes-title"));
  t.column("blocks", say("column.blocks"), Format::count)
      .column("per-sm", say("bench.blocks-per-sm"), Format::plain)
      .column("own-counters", say("bench.own-counters"), Format::count)
      .column("own-pollers", say("bench.own-pollers"), Format::count)
      .column("cluster-size", say("bench.cluster-size"), Format::count);
  const int sms = sm_count(run);
  for (int n : grid_sizes(run)) {
    const report::Value per = n % sms == 0 ? report::Value{static_cast<I>(n / sms)}
                                           : report::Value{static_cast<double>(n) / sms};
    t.row({{"blocks", static_cast<I>(n)},
           {"per-sm", per},
           {"own-counters", static_cast<I>(std::min(own_counters_for(n), n))},
           {"own-pollers", static_cast<I>(own_pollers_for(n, sms, run.options.threads))},
           {"cluster-size", static_cast<I>(cluster_for(n, lim).first)}});
  }
  sec.add(std::move(t));
  if (!run.ctx.gpu) sec.note(say("bench.model-note"));
}

std::vector<report::Section> bench_sections(Run& run) {
  const BenchGrid grid{timed_barriers(), grid_sizes(run)};
  const std::vector<int>& blocks = grid.blocks;
  const std::vector<Barrier>& barriers = grid.barriers;
  std::vector<sweep::Point> rows, columns;
  for (Barrier b : barriers) rows.push_back({barrier_key(b), barrier_key(b)});
  for (int n : blocks) columns.push_back({std::to_string(n), say("count.blocks", {{"count", n}})});
  sweep::Sweep sw("bench", say("bench.ns-per-barrier"), Format::ns, sweep::Better::lower);
  sw.rows(say("column.barrier"), rows).columns(say("bench.grid-size"), columns).baseline(barrier_key(Barrier::grid_sync));
  for (std::size_t r = 0; r < barriers.size(); ++r)
    for (std::size_t c = 0; c < blocks.size(); ++c)
      if (const std::string why = not_timed(barriers[r], blocks[c], run); !why.empty()) sw.skip(r, c, why);

  BenchDeadlines deadlines;
  sw.run(run.ctx.gpu, [&](std::size_t r, std::size_t c) {
    const Timing t = gpu_time(barriers[r], gpu_spec(run, blocks[c], kDefaultPhases), kBenchReps, kBenchK1, kBenchK2);
    if (t.deadline_hit) deadlines.hit.push_back(rows[r].title + " @ " + columns[c].title);
    return t.ns;
  });

  report::Section sec("bench", say("bench.title"));
  sw.add_to(sec, run.ctx.gpu);
  std::vector<double> floor;
  if (run.ctx.gpu) floor = gpu_floor_ns(kBenchReps, kFloorChain);
  sec.add(report::measured("floor", say("bench.floor"), Format::ns, floor, run.ctx.gpu,
                           say("bench.floor-how", {{"chain", kFloorChain}})));
  if (!floor.empty())
    sec.fact("floor", say("bench.floor-fact"), report::median(floor), Format::ns, say("bench.floor-note"));
  if (run.ctx.gpu) sec.check("no-deadline", say("bench.no-deadline"), deadlines.passed(), deadlines.detail());
  check_candidates(run, sec, grid);
  add_cost_model(run, sec, grid, sw);
  if (run.ctx.gpu && !run.limits.cooperative_launch)
    sec.note(say("bench.grid-sync-waived"));
  if (run.ctx.gpu && !run.limits.cluster_unsupported.empty())
    sec.note(say("bench.own-cluster-waived", {{"why", run.limits.cluster_unsupported}}));
  return {sec};
}

}  // namespace cudasync::lockfree_barrier
