// --bench: ns per barrier by grid size, a core/sweep over the correct barriers and own's candidates
// (rows) and 1, 2, 4 blocks per SM and full co-residency (columns), every ratio over grid.sync
// measured in the same run, beside the floor (one dependent L2 atomic round trip); the candidates
// for own checked against the model's values; the cost model (lesson.hpp), every in-kernel barrier
// predicted at every grid size from primitives measured in the same run, beside its measured
// median; and the target, own <= 0.95 x grid.sync at every size.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "core/cost/compare.hpp"
#include "core/cost/cost_gpu.hpp"
#include "core/cost/primitive_keys.hpp"
#include "core/report/text_format.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {

using I = std::int64_t;
using report::Format;
using report::Value;

namespace {

// own and the candidates that share its arrival on the same counters.
// The bench's candidates for cudasync's own barrier (not parts of the lesson).
constexpr bool is_candidate(Barrier b) {
  return b == Barrier::own_stagger || b == Barrier::own_paced || b == Barrier::own_tree || b == Barrier::own_ticket;
}

// The sweep's rows and columns.
struct BenchGrid {
  std::vector<Barrier> barriers;  // rows
  std::vector<int> blocks;        // columns: grid sizes, ascending
  std::vector<int> arity;         // per column: own-tree's arity, the cost model's choice
};

constexpr int kBenchReps = 21, kBenchK1 = 200, kBenchK2 = 1200;
constexpr int kFloorChain = 2000;
constexpr double kClearlyFaster = 0.95;  // 5 % faster: beyond the few per cent two runs of one barrier differ by
constexpr int kCheckPhases = 8;          // the candidates' data check

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

// What the bench's candidate b may hold at once: own-tree's and own-ticket's kernels fit more blocks
// than the others'.
const Coresidency& candidate_limit(Barrier b, const Limits& lim) {
  return b == Barrier::own_tree || b == Barrier::own_ticket ? lim.lean : lim.candidates;
}

// Why barrier b is not timed at a grid of n blocks on this GPU, or "" when it is.
std::string not_timed(Barrier b, int n, const Run& run) {
  const Limits& lim = run.limits;
  if (!run.ctx.gpu) return "";
  if (b == Barrier::grid_sync && !lim.cooperative_launch) return say("bench.waived-no-cooperative");
  if (is_candidate(b) && n > candidate_limit(b, lim).limit())
    return say("bench.candidate-does-not-fit", {{"blocks", n}, {"residency", candidate_limit(b, lim).text()}});
  if (!uses_clusters(b)) return "";
  if (!lim.cluster_unsupported.empty()) return say("bench.waived-because", {{"why", lim.cluster_unsupported}});
  const Coresidency c = cluster_for(n, lim).second;
  if (n > c.limit()) return say("bench.clusters-do-not-fit", {{"blocks", n}, {"residency", c.text()}});
  return "";
}

BarrierShape shape_of(const Run& run, int blocks, int arity = kDefaultTreeArity) {
  const GpuSpec g = gpu_spec(run, blocks, kDefaultPhases);
  return {blocks, g.threads, g.own_counters, g.cluster_size, g.own_pollers, arity};
}

// The spec of a timed run at column c: own-tree with the arity the model chose there.
GpuSpec spec_at(const Run& run, const BenchGrid& g, std::size_t c, int phases) {
  GpuSpec s = gpu_spec(run, g.blocks[c], phases);
  s.tree_arity = g.arity[c];
  return s;
}

// A number, or why there is none: a GPU could not measure it, or this run had no GPU.
Value or_missing(std::optional<double> r, bool gpu) {
  return r ? Value{*r} : gpu ? Value{report::Undefined{}} : Value{report::NeedsGpu{}};
}

// A barrier's median at column c of the sweep, or of the barriers timed apart (own-tree, own-ticket).
using MedianOf = std::function<std::optional<double>(Barrier, std::size_t)>;

// own and its candidates against grid.sync at every size: is a hand-made barrier clearly faster?
// Beside the measured ratio, the model's: own's prediction over grid.sync's, the bound its terms
// leave (both pay the same syncs; only the arrival and the poll differ).
void add_versus_grid_sync(report::Section& sec, const BenchGrid& g, const std::vector<Barrier>& owns,
                          const MedianOf& median, const std::function<double(Barrier, std::size_t)>& predicted,
                          bool gpu) {
  report::Table t("own-vs-grid-sync", say("cost.versus-title", {{"ratio", report::fixed(kClearlyFaster, 2)}}));
  t.column("blocks", say("column.blocks"), Format::count)
      .column("grid-sync", say("cost.grid-sync-median"), Format::ns)
      .column("own", "own x grid.sync", Format::ratio)
      .column("own-predicted", say("cost.own-predicted"), Format::ratio)
      .column("best", say("cost.best-own"))
      .column("best-ratio", "x grid.sync", Format::ratio)
      .column("clearly-faster", say("cost.clearly-faster"));
  bool own_met = true, best_met = true;
  for (std::size_t c = 0; c < g.blocks.size(); ++c) {
    const auto base = median(Barrier::grid_sync, c);
    const auto ratio = [&](Barrier b) -> std::optional<double> {
      const auto m = median(b, c);
      return m && base && *base > 0 ? std::optional<double>(*m / *base) : std::nullopt;
    };
    const auto own = ratio(Barrier::own);
    std::optional<Barrier> best;
    for (Barrier b : owns)
      if (const auto q = ratio(b); q && (!best || *q < *ratio(*best))) best = b;
    const auto best_ratio = best ? ratio(*best) : std::nullopt;
    const double own_ns = predicted(Barrier::own, c), base_ns = predicted(Barrier::grid_sync, c);
    const auto own_predicted =
        std::isnan(own_ns) || std::isnan(base_ns) ? std::nullopt : std::optional<double>(own_ns / base_ns);
    own_met = own_met && own && *own <= kClearlyFaster;
    best_met = best_met && best_ratio && *best_ratio <= kClearlyFaster;
    t.row({{"blocks", static_cast<std::int64_t>(g.blocks[c])},
           {"grid-sync", or_missing(base, gpu)},
           {"own", or_missing(own, gpu)},
           {"own-predicted", or_missing(own_predicted, gpu)},
           {"best", best ? Value{std::string(barrier_key(*best))} : or_missing(std::nullopt, gpu)},
           {"best-ratio", or_missing(best_ratio, gpu)},
           {"clearly-faster", best_ratio ? Value{*best_ratio <= kClearlyFaster} : or_missing(std::nullopt, gpu)}});
  }
  sec.add(std::move(t));
  sec.fact("own-clearly-faster", say("cost.own-clearly-faster"), gpu ? Value{own_met} : Value{report::NeedsGpu{}});
  sec.fact("best-own-clearly-faster", say("cost.best-clearly-faster"), gpu ? Value{best_met} : Value{report::NeedsGpu{}});
}

void check_candidates(Run& run, report::Section& sec, const BenchGrid& g) {
  if (!run.ctx.gpu) return;
  std::string bad;
  int checked = 0;
  for (Barrier b : {Barrier::own_stagger, Barrier::own_paced, Barrier::own_tree, Barrier::own_ticket})
    for (std::size_t c = 0; c < g.blocks.size(); ++c) {
      const int n = g.blocks[c];
      if (n > candidate_limit(b, run.limits).limit()) continue;
      const auto x0 = initial_values(n, run.options.threads, run.ctx.seed);
      const GpuRun r = gpu_run(b, spec_at(run, g, c, kCheckPhases), x0);
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

// The barriers the cost model predicts: the sweep's in-kernel barriers (relaunch and graph: their
// time is the launch itself), then the two timed apart, own-tree and own-ticket.
std::vector<Barrier> modelled_barriers(const BenchGrid& g) {
  std::vector<Barrier> v;
  for (Barrier b : g.barriers)
    if (needs_coresidency(b)) v.push_back(b);
  v.push_back(Barrier::own_tree);
  v.push_back(Barrier::own_ticket);
  return v;
}

// Every primitive the bench's predictions read: each modelled barrier at every grid size, own-tree
// at every arity it may choose.
std::vector<cost::Need> bench_needs(const Run& run, const BenchGrid& g) {
  std::vector<cost::Need> needs;
  for (Barrier b : modelled_barriers(g))
    for (int n : g.blocks)
      for (int arity : b == Barrier::own_tree ? std::vector<int>(std::begin(kTreeArities), std::end(kTreeArities))
                                              : std::vector<int>{kDefaultTreeArity})
        for (cost::Need& need : barrier_needs(b, shape_of(run, n, arity))) cost::add_need(needs, std::move(need));
  return needs;
}

// own-tree, the combining tree, timed apart from the sweep at the arity the model chose at each
// grid size, beside own and grid.sync of the sweep: its prediction, its measurement, and where a
// tree pays (the first grid size at which it beats own), predicted and measured; then the model's
// ns for every arity, from which it chose.
// The samples of a barrier timed apart from the sweep (own-tree, own-ticket) at each of its grid
// sizes (none where it is not timed, or on the model), and their measurements ("<id>-<blocks>").
std::vector<std::vector<double>> time_apart(const Run& run, report::Section& sec, const BenchGrid& g, Barrier b,
                                            const char* id, const std::function<std::string(std::size_t)>& title) {
  std::vector<std::vector<double>> samples(g.blocks.size());
  for (std::size_t c = 0; c < g.blocks.size(); ++c) {
    const int n = g.blocks[c];
    const std::string why = not_timed(b, n, run);
    if (run.ctx.gpu && why.empty())
      samples[c] = gpu_time(b, spec_at(run, g, c, kDefaultPhases), kBenchReps, kBenchK1, kBenchK2).ns;
    sec.add(report::measured(std::string(id) + "-" + std::to_string(n), title(c), Format::ns, samples[c], run.ctx.gpu, why));
  }
  return samples;
}

std::optional<double> median_of(const std::vector<double>& samples) {
  return samples.empty() ? std::nullopt : std::optional<double>(report::median(samples));
}

void add_tree(Run& run, report::Section& sec, const BenchGrid& g, const cost::Primitives& p, const MedianOf& median) {
  const bool gpu = run.ctx.gpu;
  const auto predicted = [&](Barrier b, std::size_t c) -> std::optional<double> {
    const double ns = predict_barrier(b, shape_of(run, g.blocks[c], g.arity[c]), p).ns();
    return std::isnan(ns) ? std::nullopt : std::optional<double>(ns);
  };
  report::Table t("tree", say("tree.title"));
  t.column("blocks", say("column.blocks"), Format::count)
      .column("arity", say("tree.arity"), Format::count)
      .column("levels", say("tree.levels"), Format::count)
      .column("predicted", say("tree.predicted"), Format::ns)
      .column("measured", say("tree.measured"), Format::ns)
      .column("own", say("tree.own"), Format::ns)
      .column("vs-grid-sync", "x grid.sync", Format::ratio);
  for (std::size_t c = 0; c < g.blocks.size(); ++c) {
    const int n = g.blocks[c];
    const auto tree = median(Barrier::own_tree, c), base = median(Barrier::grid_sync, c);
    t.row({{"blocks", static_cast<I>(n)},
           {"arity", static_cast<I>(g.arity[c])},
           {"levels", static_cast<I>(tree_levels(n, g.arity[c]))},
           {"predicted", or_missing(predicted(Barrier::own_tree, c), gpu)},
           {"measured", or_missing(tree, gpu)},
           {"own", or_missing(median(Barrier::own, c), gpu)},
           {"vs-grid-sync", or_missing(tree && base ? std::optional<double>(*tree / *base) : std::nullopt, gpu)}});
  }
  t.legend.push_back(say("tree.legend"));
  // Its terms at the largest grid, each with what it reads (the table model-formulas does the same
  // for the sweep's barriers).
  const std::size_t last = g.blocks.size() - 1;
  const std::string terms =
      predict_barrier(Barrier::own_tree, shape_of(run, g.blocks[last], g.arity[last]), p).terms_text();
  t.legend.push_back(say("tree.formula", {{"blocks", g.blocks[last]}, {"formula", terms}}));
  sec.add(std::move(t));
  // Where a tree pays: the first grid size at which own-tree is faster than own.
  // "never" names the largest grid size at which both were there to compare.
  const auto pays_at = [&](const std::function<std::optional<double>(bool, std::size_t)>& ns) -> Value {
    std::optional<int> compared;
    for (std::size_t c = 0; c < g.blocks.size(); ++c) {
      const auto own = ns(false, c), tree = ns(true, c);
      if (!own || !tree) continue;
      compared = g.blocks[c];
      if (*tree < *own) return Value{static_cast<I>(g.blocks[c])};
    }
    return compared ? Value{say("tree.never", {{"blocks", *compared}})} : Value{report::NeedsGpu{}};
  };
  sec.fact("tree-pays-predicted", say("tree.pays-predicted"),
           pays_at([&](bool tree, std::size_t c) { return predicted(tree ? Barrier::own_tree : Barrier::own, c); }),
           Format::count, say("tree.pays-note"));
  sec.fact("tree-pays-measured", say("tree.pays-measured"),
           gpu ? pays_at([&](bool tree, std::size_t c) { return median(tree ? Barrier::own_tree : Barrier::own, c); })
               : Value{report::NeedsGpu{}},
           Format::count);
  // The model's choice: its ns for every arity at every grid size.
  report::Table a("tree-arity", say("tree.arity-title"));
  a.column("blocks", say("column.blocks"), Format::count)
      .column("arity", say("tree.arity"), Format::count)
      .column("levels", say("tree.levels"), Format::count)
      .column("predicted", say("tree.predicted"), Format::ns)
      .column("chosen", say("tree.chosen"));
  for (std::size_t c = 0; c < g.blocks.size(); ++c)
    for (int arity : kTreeArities) {
      const double ns = predict_barrier(Barrier::own_tree, shape_of(run, g.blocks[c], arity), p).ns();
      a.row({{"blocks", static_cast<I>(g.blocks[c])},
             {"arity", static_cast<I>(arity)},
             {"levels", static_cast<I>(tree_levels(g.blocks[c], arity))},
             {"predicted", std::isnan(ns) ? Value{report::NeedsGpu{}} : Value{ns}},
             {"chosen", Value{arity == g.arity[c]}}});
    }
  a.legend.push_back(say("tree.arity-legend"));
  sec.add(std::move(a));
}

void add_cost_model(Run& run, report::Section& sec, const BenchGrid& g, const sweep::Sweep& sw,
                    const std::vector<cost::Need>& needs, const cost::Primitives& p) {
  // Every in-kernel barrier of the sweep, then the two timed apart: own-tree at the arity the model
  // chose, and own-ticket.
  const auto tree_samples = time_apart(run, sec, g, Barrier::own_tree, "tree", [&](std::size_t c) {
    return say("tree.measurement", {{"blocks", g.blocks[c]}, {"arity", g.arity[c]}});
  });
  const auto ticket_samples = time_apart(run, sec, g, Barrier::own_ticket, "ticket", [&](std::size_t c) {
    return say("ticket.measurement", {{"blocks", g.blocks[c]}});
  });
  const MedianOf median = [&](Barrier b, std::size_t c) -> std::optional<double> {
    if (b == Barrier::own_tree) return median_of(tree_samples[c]);
    if (b == Barrier::own_ticket) return median_of(ticket_samples[c]);
    for (std::size_t r = 0; r < g.barriers.size(); ++r)
      if (g.barriers[r] == b) return sw.median(r, c);
    return std::nullopt;
  };
  std::vector<cost::Cell> cells;
  std::vector<Barrier> owns;
  for (Barrier b : modelled_barriers(g)) {
    if (b == Barrier::own || is_candidate(b)) owns.push_back(b);
    for (std::size_t c = 0; c < g.blocks.size(); ++c) {
      cost::Cell cell;
      cell.row = cell.row_title = barrier_key(b);
      cell.column = std::to_string(g.blocks[c]);
      cell.column_title = say("count.blocks", {{"count", g.blocks[c]}});
      cell.predicted = predict_barrier(b, shape_of(run, g.blocks[c], g.arity[c]), p);
      cell.measured = median(b, c);
      cells.push_back(std::move(cell));
    }
  }
  cost::add_model(sec, cells, {say("bench.ns-per-barrier"), Format::ns, cost::kTolerance}, needs, p, run.ctx.gpu);
  add_versus_grid_sync(sec, g, owns, median, [&](Barrier b, std::size_t c) {
    return predict_barrier(b, shape_of(run, g.blocks[c], g.arity[c]), p).ns();
  }, run.ctx.gpu);
  add_tree(run, sec, g, p, median);
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
  BenchGrid grid{timed_barriers(), grid_sizes(run), {}};
  // The primitives first: own-tree runs with the arity the model predicts fastest at each size.
  const std::vector<cost::Need> needs = bench_needs(run, grid);
  const cost::Primitives primitives = cost::measure(needs, run.ctx.gpu);
  for (int n : grid.blocks) grid.arity.push_back(tree_arity_for(shape_of(run, n), primitives));
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
    const Timing t = gpu_time(barriers[r], spec_at(run, grid, c, kDefaultPhases), kBenchReps, kBenchK1, kBenchK2);
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
  add_cost_model(run, sec, grid, sw, needs, primitives);
  if (run.ctx.gpu && !run.limits.cooperative_launch)
    sec.note(say("bench.grid-sync-waived"));
  if (run.ctx.gpu && !run.limits.cluster_unsupported.empty())
    sec.note(say("bench.own-cluster-waived", {{"why", run.limits.cluster_unsupported}}));
  return {sec};
}

}  // namespace cudasync::lockfree_barrier
