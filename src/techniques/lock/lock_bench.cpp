// --bench: every lock at contention levels from one thread to 132 blocks of 128, ns per update, with
// the CAS lock (the blog's fixed class) as the baseline of every ratio; and the model's verdict on
// each lock in one lockstep warp.
#include <algorithm>

#include "core/cost/cost_gpu.hpp"
#include "core/report/text_format.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/lock/lock_gpu.hpp"
#include "techniques/lock/lock_lesson.hpp"

namespace cudasync::lock {

namespace {

constexpr int kBenchReps = 9;               // per lock and contention level

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

}  // namespace

std::vector<BenchConfig> bench_configs() {
  std::vector<BenchConfig> out;
  for (int b : {1, 8, 33, 66, 132, 264}) out.push_back({b, 1, 0});
  for (int b : {1, 33, 132}) out.push_back({b, 128, 0});
  for (auto& c : out) {
    const long long threads = static_cast<long long>(c.blocks) * c.threads;
    c.iters = static_cast<int>(std::max<long long>(1, kBenchUpdates / threads));
  }
  return out;
}

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
      b.gpu.push_back(run.ctx.gpu ? gpu_runs(RunSpec::of(v, c.blocks, c.threads, c.iters), kBenchReps, true)
                                  : std::vector<LockRun>{});
  b.primitives = cost::measure(cost_needs(b), run.ctx.gpu);
  for (Protocol p : {Protocol::fenced, Protocol::acq_rel, Protocol::ttas, Protocol::backoff, Protocol::ticket,
                     Protocol::warp_aggregated, Protocol::combining})
    for (Regime g : {Regime::lockstep, Regime::independent}) b.verdicts.push_back(sim(p, g, 1, kTraceLanes, 1));
  return {bench_section(b, run.ctx.gpu)};
}

}  // namespace cudasync::lock
