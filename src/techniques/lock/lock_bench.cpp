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
    if (!per.empty()) s.note("combining lock, critical sections per lock handoff (every launch): " + per);
    if (!measured) continue;
    if (v == Variant::book) {
      s.note("the book's lock: " + (bad.empty() ? std::string("every count exact in these runs (not a promise: see "
                                                              "part 3)")
                                                : "not exact: " + bad));
      continue;
    }
    const std::string what = v == Variant::combining ? ": every count exact and every answer 0..n-1 returned once, at "
                                                       "every contention level"
                                                     : ": every count exact at every contention level";
    s.check(std::string(bench_id(v)) + "-exact", bench_name(v) + what, bad.empty(),
            bad.empty() ? "every launch completed with its exact count" +
                              std::string(v == Variant::combining ? " and answers" : "")
                        : bad);
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
    s.note("the CAS lock costs " + report::fixed(*one, 0) + " ns per acquisition with one thread alone and " +
           report::fixed(*many, 0) + " ns per handoff among 132 blocks: at one thread per block the cost is the "
           "latency of take, critical section and release, not contention, so back-off and tickets gain little "
           "there; lighter ordering does a little, and running many critical sections per handoff (warp aggregation "
           "with many threads per block, combining at any shape) does most");
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
  report::Section s("bench", "bench: contended locks, ns per update by contention");
  s.paragraph(
      "Every lock orders its critical section (*cnt = *cnt + 1, read and written plainly) with its taking and "
      "releasing, and every count is checked. The CAS lock is the blog's fixed class: atomicCAS, __threadfence() "
      "after taking and before releasing, atomicExch. ns per update = launch time (CUDA events) / updates; each "
      "cell is the median of " +
      std::to_string(p.reps) + " launches after a warm-up; x CAS divides by the CAS lock's median at the same "
      "contention in the same run. The book's lock without fences is shown for reference only: it is fast because "
      "its critical section reads a line kept in L1, which is also why it loses updates (part 3).");
  s.paragraph(
      "CAS, acquire / release orders exactly what a lock needs (cuda::atomic_ref: compare_exchange with acquire, "
      "store with release) instead of two full fences. CAS + back-off sleeps (__nanosleep) twice as long after each "
      "failed try, so fewer compare-and-swaps queue at the lock's L2 slice. The ticket lock hands out numbers with "
      "one atomicAdd and serves them in order; a waiter polls with acquire loads and sleeps in proportion to how "
      "many tickets are ahead of it. Warp-aggregated: the lanes of a warp that arrive together elect one lane, "
      "which takes the lock (acquire / release) once and makes the warp's updates in one critical section.");
  s.paragraph(
      "Test-and-test-and-set waits with plain relaxed loads and tries compare_exchange (acquire) only when the word "
      "reads 0, so waiters do not queue atomics in front of the release; its second row keeps the counter in the "
      "lock word's 128-byte line instead of a line of its own. The combining lock (part 8) is the one lock here "
      "whose handoff is not one critical section: each thread publishes a fetch-and-add request in its own slot, "
      "and whoever takes the lock serves every published request. Its row is ns per critical section, with every "
      "count exact and the answers 0..n-1 each returned once.");
  s.paragraph(
      "The cost model predicts every cell as a sum of terms: the compare-and-swap that takes the lock behind the "
      "waiters' atomics, the acquire, the critical section's load from the L2, the release waiting for the "
      "counter's store, and, for the locks that need them, the poll that sees the release and the answers a "
      "combiner stores. Each term is a primitive measured in the same run under that lock's own waiters at the "
      "same contention (tables model, terms-<row>, primitives).");
  sweep::Sweep sw("bench", "ns per update", report::Format::ns, sweep::Better::lower);
  std::vector<sweep::Point> rows, columns;
  for (Variant v : p.locks) rows.push_back({bench_id(v), bench_name(v)});
  for (const auto& c : p.configs) columns.push_back({grid_id(c.blocks, c.threads), grid_text(c.blocks, c.threads)});
  sw.rows("lock", rows).columns("contention", columns).baseline(bench_id(Variant::fenced));
  if (std::find(p.locks.begin(), p.locks.end(), Variant::book) != p.locks.end()) sw.reference(bench_id(Variant::book));
  for (std::size_t l = 0; l < p.locks.size(); ++l)
    for (std::size_t c = 0; c < p.configs.size(); ++c)
      if (!p.gpu[cell(p, l, c)].empty()) sw.record(l, c, ns_samples(p.gpu[cell(p, l, c)]));
  sw.add_to(s, gpu_run);
  s.tables.front().legend.push_back(
      "update: one thread's *cnt += 1 under the lock (for the combining lock, one fetch-and-add request served); "
      "for the single-thread locks one update is one lock handoff, for warp-aggregated one handoff carries the "
      "warp's updates, for combining every request published when the holder reads the slots");
  add_notes(s, p, sw);
  std::vector<std::optional<double>> medians;
  for (std::size_t l = 0; l < p.locks.size(); ++l)
    for (std::size_t c = 0; c < p.configs.size(); ++c) medians.push_back(sw.median(l, c));
  add_cost_model(s, p, medians, gpu_run);
  if (!p.verdicts.empty()) {
    report::Table v("schedulers", "reference model: each lock written as lock(); ...; unlock(); by every lane of one warp");
    v.column("lock", "lock").column("lockstep", "lockstep (pre-Volta)").column("independent", "independent");
    for (std::size_t i = 0; i + 1 < p.verdicts.size(); i += 2)
      v.row({{"lock", program_of(p.verdicts[i].config.protocol).name},
             {"lockstep", model_outcome_text(p.verdicts[i])},
             {"independent", model_outcome_text(p.verdicts[i + 1])}});
    v.legend.push_back("4 lanes, one acquisition each; only the warp-aggregated lock, where one lane spins for the "
                       "warp, and the combining lock, whose holder serves its warp and releases before the warp "
                       "reconverges, survive lockstep");
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
