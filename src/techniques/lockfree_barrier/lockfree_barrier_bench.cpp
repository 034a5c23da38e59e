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
  if (b == Barrier::grid_sync && !lim.cooperative_launch) return "waived: no cooperative launch on this GPU";
  if (is_own(b) && b != Barrier::own && n > lim.candidates.limit())
    return "not timed: " + std::to_string(n) + " blocks of the candidate's kernels do not fit at once (" +
           lim.candidates.text() + ")";
  if (!uses_clusters(b)) return "";
  if (!lim.cluster_unsupported.empty()) return "waived: " + lim.cluster_unsupported;
  const Coresidency c = cluster_for(n, lim).second;
  if (n > c.limit())
    return "not timed: " + std::to_string(n) + " blocks do not fit at once in clusters (" + c.text() + ")";
  return "";
}

}  // namespace

void bench_setup(Run& run, report::Section& sec) {
  const Limits& lim = run.limits;
  sec.title = "setup: bench sweep";
  sec.paragraph(
      "ns per barrier, measured as a difference: a kernel that does nothing but barriers runs with k1 = " +
      std::to_string(kBenchK1) + " and with k2 = " + std::to_string(kBenchK2) +
      " barriers, and (t2 - t1) / (k2 - k1) leaves the launch out. Relaunch: k1 empty launches of the same grid "
      "back to back, time / k1; graph: one replay of a graph of k1 such launches, time / k1. Each figure is the "
      "median of " + std::to_string(kBenchReps) + " samples, and every ratio divides by grid.sync's median at the "
      "same grid size, measured in the same run. own-stagger and own-paced are candidates for own, timed beside "
      "it and checked against the model's values; the cost model predicts every barrier inside a kernel from "
      "primitives measured in the same run (tables model, terms-<row>, primitives).");
  sec.fact("threads", "threads per block (--threads)", static_cast<I>(run.options.threads), Format::count);
  sec.fact("resident-software", "resident at once, software barriers", static_cast<I>(lim.software.limit()),
           Format::count, per_sm_text(lim.software));
  sec.fact("resident-grid-sync", "resident at once, grid.sync kernel", static_cast<I>(lim.cooperative.limit()),
           Format::count, per_sm_text(lim.cooperative));
  const bool waived = run.ctx.gpu && !lim.cluster_unsupported.empty();
  sec.fact("own-cluster", "own-cluster", std::string(waived ? "waived" : "sm_90"), Format::plain,
           waived ? lim.cluster_unsupported
                  : "each grid in the largest of clusters of 8, 4, 2, 1 blocks that divides it and fits at once "
                    "(cudaOccupancyMaxActiveClusters)");
  report::Table t("grid-sizes", "the grid sizes: 1, 2, 4 blocks per SM and full co-residency");
  t.column("blocks", "blocks", Format::count)
      .column("per-sm", "blocks per SM", Format::plain)
      .column("own-counters", "own: counters (C)", Format::count)
      .column("own-pollers", "own-stagger: pollers (K)", Format::count)
      .column("cluster-size", "own-cluster: blocks per cluster", Format::count);
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
  if (!run.ctx.gpu) sec.note("without a GPU every figure of the sweep says 'needs a GPU'");
}

std::vector<report::Section> bench_sections(Run& run) {
  const BenchGrid grid{timed_barriers(), grid_sizes(run)};
  const std::vector<int>& blocks = grid.blocks;
  const std::vector<Barrier>& barriers = grid.barriers;
  std::vector<sweep::Point> rows, columns;
  for (Barrier b : barriers) rows.push_back({barrier_key(b), barrier_key(b)});
  for (int n : blocks) columns.push_back({std::to_string(n), std::to_string(n) + " blocks"});
  sweep::Sweep sw("bench", "ns per barrier", Format::ns, sweep::Better::lower);
  sw.rows("barrier", rows).columns("grid size", columns).baseline(barrier_key(Barrier::grid_sync));
  for (std::size_t r = 0; r < barriers.size(); ++r)
    for (std::size_t c = 0; c < blocks.size(); ++c)
      if (const std::string why = not_timed(barriers[r], blocks[c], run); !why.empty()) sw.skip(r, c, why);

  BenchDeadlines deadlines;
  sw.run(run.ctx.gpu, [&](std::size_t r, std::size_t c) {
    const Timing t = gpu_time(barriers[r], gpu_spec(run, blocks[c], kDefaultPhases), kBenchReps, kBenchK1, kBenchK2);
    if (t.deadline_hit) deadlines.hit.push_back(rows[r].title + " @ " + columns[c].title);
    return t.ns;
  });

  report::Section sec("bench", "bench: ns per barrier by grid size");
  sw.add_to(sec, run.ctx.gpu);
  std::vector<double> floor;
  if (run.ctx.gpu) floor = gpu_floor_ns(kBenchReps, kFloorChain);
  sec.add(report::measured("floor", "floor: one dependent L2 atomic round trip", Format::ns, floor, run.ctx.gpu,
                           "one thread, atomicAdd whose address depends on the previous result, " +
                               std::to_string(kFloorChain) + " in a chain"));
  if (!floor.empty())
    sec.fact("floor", "floor", report::median(floor), Format::ns,
             "no barrier can be cheaper than one round trip to the L2: an arrival must travel there and the news of "
             "the last one must travel back");
  if (run.ctx.gpu) sec.check("no-deadline", "no bench kernel reached its deadline", deadlines.passed(), deadlines.detail());
  check_candidates(run, sec, grid);
  add_cost_model(run, sec, grid, sw);
  if (run.ctx.gpu && !run.limits.cooperative_launch)
    sec.note("grid-sync waived: this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0): "
             "no ratio to grid.sync");
  if (run.ctx.gpu && !run.limits.cluster_unsupported.empty())
    sec.note("own-cluster waived: " + run.limits.cluster_unsupported);
  return {sec};
}

}  // namespace cudasync::lockfree_barrier
