// --bench: every lock at contention levels from one thread to 132 blocks of 128, ns per update, with
// the CAS lock (the blog's fixed class) as the baseline of every ratio; the model's verdict on each
// lock in one lockstep warp; and the cost model: every lock at every contention level predicted from
// primitives measured in the same run (its handoff measured whole, the parts of its protocol and
// its critical section under that lock's own waiters), beside its median.
#include <algorithm>
#include <optional>

#include "core/cost/compare.hpp"
#include "core/cost/cost_gpu.hpp"
#include "core/cost/formula.hpp"
#include "core/cost/primitive_keys.hpp"
#include "core/report/text_format.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/lock/lesson.hpp"

namespace cudasync::lock {

namespace {

using cost::FormulaTerm;
using cost::scaled;
using cost::Need;

// What the lock's protocol does, as the primitives its parts read.
struct Recipe {
  bool fetch = false;      // ticket, alone: the fetch_add of its ticket is on the path
  bool detect = false;     // waiters poll with loads; the release must be seen first
  bool take = true;        // a compare-and-swap takes the lock
  cost::Op fence_after = cost::Op::fence_acquire;  // fence_sc (the CAS lock) or fence_acquire
  bool acquire = true;     // anything after taking (the book's lock has nothing)
  int scan = 0;            // combining: L2 loads of the protocol itself (the slots, the handoff count, a waiter's polls)
  bool serve = false;      // combining: a store per request served
  cost::Op release = cost::Op::store_release;  // store_release or store_fence_sc
  bool releases = true;    // the book's atomicExch waits for nothing
  bool section_from_l2 = true;  // the book's section reads its SM's L1 (stale) and waits for nothing
  int lanes = 1;           // updates one handoff carries (the divisor)
};

int padded_slots(int w) { return (w + 3) / 4 * 4; }

Recipe recipe(LockDesign d, int blocks, int threads) {
  Recipe r;
  const int w = blocks * threads;
  switch (d) {
    case LockDesign::book: r.acquire = false, r.releases = false, r.section_from_l2 = false; break;
    case LockDesign::fenced: r.fence_after = cost::Op::fence_sc, r.release = cost::Op::store_fence_sc; break;
    case LockDesign::acq_rel:
    case LockDesign::backoff: break;
    case LockDesign::ttas:
    case LockDesign::ttas_same_line: r.detect = true; break;
    case LockDesign::ticket: r.fetch = w == 1, r.detect = true, r.take = false, r.acquire = false; break;
    case LockDesign::warp_aggregated: r.lanes = std::min(threads, 32); break;
    case LockDesign::combining:
      // The handoff count read under the lock, the slots 32 at a time (8 vector loads in flight:
      // one round trip per 32), and between two passes a waiter's three polls: its answer, its
      // next request still pending, the lock word free, before its compare-and-swap.
      r.scan = 1 + (padded_slots(w) + 31) / 32 + 3;
      r.serve = true;
      r.lanes = w;
      break;
  }
  return r;
}

int bench_iters(int blocks, int threads) {
  return static_cast<int>(std::max<long long>(1, kBenchUpdates / (static_cast<long long>(blocks) * threads)));
}

constexpr int kBenchReps = 9;  // per lock and contention level

// The lock's protocol measured whole: its kernel with nothing between taking and releasing, at
// the bench's grid and iterations, on the words of the bench's own launch just before it (the
// bench measures it: Probe::lock_handoff, RunSpec::handoff_too).
Need handoff(LockDesign d, int blocks, int threads) {
  cost::ProbeSpec s;
  s.probe = cost::Probe::lock_handoff;
  s.blocks = blocks;
  s.threads = threads;
  return {{std::string("handoff-") + bench_id(variant_of(d)), cost::at_grid(blocks, threads)}, say("cost.handoff-need"),
          s};
}

// A lock's terms: the parts of its protocol measured apart under its own waiters, the contention
// (the protocol measured whole, beyond those parts), and its critical section, each divided among
// the updates one handoff carries. The parts and the contention add up to the handoff.
std::vector<FormulaTerm> lock_terms(LockDesign d, int blocks, int threads) {
  const Recipe r = recipe(d, blocks, threads);
  const cost::Background bg = lock_background(d, blocks, threads);
  const double per = 1.0 / r.lanes;
  const std::string div = r.lanes > 1 ? " / " + std::to_string(r.lanes) : "";
  const auto under = [&](cost::Op op) { return cost::prim::under(op, bg, blocks, threads); };
  std::vector<FormulaTerm> parts;
  if (r.fetch) parts.push_back(scaled("fetch", say("cost.fetch"), cost::prim::rt_atomic(), 1.0, "", ""));
  if (r.detect) parts.push_back(scaled("detect", say("cost.detect"), under(cost::Op::poll_round), per, "", div));
  if (r.take) parts.push_back(scaled("take", say("cost.take"), under(cost::Op::cas_round), per, "", div));
  if (r.acquire) {
    const bool sc = r.fence_after == cost::Op::fence_sc;
    parts.push_back(scaled(sc ? "fence" : "acquire", say(sc ? "cost.fence" : "cost.acquire"),
                           sc ? under(cost::Op::fence_sc) : cost::prim::fence_acquire(), per, "", div));
  }
  if (r.scan > 0)
    parts.push_back(scaled("scan", say("cost.scan"), under(cost::Op::load), r.scan * per, std::to_string(r.scan) + " x ", div));
  if (r.serve) parts.push_back(scaled("serve", say("cost.serve"), cost::prim::store_issue(), 1.0, "", " (x requests" + div + ")"));
  if (r.releases)
    parts.push_back(scaled("release", say(r.release == cost::Op::store_fence_sc ? "cost.release-fence" : "cost.release"),
                           under(r.release), per, "", div));
  std::vector<FormulaTerm> t = cost::with_contention(std::move(parts), handoff(d, blocks, threads), say("cost.contention"));
  // The critical section, *cnt = *cnt + 1: its load from the L2 is on the path; the store is not,
  // because the release's fence costs as much with the store in flight as without it (measured:
  // docs/measurements.md, 2026-11-29). The book's load hits its SM's L1, and its atomicExch
  // waits for nothing: its section costs nothing on the path.
  if (r.section_from_l2) t.push_back(scaled("load", say("cost.load"), under(cost::Op::load), per, "", div));
  return t;
}

std::size_t cell(const BenchPart& p, std::size_t lock, std::size_t config) { return lock * p.configs.size() + config; }

void add_notes(report::Section& s, const BenchPart& p, const sweep::Sweep& sw) {
  for (std::size_t l = 0; l < p.locks.size(); ++l) {
    const Variant v = p.locks[l];
    std::string bad;
    bool measured = false;
    std::string per;
    for (std::size_t c = 0; c < p.configs.size(); ++c) {
      const auto& runs = p.gpu[cell(p, l, c)];
      const BenchConfig& cfg = p.configs[c];
      measured = measured || !runs.empty();
      if (bad.empty()) bad = first_problem(runs, grid_text(cfg.blocks, cfg.threads));
      long long handoffs = 0, sections = 0;
      for (const auto& r : runs) handoffs += r.handoffs, sections += r.expected;
      if (v == Variant::combining && handoffs > 0)
        per += (per.empty() ? "" : ", ") + grid_text(cfg.blocks, cfg.threads) + " " +
               report::fixed(static_cast<double>(sections) / static_cast<double>(handoffs), 1);
    }
    if (!per.empty()) s.note(say("bench.combining-note", {{"per", per}}));
    if (!measured) continue;
    if (v == Variant::book) {
      s.note(bad.empty() ? say("bench.book-exact") : say("bench.book-not-exact", {{"problem", bad}}));
      continue;
    }
    const bool combining = v == Variant::combining;
    s.check(std::string(bench_id(v)) + "-exact",
            say(combining ? "bench.check-combining" : "bench.check-exact", {{"lock", bench_name(v)}}), bad.empty(),
            bad.empty() ? say(combining ? "bench.completed-answers" : "bench.completed") : bad);
  }
  // Latency or contention: the CAS lock alone (1 x 1) beside 132 contending blocks.
  const auto at = [&](int blocks, int threads) -> std::optional<double> {
    for (std::size_t c = 0; c < p.configs.size(); ++c)
      if (p.configs[c].blocks == blocks && p.configs[c].threads == threads)
        for (std::size_t l = 0; l < p.locks.size(); ++l)
          if (p.locks[l] == Variant::fenced) return sw.median(l, c);
    return std::nullopt;
  };
  const auto one = at(1, 1), many = at(132, 1);
  if (one && many && *many > 0 && *one >= 0.8 * *many)
    s.note(say("bench.latency-note", {{"one", report::fixed(*one, 0)}, {"many", report::fixed(*many, 0)}}));
}

std::vector<BenchConfig> bench_configs() {
  std::vector<BenchConfig> out;
  for (int b : {1, 8, 33, 66, 132, 264}) out.push_back({b, 1, 0});
  for (int b : {1, 33, 132}) out.push_back({b, 128, 0});
  for (auto& c : out) c.iters = bench_iters(c.blocks, c.threads);
  return out;
}

// The design a bench row runs, the inverse of variant_of (none: a variant the bench does not run).
std::optional<LockDesign> design_of(Variant v) {
  for (int i = 0; i <= static_cast<int>(LockDesign::combining); ++i)
    if (variant_of(static_cast<LockDesign>(i)) == v) return static_cast<LockDesign>(i);
  return std::nullopt;
}

// A bench launch: the lock at `c`, and its handoff timed after each launch where the model has it.
RunSpec bench_spec(Variant v, const BenchConfig& c) {
  RunSpec s = RunSpec::of(v, c.blocks, c.threads, c.iters);
  s.handoff_too = design_of(v).has_value();
  return s;
}

std::vector<cost::Need> cost_needs(const BenchPart& p) {
  std::vector<cost::Need> needs;
  for (Variant v : p.locks)
    if (const auto d = design_of(v))
      for (const BenchConfig& c : p.configs)
        for (cost::Need& n : lock_needs(*d, c.blocks, c.threads)) cost::add_need(needs, std::move(n));
  return needs;
}

void add_cost_model(report::Section& s, const BenchPart& p, const std::vector<std::optional<double>>& medians,
                    bool gpu_run) {
  std::vector<cost::Cell> cells;
  for (std::size_t l = 0; l < p.locks.size(); ++l) {
    const auto d = design_of(p.locks[l]);
    if (!d) continue;
    for (std::size_t c = 0; c < p.configs.size(); ++c) {
      const BenchConfig& cfg = p.configs[c];
      cost::Cell cell;
      cell.row = cell.row_title = bench_id(p.locks[l]);
      cell.column = grid_id(cfg.blocks, cfg.threads);
      cell.column_title = grid_id(cfg.blocks, cfg.threads);
      cell.predicted = predict_lock(*d, cfg.blocks, cfg.threads, p.primitives);
      cell.measured = medians.at(l * p.configs.size() + c);
      cells.push_back(std::move(cell));
    }
  }
  cost::add_model(s, cells, {say("bench.unit"), report::Format::ns, cost::kTolerance}, cost_needs(p), p.primitives,
                  gpu_run);
}

}  // namespace

report::Section bench_section(const BenchPart& p, bool gpu_run) {
  report::Section s("bench", say("bench.title"));
  s.paragraph(say("bench.about", {{"reps", p.reps}}));
  s.paragraph(say("bench.about-locks"));
  s.paragraph(say("bench.about-ttas"));
  s.paragraph(say("bench.about-cost"));
  sweep::Sweep sw("bench", say("bench.unit"), report::Format::ns, sweep::Better::lower);
  std::vector<sweep::Point> rows, columns;
  for (Variant v : p.locks) rows.push_back({bench_id(v), bench_name(v)});
  for (const auto& c : p.configs) columns.push_back({grid_id(c.blocks, c.threads), grid_text(c.blocks, c.threads)});
  sw.rows("lock", rows).columns("contention", columns).baseline(bench_id(Variant::fenced));
  if (std::find(p.locks.begin(), p.locks.end(), Variant::book) != p.locks.end()) sw.reference(bench_id(Variant::book));
  for (std::size_t l = 0; l < p.locks.size(); ++l)
    for (std::size_t c = 0; c < p.configs.size(); ++c)
      if (!p.gpu[cell(p, l, c)].empty()) sw.record(l, c, ns_samples(p.gpu[cell(p, l, c)]));
  sw.add_to(s, gpu_run);
  s.tables.front().legend.push_back(say("bench.update-legend"));
  add_notes(s, p, sw);
  std::vector<std::optional<double>> medians;
  for (std::size_t l = 0; l < p.locks.size(); ++l)
    for (std::size_t c = 0; c < p.configs.size(); ++c) medians.push_back(sw.median(l, c));
  add_cost_model(s, p, medians, gpu_run);
  if (!p.verdicts.empty()) {
    report::Table v("schedulers", say("bench.schedulers-title"));
    v.column("lock", say("bench.lock-column"))
        .column("lockstep", say("bench.lockstep-column"))
        .column("independent", say("bench.independent-column"));
    for (std::size_t i = 0; i + 1 < p.verdicts.size(); i += 2)
      v.row({{"lock", program_of(p.verdicts[i].config.protocol).name},
             {"lockstep", model_outcome_text(p.verdicts[i])},
             {"independent", model_outcome_text(p.verdicts[i + 1])}});
    v.legend.push_back(say("bench.schedulers-legend"));
    s.add(std::move(v));
  }
  return s;
}

std::vector<report::Section> bench(Run& run) {
  BenchPart b;
  b.locks = {Variant::book,    Variant::fenced, Variant::acq_rel,         Variant::ttas,     Variant::ttas_same_line,
             Variant::backoff, Variant::ticket, Variant::warp_aggregated, Variant::combining};
  b.configs = bench_configs();
  b.reps = kBenchReps;
  for (Variant v : b.locks)
    for (const auto& c : b.configs)
      b.gpu.push_back(run.ctx.gpu ? gpu_runs(bench_spec(v, c), kBenchReps, true) : std::vector<LockRun>{});
  b.primitives = cost::measure(cost_needs(b), run.ctx.gpu);
  // The handoffs were timed by the bench's own launches, each after its lock, on the same words.
  for (std::size_t l = 0; run.ctx.gpu && l < b.locks.size(); ++l)
    if (const auto d = design_of(b.locks[l]))
      for (std::size_t c = 0; c < b.configs.size(); ++c) {
        std::vector<double> ns = handoff_ns_samples(b.gpu[cell(b, l, c)]);
        const cost::Key k = handoff(*d, b.configs[c].blocks, b.configs[c].threads).key;
        if (ns.empty()) b.primitives.skip(k, say("cost.handoff-gave-up"));
        else b.primitives.set(k, std::move(ns));
      }
  for (Protocol p : {Protocol::fenced, Protocol::acq_rel, Protocol::ttas, Protocol::backoff, Protocol::ticket,
                     Protocol::warp_aggregated, Protocol::combining})
    for (Regime g : {Regime::lockstep, Regime::independent}) b.verdicts.push_back(sim(p, g, 1, kTraceLanes, 1));
  return {bench_section(b, run.ctx.gpu)};
}

Variant variant_of(LockDesign d) {
  switch (d) {
    case LockDesign::book: return Variant::book;
    case LockDesign::fenced: return Variant::fenced;
    case LockDesign::acq_rel: return Variant::acq_rel;
    case LockDesign::ttas: return Variant::ttas;
    case LockDesign::ttas_same_line: return Variant::ttas_same_line;
    case LockDesign::backoff: return Variant::backoff;
    case LockDesign::ticket: return Variant::ticket;
    case LockDesign::warp_aggregated: return Variant::warp_aggregated;
    case LockDesign::combining: return Variant::combining;
  }
  return Variant::fenced;
}

cost::Background lock_background(LockDesign d, int blocks, int threads) {
  using cost::Background;
  if (blocks * threads == 1) return Background::none;  // alone: nobody waits beside the actor
  switch (d) {
    case LockDesign::backoff: return Background::cas_sleep;
    case LockDesign::ttas:
    case LockDesign::ttas_same_line: return Background::poll;
    case LockDesign::ticket: return Background::ticket;
    case LockDesign::warp_aggregated: return threads == 1 ? Background::cas : Background::leaders;
    case LockDesign::combining: return Background::slots;
    default: return Background::cas;
  }
}

std::vector<cost::Need> lock_needs(LockDesign d, int blocks, int threads) {
  return cost::needs_of(lock_terms(d, blocks, threads));
}

cost::Prediction predict_lock(LockDesign d, int blocks, int threads, const cost::Primitives& p) {
  return cost::predict(lock_terms(d, blocks, threads), p);
}

}  // namespace cudasync::lock
