// lockfree-barrier: options, validation, the run's shared state (with the co-residency refusal),
// the setup section and the part table.
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/cli/option_checks.hpp"
#include "core/errors.hpp"
#include "core/number_list.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_gpu.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using I = std::int64_t;

constexpr std::int64_t kMaxWork = std::int64_t{1} << 28;  // blocks x threads x phases the model replays
const char* kUnsafeEscape = "--allow-unsafe to launch it anyway and watch the deadline end it";

// Why `text` is not a count lo..hi ("" when it is); usage errors put the option and the value
// before it and what is accepted after it.
std::string int_error(const std::string& text, long long lo, long long hi) {
  const std::optional<long long> v = whole_number(text);
  if (!v) return "not a whole number";
  if (*v < lo) return "give at least " + std::to_string(lo);
  if (*v > hi) return "more than " + std::to_string(hi) + ", the most";
  return "";
}

// A count lo..hi, its range in --help and --cli-spec, and `what` it counts in "accepted:".
CLI::Validator count_check(long long lo, long long hi, const std::string& what) {
  return cli::ranged_check(static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi),
                           [=](const std::string& v) { return int_error(v, lo, hi); },
                           "a whole number " + std::to_string(lo) + ".." + std::to_string(hi) + " (" + what + ")");
}

void add_options(CLI::App& sub, Options& o) {
  sub.add_option("--blocks", o.blocks,
                 "Blocks in the grid, 1.." + std::to_string(kMaxBlocks) +
                     " (default: one per SM; 16 with --trace). More than can be resident at once is refused, "
                     "unless --allow-unsafe")
      ->check(count_check(1, kMaxBlocks, "blocks in the grid"));
  sub.add_option("--threads", o.threads, "Threads per block, 1..1024 (default 256; a multiple of 32 for own)")
      ->check(count_check(1, 1024, "threads per block, at most 1024 on every GPU"));
  sub.add_option("--phases", o.phases,
                 "Phases of the multi-phase kernel, 2.." + std::to_string(kMaxPhases) + " (default 16: 15 barriers)")
      ->check(count_check(2, kMaxPhases, "phases, with a barrier between each two"));
  sub.add_flag("--trace", o.trace,
               "Per-block arrival and release times of barrier 1 (%globaltimer) as a timeline, and the model's "
               "step table (--blocks at most 64, default 16)");
  sub.add_flag("--allow-unsafe", o.allow_unsafe,
               "Run a grid larger than can be resident at once: every software barrier deadlocks, its deadline "
               "ends it, and the report names the blocks that never arrived");
  sub.add_option("--deadline-ms", o.deadline_ms,
                 "How long one spinning block waits before it gives up, 1.." + std::to_string(kMaxDeadlineMs) +
                     " ms (default " + std::to_string(kDefaultDeadlineMs) + ")")
      ->check(count_check(1, kMaxDeadlineMs, "milliseconds"));
}

// Combinations CLI11 cannot check one option at a time. --bench's own (--blocks, --phases, --trace
// and --allow-unsafe are not used by it) come from core: every part reads them, the bench does not.
std::optional<std::string> validate(const Options& o, const parts::Selection& sel, const RunContext&) {
  if ((sel.bench || sel.any_of({"own", "own-cluster"})) && o.threads % kWarpSize != 0)
    return "--threads " + std::to_string(o.threads) +
           " is not a multiple of 32: the own barriers (own, own-cluster) wait with warp 0's 32 lanes and "
           "__all_sync(0xffffffff), and cudasync keeps their blocks to whole warps; accepted: a multiple of 32" +
           (sel.bench ? std::string(" (--bench times them at every grid size)")
                      : ", or leave own and own-cluster out with --part");
  if (sel.bench) return std::nullopt;
  const int blocks = o.blocks.value_or(o.trace ? kTraceDefaultBlocks : 0);
  const int phases = o.phases.value_or(kDefaultPhases);
  if (o.trace && blocks > kTraceMaxBlocks)
    return "--trace draws one row per block: at most --blocks " + std::to_string(kTraceMaxBlocks) + " (got " +
           std::to_string(blocks) + "); accepted: --blocks 1.." + std::to_string(kTraceMaxBlocks) + " with --trace";
  if (blocks > 0) {
    const std::int64_t values = static_cast<std::int64_t>(blocks) * o.threads;
    if (values > kMaxValues)
      return "--blocks " + std::to_string(blocks) + " x --threads " + std::to_string(o.threads) + " = " +
             std::to_string(values) + " values is more than " + std::to_string(kMaxValues) +
             " (2^24), the most the model replays; accepted: blocks x threads of at most 2^24";
    if (values * phases > kMaxWork)
      return "--blocks " + std::to_string(blocks) + " x --threads " + std::to_string(o.threads) + " x --phases " +
             std::to_string(phases) + " is more than 2^28 value updates for the model to replay; accepted: blocks x threads x phases of at "
                                         "most 2^28: give fewer phases";
  } else if (static_cast<std::int64_t>(kModelSmCount) * 2 * o.threads * phases > kMaxWork) {
    return "--phases " + std::to_string(phases) + " with --threads " + std::to_string(o.threads) +
           " is more than 2^28 value updates for the model to replay at one block per SM; accepted: 132 x 2 x "
           "threads x phases of at most 2^28: give fewer phases";
  }
  return std::nullopt;
}

Limits limits_for(int threads, const RunContext& ctx) {
  Limits l;
  if (ctx.gpu) {
    const GpuLimits g = gpu_limits(threads, ctx.device->index);
    l.software = g.software;
    l.candidates = g.candidates;
    l.cooperative = g.cooperative;
    l.cooperative_launch = g.cooperative_launch;
    l.cluster_unsupported = g.cluster_unsupported;
    l.clusters = g.clusters;
    return l;
  }
  l.software = model_coresidency(threads);
  l.candidates = l.software;
  l.cooperative = l.software;
  for (int cs : kClusterSizes) l.clusters.push_back(model_cluster_coresidency(threads, cs));
  return l;
}

void setup(Run& run, report::Section& sec) {
  if (run.bench) return bench_setup(run, sec);
  const Setup& s = run.s;
  sec.title = say("setup.title", {{"blocks", s.blocks}, {"threads", s.threads}, {"phases", s.phases}});
  sec.paragraph(say("setup.kernel-about", {{"phases", s.phases}}));
  sec.paragraph(say("setup.residency-about"));
  sec.fact("blocks", say("setup.blocks"), static_cast<I>(s.blocks), report::Format::count);
  sec.fact("threads", say("setup.threads"), static_cast<I>(s.threads), report::Format::count);
  sec.fact("phases", say("setup.phases"), static_cast<I>(s.phases), report::Format::count,
           say("setup.barriers-note", {{"count", s.phases - 1}}));
  sec.fact("seed", say("setup.seed"), static_cast<I>(run.ctx.seed), report::Format::plain, say("setup.seed-note"));
  sec.fact("resident-software", say("setup.resident-software"), static_cast<I>(s.software.limit()),
           report::Format::count, per_sm_text(s.software));
  sec.fact("resident-grid-sync", say("setup.resident-grid-sync"), static_cast<I>(s.cooperative.limit()),
           report::Format::count, per_sm_text(s.cooperative));
  sec.fact("own-counters", say("setup.own-counters"), static_cast<I>(s.own_counters), report::Format::count,
           say(s.own_counters == 1 ? "setup.own-counters-one" : "setup.own-counters-spread"));
  if (run.ctx.gpu && !run.limits.cluster_unsupported.empty())
    sec.fact("own-cluster", "own-cluster", say("waived"), report::Format::plain, run.limits.cluster_unsupported);
  else
    sec.fact("resident-own-cluster", say("setup.resident-own-cluster"), static_cast<I>(s.cluster.limit()),
             report::Format::count, say("setup.clusters-note", {{"size", s.cluster_size}, {"residency", s.cluster.text()}}));
  sec.fact("deadline-ms", say("setup.deadline"), static_cast<I>(run.options.deadline_ms), report::Format::count, "ms");
  if (s.beyond())
    sec.note(say("setup.unsafe-note", {{"blocks", s.blocks}, {"limit", s.software.limit()}}));
  if (!run.ctx.gpu) sec.note(say("setup.model-note"));
}

parts::Part<Run> row(Barrier b, const char* summary, std::vector<std::string> former_ids = {}) {
  return {barrier_key(b),
          barrier_title(b),
          summary,
          {"--blocks", "--threads", "--phases", "--trace", "--allow-unsafe", "--deadline-ms"},
          false,
          false,
          true,
          [b](Run& r) { return barrier_part(r, b); },
          std::move(former_ids)};
}

}  // namespace

std::string per_sm_text(const Coresidency& c) {
  return say("setup.per-sm", {{"per-sm", c.blocks_per_sm}, {"sms", c.sm_count}, {"source", c.source}});
}

std::pair<int, Coresidency> cluster_for(int blocks, const Limits& l) {
  if (l.clusters.empty()) return {1, l.software};
  const int cs = own_cluster_size(blocks, l.clusters);
  for (int i = 0; i < kClusterSizeCount; ++i)
    if (kClusterSizes[i] == cs) return {cs, l.clusters[static_cast<std::size_t>(i)]};
  return {1, l.clusters.front()};
}

GpuSpec gpu_spec(const Run& run, int blocks, int phases) {
  GpuSpec s;
  s.blocks = blocks;
  s.threads = run.options.threads;
  s.phases = phases;
  s.own_counters = std::min(own_counters_for(blocks), blocks);
  s.own_pollers = own_pollers_for(blocks, run.limits.software.sm_count, run.options.threads);
  s.cluster_size = cluster_for(blocks, run.limits).first;
  s.deadline_ns = static_cast<std::uint64_t>(run.options.deadline_ms) * 1'000'000ull;
  return s;
}

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx), options(o), limits(limits_for(o.threads, run_ctx)), bench(selection.bench) {
  if (bench) return;
  s.threads = o.threads;
  s.phases = o.phases.value_or(kDefaultPhases);
  s.blocks = o.blocks.value_or(o.trace ? kTraceDefaultBlocks : ctx.gpu ? ctx.device->sm_count : kModelSmCount);
  s.software = limits.software;
  s.cooperative = limits.cooperative;
  std::tie(s.cluster_size, s.cluster) = cluster_for(s.blocks, limits);
  s.own_counters = std::min(own_counters_for(s.blocks), s.blocks);

  std::vector<Barrier> barriers;
  for (Barrier b : all_barriers())
    if (selection.has(barrier_key(b))) barriers.push_back(b);
  // Refuse a grid that cannot be resident at once, before anything runs.
  for (Barrier b : barriers) {
    if (!needs_coresidency(b) || o.allow_unsafe) continue;
    if (uses_clusters(b) && !limits.cluster_unsupported.empty()) continue;  // waived, never launched
    const Coresidency& c = b == Barrier::grid_sync ? s.cooperative : uses_clusters(b) ? s.cluster : s.software;
    if (const auto e = coresidency_refusal(s.blocks, c, "--blocks", kUnsafeEscape)) throw UsageError(*e);
  }
  if (std::any_of(barriers.begin(), barriers.end(), [&](Barrier b) { return !s.beyond(b); }))
    want = model_values(s.blocks, s.threads, s.phases, ctx.seed);
  if (ctx.gpu) {
    x0 = initial_values(s.blocks, s.threads, ctx.seed);
    if (o.trace) s.timer_step_ns = gpu_timer_step_ns();
  }
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "lockfree-barrier",
      "lockfree-barrier: every way to make all blocks wait for each other (Xiao & Feng 2010 and after)",
      "grid barriers: relaunch, Xiao & Feng's lock-based and lock-free, grid.sync, cudasync's own",
      {
          row(Barrier::relaunch, "one kernel per phase: the launch boundary is the barrier"),
          row(Barrier::graph, "the same launches, replayed from a CUDA graph"),
          row(Barrier::xf_lock, "one atomic counter, goal += N, repaired (fences, <)"),
          row(Barrier::xf_lockfree, "Arrayin / Arrayout and a master block, repaired"),
          row(Barrier::grid_sync, "cooperative_groups grid.sync() in a cooperative launch"),
          row(Barrier::own, "red.release arrivals on spread counters, relaxed polls, one acquire"),
          row(Barrier::own_cluster, "own, one poller per thread-block cluster (sm_90)"),
          row(Barrier::xf_lock_unrepaired, "Xiao & Feng lock-based as published and copied: `!=` deadlocks",
              {"xf-lock-seed"}),
          row(Barrier::xf_lockfree_unrepaired, "Xiao & Feng lock-free as widely copied: nobody waits",
              {"xf-lockfree-seed"}),
      },
      add_options,
      validate,
      setup,
      summary_finish,
      parts::Bench<Run>{"ns per barrier at 1, 2, 4 blocks per SM and full co-residency, beside grid.sync and the "
                        "L2 round trip",
                        {"--threads", "--deadline-ms"},
                        bench_sections},
      {},
      predictions()};
  return table;
}

}  // namespace cudasync::lockfree_barrier
