// --bench's cost model (core/cost/barrier_model.hpp): every in-kernel barrier predicted at every grid
// size from primitives measured in the same run, beside its measured median; the candidates for
// own checked against the model's values; and the target, own <= 0.95 x grid.sync at every size.
#include <optional>

#include "core/cost/barrier_model.hpp"
#include "core/cost/compare.hpp"
#include "core/cost/cost_gpu.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_bench.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_gpu.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_judge.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using report::Format;
using report::Value;

constexpr double kClearlyFaster = 0.95;  // 5 % faster: beyond the few per cent two runs of one barrier differ by
constexpr int kCheckPhases = 8;        // the candidates' data check

std::optional<cost::BarrierDesign> design_of(Barrier b) {
  switch (b) {
    case Barrier::xf_lock: return cost::BarrierDesign::xf_lock;
    case Barrier::xf_lockfree: return cost::BarrierDesign::xf_lockfree;
    case Barrier::grid_sync: return cost::BarrierDesign::grid_sync;
    case Barrier::own: return cost::BarrierDesign::own;
    case Barrier::own_cluster: return cost::BarrierDesign::own_cluster;
    case Barrier::own_stagger: return cost::BarrierDesign::own_stagger;
    case Barrier::own_paced: return cost::BarrierDesign::own_paced;
    default: return std::nullopt;  // relaunch and graph: their time is the launch itself
  }
}

cost::BarrierShape shape_of(const Run& run, int blocks) {
  const GpuSpec g = gpu_spec(run, blocks, kDefaultPhases);
  return {blocks, g.threads, g.own_counters, g.cluster_size, g.own_pollers};
}

Value ratio_or(std::optional<double> r, bool gpu) {
  return r ? Value{*r} : gpu ? Value{report::Undefined{}} : Value{report::NeedsGpu{}};
}

// own and its candidates against grid.sync at every size: is a hand-made barrier clearly faster?
void add_versus_grid_sync(report::Section& sec, const BenchGrid& g, const sweep::Sweep& sw, bool gpu) {
  std::optional<std::size_t> base;
  std::vector<std::size_t> owns;
  for (std::size_t r = 0; r < g.barriers.size(); ++r) {
    if (g.barriers[r] == Barrier::grid_sync) base = r;
    if (is_own(g.barriers[r])) owns.push_back(r);
  }
  if (!base || owns.empty()) return;
  report::Table t("own-vs-grid-sync", say("cost.versus-title", {{"ratio", report::fixed(kClearlyFaster, 2)}}));
  t.column("blocks", say("column.blocks"), Format::count)
      .column("grid-sync", say("cost.grid-sync-median"), Format::ns)
      .column("own", "own x grid.sync", Format::ratio)
      .column("best", say("cost.best-own"))
      .column("best-ratio", "x grid.sync", Format::ratio)
      .column("clearly-faster", say("cost.clearly-faster"));
  bool own_met = true, best_met = true;
  for (std::size_t c = 0; c < g.blocks.size(); ++c) {
    const auto own = sw.ratio(owns.front(), c);
    std::optional<std::size_t> best;
    for (std::size_t r : owns)
      if (const auto q = sw.ratio(r, c); q && (!best || *q < *sw.ratio(*best, c))) best = r;
    const auto best_ratio = best ? sw.ratio(*best, c) : std::nullopt;
    own_met = own_met && own && *own <= kClearlyFaster;
    best_met = best_met && best_ratio && *best_ratio <= kClearlyFaster;
    t.row({{"blocks", static_cast<std::int64_t>(g.blocks[c])},
           {"grid-sync", sw.median(*base, c) ? Value{*sw.median(*base, c)} : ratio_or(std::nullopt, gpu)},
           {"own", ratio_or(own, gpu)},
           {"best", best ? Value{std::string(barrier_key(g.barriers[*best]))} : ratio_or(std::nullopt, gpu)},
           {"best-ratio", ratio_or(best_ratio, gpu)},
           {"clearly-faster", best_ratio ? Value{*best_ratio <= kClearlyFaster} : ratio_or(std::nullopt, gpu)}});
  }
  sec.add(std::move(t));
  sec.fact("own-clearly-faster", say("cost.own-clearly-faster"), gpu ? Value{own_met} : Value{report::NeedsGpu{}});
  sec.fact("best-own-clearly-faster", say("cost.best-clearly-faster"), gpu ? Value{best_met} : Value{report::NeedsGpu{}});
}

}  // namespace

void check_candidates(Run& run, report::Section& sec, const BenchGrid& g) {
  if (!run.ctx.gpu) return;
  std::string bad;
  int checked = 0;
  for (Barrier b : kOwnCandidates)
    for (int n : g.blocks) {
      if (n > run.limits.candidates.limit()) continue;
      const auto x0 = initial_values(n, run.options.threads, run.ctx.seed);
      const GpuRun r = gpu_run(b, gpu_spec(run, n, kCheckPhases), x0);
      const ValuesVerdict v = judge_values(r.values, model_values(n, run.options.threads, kCheckPhases, run.ctx.seed));
      ++checked;
      if ((!v.passed() || r.deadline_hit) && bad.empty())
        bad = say("cost.candidate-failed",
                  {{"barrier", barrier_key(b)},
                   {"blocks", n},
                   {"why", r.deadline_hit ? say("gpu.spin-deadline") : v.detail(run.options.threads)}});
    }
  sec.check("candidates-agree", say("cost.candidates-agree"), bad.empty(),
            bad.empty() ? say("cost.candidates-detail", {{"runs", checked}, {"phases", kCheckPhases}}) : bad);
}

void add_cost_model(Run& run, report::Section& sec, const BenchGrid& g, const sweep::Sweep& sw) {
  std::vector<cost::Need> needs;
  for (Barrier b : g.barriers)
    if (const auto d = design_of(b))
      for (int n : g.blocks)
        for (cost::Need& need : cost::barrier_needs(*d, shape_of(run, n))) cost::add_need(needs, std::move(need));
  const cost::Primitives p = cost::measure(needs, run.ctx.gpu);
  std::vector<cost::Cell> cells;
  for (std::size_t r = 0; r < g.barriers.size(); ++r) {
    const auto d = design_of(g.barriers[r]);
    if (!d) continue;
    for (std::size_t c = 0; c < g.blocks.size(); ++c) {
      cost::Cell cell;
      cell.row = cell.row_title = barrier_key(g.barriers[r]);
      cell.column = std::to_string(g.blocks[c]);
      cell.column_title = say("count.blocks", {{"count", g.blocks[c]}});
      cell.predicted = cost::predict_barrier(*d, shape_of(run, g.blocks[c]), p);
      cell.measured = sw.median(r, c);
      cells.push_back(std::move(cell));
    }
  }
  cost::add_model(sec, cells, {say("bench.ns-per-barrier"), Format::ns, cost::kTolerance}, needs, p, run.ctx.gpu);
  add_versus_grid_sync(sec, g, sw, run.ctx.gpu);
}

}  // namespace cudasync::lockfree_barrier
