// --bench: ns per barrier by grid size, a core/sweep over the correct barriers and own's candidates
// (rows) and 1, 2, 4 blocks per SM and full co-residency (columns), every ratio over grid.sync
// measured in the same run, beside the floor (one dependent L2 atomic round trip); the candidates
// for own checked against the model's values; the cost model (lesson.hpp), every in-kernel barrier
// predicted at every grid size from primitives measured in the same run, beside its measured
// median; and the target, own <= 0.95 x grid.sync at every size.
#include <algorithm>
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

// own and its candidates: the same arrival on the same counters.
constexpr bool is_own(Barrier b) { return b == Barrier::own || b == Barrier::own_stagger || b == Barrier::own_paced; }

// The sweep's rows and columns.
struct BenchGrid {
  std::vector<Barrier> barriers;  // rows
  std::vector<int> blocks;        // columns: grid sizes, ascending
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

BarrierShape shape_of(const Run& run, int blocks) {
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

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Who polls the word whose change ends the wait, and with what load.
cost::Need poll_need(Barrier d, const BarrierShape& s) {
  switch (d) {
    case Barrier::xf_lock:
    case Barrier::xf_lockfree: return cost::prim::poll(cost::PollKind::volatile_load, s.blocks, 1);
    case Barrier::grid_sync: return cost::prim::poll(cost::PollKind::acquire, s.blocks, 1);
    case Barrier::own_cluster: return cost::prim::poll(cost::PollKind::relaxed, ceil_div(s.blocks, s.cluster), 1);
    case Barrier::own_stagger: return cost::prim::poll(cost::PollKind::relaxed, s.blocks, s.pollers);
    default: return cost::prim::poll(cost::PollKind::relaxed, s.blocks, 1);
  }
}

int arrivals_per_word(Barrier d, const BarrierShape& s) {
  return (is_own(d) || uses_clusters(d)) && s.counters > 1 ? ceil_div(s.blocks, s.counters) : s.blocks;
}

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
    if (needs_coresidency(b))  // relaunch and graph: their time is the launch itself
      for (int n : g.blocks)
          for (cost::Need& need : barrier_needs(b, shape_of(run, n))) cost::add_need(needs, std::move(need));
  const cost::Primitives p = cost::measure(needs, run.ctx.gpu);
  std::vector<cost::Cell> cells;
  for (std::size_t r = 0; r < g.barriers.size(); ++r) {
    if (!needs_coresidency(g.barriers[r])) continue;
    for (std::size_t c = 0; c < g.blocks.size(); ++c) {
      cost::Cell cell;
      cell.row = cell.row_title = barrier_key(g.barriers[r]);
      cell.column = std::to_string(g.blocks[c]);
      cell.column_title = say("count.blocks", {{"count", g.blocks[c]}});
      cell.predicted = predict_barrier(g.barriers[r], shape_of(run, g.blocks[c]), p);
      cell.measured = sw.median(r, c);
      cells.push_back(std::move(cell));
    }
  }
  cost::add_model(sec, cells, {say("bench.ns-per-barrier"), Format::ns, cost::kTolerance}, needs, p, run.ctx.gpu);
  add_versus_grid_sync(sec, g, sw, run.ctx.gpu);
}

}  // namespace

std::vector<cost::Need> barrier_needs(Barrier d, const BarrierShape& s) {
  std::vector<cost::Need> n;
  cost::add_need(n, cost::prim::sync(s.threads));
  cost::add_need(n, cost::prim::rt_atomic());
  const bool sc = d == Barrier::xf_lock || d == Barrier::xf_lockfree;
  cost::add_need(n, cost::prim::fence_under(sc ? cost::Op::fence_sc : cost::Op::fence_rel, s.blocks));
  if (d != Barrier::xf_lockfree) cost::add_need(n, cost::prim::queue_atomic(arrivals_per_word(d, s)));
  cost::add_need(n, poll_need(d, s));
  if (is_own(d) || uses_clusters(d)) cost::add_need(n, cost::prim::fence_acquire());
  if (d == Barrier::grid_sync || d == Barrier::xf_lockfree) cost::add_need(n, cost::prim::rt_load());
  if (d == Barrier::own_cluster) cost::add_need(n, cost::prim::cluster_barrier(s.blocks, s.cluster, s.threads));
  return n;
}

cost::Prediction predict_barrier(Barrier d, const BarrierShape& s, const cost::Primitives& p) {
  cost::Prediction out;
  const cost::Need sync = cost::prim::sync(s.threads), rt = cost::prim::rt_atomic();
  const cost::Need poll = poll_need(d, s);
  const std::string T = std::to_string(s.threads);
  const double rt_atomic = p.ns(rt.key);
  // The queue: how much longer the last of the arrivals to one word waits than one atomic alone.
  const auto add_queue = [&] {
    const cost::Need q = cost::prim::queue_atomic(arrivals_per_word(d, s));
    out.add("queue", say("cost.queue"), cost::excess(p.ns(q.key) - rt_atomic),
            "max(0, queue-atomic(" + q.key.at + ") - rt-atomic)");
  };
  switch (d) {
    case Barrier::xf_lock: {
      const cost::Need f = cost::prim::fence_under(cost::Op::fence_sc, s.blocks);
      out.add("sync", say("cost.sync"), 2 * p.ns(sync.key), "2 x sync(" + T + ")");
      out.add("fence", say("cost.fences"), 2 * p.ns(f.key), "2 x fence-sc(" + f.key.at + "): before the atomicAdd and after the spin");
      add_queue();
      out.add("poll", say("cost.poll"), p.ns(poll.key), "poll-volatile(" + poll.key.at + ")");
      break;
    }
    case Barrier::xf_lockfree: {
      const cost::Need f = cost::prim::fence_under(cost::Op::fence_sc, s.blocks), l = cost::prim::rt_load();
      out.add("sync", say("cost.sync"), 4 * p.ns(sync.key),
              "4 x sync(" + T + "): the arrival, the master's two votes, the release");
      out.add("fence", say("cost.fences"), 3 * p.ns(f.key),
              "3 x fence-sc(" + f.key.at + "): the arrival, the master's release, the acquire");
      out.add("poll", say("cost.poll-two-hops"), 2 * p.ns(poll.key),
              "2 x poll-volatile(" + poll.key.at + ")");
      const int extra = ceil_div(s.blocks, s.threads) - 1;
      out.add("scan", say("cost.scan"), extra * p.ns(l.key),
              std::to_string(extra) + " x rt-load (slots per master thread - 1)");
      break;
    }
    case Barrier::grid_sync: {
      const cost::Need f = cost::prim::fence_under(cost::Op::fence_rel, s.blocks), l = cost::prim::rt_load();
      out.add("sync", say("cost.sync"), 2 * p.ns(sync.key), "2 x sync(" + T + ")");
      out.add("fence", say("cost.release-fence"), p.ns(f.key), "fence-rel(" + f.key.at + "): atom.add.release");
      add_queue();
      out.add("poll", say("cost.poll"),
              cost::nan_max(p.ns(poll.key), rt_atomic + p.ns(l.key)),
              "max(poll-acquire(" + poll.key.at + "), rt-atomic + rt-load): the others poll, the last waits "
              "for its atom, then polls once");
      break;
    }
    case Barrier::own:
    case Barrier::own_stagger:
    case Barrier::own_paced:
    case Barrier::own_cluster: {
      const cost::Need f = cost::prim::fence_under(cost::Op::fence_rel, s.blocks), a = cost::prim::fence_acquire();
      const bool cluster = d == Barrier::own_cluster;
      out.add("sync", say("cost.sync"), (cluster ? 1 : 2) * p.ns(sync.key),
              (cluster ? "1 x sync(" : "2 x sync(") + T + ")");
      out.add("fence", say("cost.release-fence"), p.ns(f.key), "fence-rel(" + f.key.at + "): red.release");
      add_queue();
      out.add("poll", say("cost.poll"), p.ns(poll.key), "poll-relaxed(" + poll.key.at + ")");
      out.add("acquire", say("cost.acquire"), p.ns(a.key), "fence-acquire");
      if (cluster) {
        const cost::Need c = cost::prim::cluster_barrier(s.blocks, s.cluster, s.threads);
        out.add("cluster", say("cost.cluster"), p.ns(c.key), "cluster-barrier(" + c.key.at + ")");
      }
      break;
    }
    default: break;  // relaunch, graph and the transcription's barriers: not modelled
  }
  return out;
}

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
