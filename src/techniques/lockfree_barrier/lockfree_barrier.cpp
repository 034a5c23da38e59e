// lockfree-barrier: options, validation, the co-residency refusal, and the run that asks the GPU
// (when there is one) and the reference model about the same barriers. Sections are built in
// lockfree_barrier_sections.cpp.
#include <algorithm>
#include <memory>
#include <tuple>
#include <utility>

#include "core/coresidency.hpp"
#include "core/errors.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_sections.hpp"
#if CUDASYNC_HAVE_CUDA
#include "techniques/lockfree_barrier/lockfree_barrier_gpu.hpp"
#endif

namespace cudasync::lockfree_barrier {

namespace {

constexpr std::int64_t kMaxWork = std::int64_t{1} << 28;  // blocks x threads x phases the model replays
constexpr int kReps = 5, kK1 = 100, kK2 = 500;           // timing in a plain run
constexpr int kBenchReps = 21, kBenchK1 = 200, kBenchK2 = 1200;
constexpr int kFloorChain = 2000;
constexpr int kModelSmCount = 132;

std::vector<std::string> keys() {
  std::vector<std::string> k;
  for (Barrier b : all_barriers()) k.push_back(barrier_key(b));
  return k;
}

std::vector<Barrier> selected(const Options& o) {
  std::vector<Barrier> v;
  for (Barrier b : all_barriers())
    if (o.barriers.empty() || std::find(o.barriers.begin(), o.barriers.end(), barrier_key(b)) != o.barriers.end())
      v.push_back(b);
  return v;
}

bool has(const std::vector<Barrier>& v, Barrier b) { return std::find(v.begin(), v.end(), b) != v.end(); }

// "--blocks 0: give at least 1", "--blocks lots: not a whole number", "--blocks 70000: at most 65536".
std::optional<std::string> int_error(const std::string& option, const std::string& text, long long lo, long long hi,
                                     const std::string& what) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != text.size()) return option + " '" + text + "' is not a whole number (" + what + ")";
  if (v < lo) return option + " " + text + ": give at least " + std::to_string(lo) + " (" + what + ")";
  if (v > hi) return option + " " + text + " is more than " + std::to_string(hi) + ", the most accepted (" + what + ")";
  return std::nullopt;
}

std::string device_text(const RunContext& ctx) {
  if (!ctx.device) return "";
  const DeviceInfo& d = *ctx.device;
  return "GPU " + std::to_string(d.index) + ", " + d.name + ", " + std::to_string(d.sm_count) + " SMs, cc " + d.cc_string();
}

struct Limits {
  Coresidency software, cooperative;
  bool cooperative_launch = true;
  std::string cluster_unsupported;     // non-empty: own-cluster cannot run on this GPU
  std::vector<Coresidency> clusters;  // in clusters of kClusterSizes[i]
};

Limits limits_for(int threads, const RunContext& ctx) {
  Limits l;
#if CUDASYNC_HAVE_CUDA
  if (ctx.gpu) {
    const GpuLimits g = gpu_limits(threads, ctx.device->index);
    l.software = g.software;
    l.cooperative = g.cooperative;
    l.cooperative_launch = g.cooperative_launch;
    l.cluster_unsupported = g.cluster_unsupported;
    l.clusters = g.clusters;
    return l;
  }
#else
  (void)ctx;
#endif
  l.software = model_coresidency(threads);
  l.cooperative = l.software;
  for (int cs : kClusterSizes) l.clusters.push_back(model_cluster_coresidency(threads, cs));
  return l;
}

// own-cluster's cluster size for a grid, and its co-residency there (a plain block count when the
// GPU has no clusters: own-cluster is then waived, and nothing is refused on its account).
std::pair<int, Coresidency> cluster_for(int blocks, const Limits& l) {
  if (l.clusters.empty()) return {1, l.software};
  const int cs = own_cluster_size(blocks, l.clusters);
  for (int i = 0; i < kClusterSizeCount; ++i)
    if (kClusterSizes[i] == cs) return {cs, l.clusters[static_cast<std::size_t>(i)]};
  return {1, l.clusters.front()};
}

std::string cluster_note(int cs) { return "clusters of " + std::to_string(cs) + (cs == 1 ? " block" : " blocks"); }

std::string counters_note(int c) { return "C = " + std::to_string(c) + (c == 1 ? " counter" : " counters"); }

const char* kUnsafeEscape = "--allow-unsafe to launch it anyway and watch the deadline end it";

report::Report run_lesson(const Options& o, const RunContext& ctx) {
  const std::vector<Barrier> barriers = selected(o);
  Setup s;
  s.threads = o.threads;
  s.phases = o.phases.value_or(kDefaultPhases);
  s.blocks = o.blocks.value_or(o.trace ? kTraceDefaultBlocks : ctx.gpu ? ctx.device->sm_count : kModelSmCount);
  s.seed = ctx.seed;
  s.gpu = ctx.gpu;
  s.device = device_text(ctx);
  s.deadline_ms = o.deadline_ms;
  s.allow_unsafe = o.allow_unsafe;
  s.trace = o.trace;
  const Limits lim = limits_for(s.threads, ctx);
  s.software = lim.software;
  s.cooperative = lim.cooperative;
  std::tie(s.cluster_size, s.cluster) = cluster_for(s.blocks, lim);
  s.cluster_unsupported = lim.cluster_unsupported;
  s.own_counters = std::min(own_counters_for(s.blocks), s.blocks);
  s.reps = kReps;

  // Refuse a grid that cannot be resident at once, before anything runs.
  for (Barrier b : barriers) {
    if (!needs_coresidency(b) || o.allow_unsafe) continue;
    if (uses_clusters(b) && !s.cluster_unsupported.empty()) continue;  // waived below, never launched
    const Coresidency& c = b == Barrier::grid_sync ? s.cooperative : uses_clusters(b) ? s.cluster : s.software;
    if (const auto e = coresidency_refusal(s.blocks, c, "--blocks", kUnsafeEscape)) throw UsageError(*e);
  }

  const bool compare_values =
      std::any_of(barriers.begin(), barriers.end(), [&](Barrier b) { return !s.beyond(b); });
  const std::vector<std::uint32_t> want =
      compare_values ? model_values(s.blocks, s.threads, s.phases, s.seed) : std::vector<std::uint32_t>{};

  report::Report r;
  r.technique = "lockfree-barrier";
  r.title = "lockfree-barrier: every way to make all blocks wait for each other (seed 000, Xiao & Feng)";

#if CUDASYNC_HAVE_CUDA
  GpuSpec spec;
  spec.blocks = s.blocks;
  spec.threads = s.threads;
  spec.phases = s.phases;
  spec.own_counters = s.own_counters;
  spec.cluster_size = s.cluster_size;
  spec.deadline_ns = static_cast<std::uint64_t>(s.deadline_ms) * 1'000'000ull;
  std::vector<std::uint32_t> x0;
  if (ctx.gpu) {
    x0 = initial_values(s.blocks, s.threads, s.seed);
    if (o.trace) s.timer_step_ns = gpu_timer_step_ns();
  }
#endif

  std::vector<BarrierResult> results;
  for (Barrier b : barriers) {
    BarrierResult br;
    br.barrier = b;
    SimSpec sim;
    sim.barrier = b;
    sim.blocks = s.blocks;
    sim.slots = s.limit_of(b);
    sim.threads = s.threads;
    sim.barriers = std::min(s.phases - 1, kSimBarriers);
    sim.own_counters = s.own_counters;
    sim.shown_barriers = kSimBarriers;
    sim.cluster_size = s.cluster_size;
    br.sim = simulate(sim);
    if (is_correct(b) && !s.beyond(b)) br.model_words = final_words(b, s.blocks, s.phases, s.own_counters);
#if CUDASYNC_HAVE_CUDA
    if (ctx.gpu) {
      if (b == Barrier::grid_sync && !lim.cooperative_launch) {
        br.waived = "this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0)";
        r.waived.push_back({"grid-sync", *br.waived});
      } else if (uses_clusters(b) && !s.cluster_unsupported.empty()) {
        br.waived = s.cluster_unsupported;
        r.waived.push_back({barrier_key(b), *br.waived});
      } else {
        GpuRun g = gpu_run(b, spec, x0);
        const bool runs = g.refused.empty() && !s.beyond(b);
        if (is_correct(b) && runs && !g.deadline_hit) {
          const Timing t = gpu_time(b, spec, kReps, kK1, kK2);
          if (!t.deadline_hit) g.ns_per_barrier = t.ns;
        }
        br.gpu = std::move(g);
      }
    }
#endif
    results.push_back(std::move(br));
  }

  r.sections.push_back(setup_section(s));
  for (const auto& br : results) r.sections.push_back(barrier_section(br, s, want));
  if (results.size() > 1) r.sections.push_back(summary_section(results, s));
  if (std::all_of(results.begin(), results.end(), [](const BarrierResult& b) { return b.waived.has_value(); }))
    r.sections.clear();  // everything asked for was waived: exit 77
  return r;
}

report::Report run_bench(const Options& o, const RunContext& ctx) {
  std::vector<Barrier> barriers;
  for (Barrier b : selected(o))
    if (is_correct(b)) barriers.push_back(b);
  if (!has(barriers, Barrier::grid_sync)) barriers.push_back(Barrier::grid_sync);  // every ratio needs it
  std::sort(barriers.begin(), barriers.end());
  const Limits lim = limits_for(o.threads, ctx);
  BenchSetup bs;
  bs.threads = o.threads;
  bs.gpu = ctx.gpu;
  bs.device = device_text(ctx);
  bs.software = lim.software;
  bs.cooperative = lim.cooperative;
  bs.cluster_unsupported = lim.cluster_unsupported;
  bs.sm_count = ctx.gpu ? ctx.device->sm_count : kModelSmCount;
  bs.reps = kBenchReps;
  bs.k1 = kBenchK1;
  bs.k2 = kBenchK2;
  bs.floor_chain = kFloorChain;
  const int full = std::min(lim.software.limit(), lim.cooperative.limit());
  for (int per_sm : {1, 2, 4})
    if (per_sm * bs.sm_count <= full) bs.blocks.push_back(per_sm * bs.sm_count);
  if (full > 0) bs.blocks.push_back(full);
  std::sort(bs.blocks.begin(), bs.blocks.end());
  bs.blocks.erase(std::unique(bs.blocks.begin(), bs.blocks.end()), bs.blocks.end());

  std::vector<BenchRow> rows;
  for (Barrier b : barriers) {
    BenchRow row;
    row.barrier = b;
    for (int n : bs.blocks) {
      BenchCell c;
      c.blocks = n;
      const auto [cs, cluster] = cluster_for(n, lim);
#if CUDASYNC_HAVE_CUDA
      if (ctx.gpu) {
        if (b == Barrier::grid_sync && !lim.cooperative_launch) {
          c.note = "waived: no cooperative launch on this GPU";
        } else if (uses_clusters(b) && !lim.cluster_unsupported.empty()) {
          c.note = "waived: " + lim.cluster_unsupported;
        } else if (uses_clusters(b) && n > cluster.limit()) {
          c.note = "not timed: " + std::to_string(n) + " blocks do not fit at once in clusters (" + cluster.text() + ")";
        } else {
          GpuSpec spec;
          spec.blocks = n;
          spec.threads = o.threads;
          spec.own_counters = std::min(own_counters_for(n), n);
          spec.cluster_size = cs;
          spec.deadline_ns = static_cast<std::uint64_t>(o.deadline_ms) * 1'000'000ull;
          const Timing t = gpu_time(b, spec, kBenchReps, kBenchK1, kBenchK2);
          c.ns = t.ns;
          c.deadline_hit = t.deadline_hit;
          if (b == Barrier::own) c.note = counters_note(spec.own_counters);
          if (uses_clusters(b)) c.note = counters_note(spec.own_counters) + ", " + cluster_note(cs);
        }
      }
#endif
      if (!ctx.gpu && b == Barrier::own) c.note = counters_note(std::min(own_counters_for(n), n));
      if (!ctx.gpu && uses_clusters(b)) c.note = counters_note(std::min(own_counters_for(n), n)) + ", " + cluster_note(cs);
      row.cells.push_back(c);
    }
    rows.push_back(std::move(row));
  }
#if CUDASYNC_HAVE_CUDA
  if (ctx.gpu) bs.floor_ns = gpu_floor_ns(kBenchReps, kFloorChain);
#endif
  report::Report r;
  r.technique = "lockfree-barrier";
  r.title = "lockfree-barrier --bench: ns per barrier by grid size, beside grid.sync and the L2 round trip";
  r.sections.push_back(bench_setup_section(bs));
  r.sections.push_back(bench_section(bs, rows));
  if (!lim.cooperative_launch)
    r.waived.push_back({"grid-sync", "this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is "
                                     "0): no ratio to grid.sync"});
  if (ctx.gpu && has(barriers, Barrier::own_cluster) && !lim.cluster_unsupported.empty())
    r.waived.push_back({barrier_key(Barrier::own_cluster), lim.cluster_unsupported});
  return r;
}

}  // namespace

std::optional<std::string> combination_error(const Options& o, bool bench) {
  const std::vector<Barrier> barriers = selected(o);
  if ((has(barriers, Barrier::own) || has(barriers, Barrier::own_cluster)) && o.threads % kWarpSize != 0)
    return "--threads " + std::to_string(o.threads) +
           " is not a multiple of 32: the own barriers (own, own-cluster) wait with warp 0's 32 lanes and "
           "__all_sync(0xffffffff), and cudasync keeps their blocks to whole warps; give a multiple of 32, or leave "
           "own and own-cluster out with --barrier";
  if (bench) {
    if (o.blocks) return "--blocks is not used by --bench, which sweeps 1, 2 and 4 blocks per SM and full co-residency";
    if (o.phases) return "--phases is not used by --bench, which times kernels of nothing but barriers";
    if (o.trace) return "--trace and --bench do not mix: --trace looks at one run, --bench sweeps grid sizes";
    if (o.allow_unsafe) return "--allow-unsafe and --bench do not mix: --bench times barriers that work";
    for (Barrier b : barriers)
      if (!o.barriers.empty() && !is_correct(b))
        return std::string("--bench times the correct barriers; ") + barrier_key(b) +
               " is the seed's code as written, which is broken: leave it out of --barrier";
    return std::nullopt;
  }
  const int blocks = o.blocks.value_or(o.trace ? kTraceDefaultBlocks : 0);
  const int phases = o.phases.value_or(kDefaultPhases);
  if (o.trace && blocks > kTraceMaxBlocks)
    return "--trace draws one row per block: at most --blocks " + std::to_string(kTraceMaxBlocks) + " (got " +
           std::to_string(blocks) + ")";
  if (blocks > 0) {
    const std::int64_t values = static_cast<std::int64_t>(blocks) * o.threads;
    if (values > kMaxValues)
      return "--blocks " + std::to_string(blocks) + " x --threads " + std::to_string(o.threads) + " = " +
             std::to_string(values) + " values is more than " + std::to_string(kMaxValues) +
             " (2^24), the most the model replays; give fewer blocks or threads";
    if (values * phases > kMaxWork)
      return "--blocks " + std::to_string(blocks) + " x --threads " + std::to_string(o.threads) + " x --phases " +
             std::to_string(phases) + " is more than 2^28 value updates for the model to replay; give fewer phases";
  } else if (static_cast<std::int64_t>(kModelSmCount) * 2 * o.threads * phases > kMaxWork) {
    return "--phases " + std::to_string(phases) + " with --threads " + std::to_string(o.threads) +
           " is more than 2^28 value updates for the model to replay at one block per SM; give fewer phases";
  }
  return std::nullopt;
}

report::Report run(const Options& o, const RunContext& ctx) {
  if (const auto e = combination_error(o, ctx.bench)) throw UsageError(*e);
#if !CUDASYNC_HAVE_CUDA
  if (ctx.gpu) throw NoGpuError("this cudasync was built without CUDA");
#endif
  return ctx.bench ? run_bench(o, ctx) : run_lesson(o, ctx);
}

cli::Runner attach(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  std::string names;
  for (const auto& k : keys()) names += (names.empty() ? "" : ", ") + k;
  sub.add_option("--barrier", o->barriers, "Which barriers, comma-separated: " + names + " (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(keys()));
  sub.add_option("--blocks", o->blocks,
                 "Blocks in the grid, 1.." + std::to_string(kMaxBlocks) +
                     " (default: one per SM; 16 with --trace). More than can be resident at once is refused, "
                     "unless --allow-unsafe")
      ->check([](const std::string& v) {
        return int_error("--blocks", v, 1, kMaxBlocks, "blocks in the grid").value_or("");
      });
  sub.add_option("--threads", o->threads, "Threads per block, 1..1024 (default 256; a multiple of 32 for own)")
      ->check([](const std::string& v) {
        return int_error("--threads", v, 1, 1024, "threads per block, at most 1024 on every GPU").value_or("");
      });
  sub.add_option("--phases", o->phases,
                 "Phases of the multi-phase kernel, 2.." + std::to_string(kMaxPhases) +
                     " (default 16: 15 barriers)")
      ->check([](const std::string& v) {
        return int_error("--phases", v, 2, kMaxPhases, "phases, with a barrier between each two").value_or("");
      });
  sub.add_flag("--trace", o->trace,
               "Per-block arrival and release times of barrier 1 (%globaltimer) as a timeline, and the model's "
               "step table (--blocks at most 64, default 16)");
  sub.add_flag("--allow-unsafe", o->allow_unsafe,
               "Run a grid larger than can be resident at once: every software barrier deadlocks, its deadline "
               "ends it, and the report names the blocks that never arrived");
  sub.add_option("--deadline-ms", o->deadline_ms,
                 "How long one spinning block waits before it gives up, 1.." + std::to_string(kMaxDeadlineMs) +
                     " ms (default " + std::to_string(kDefaultDeadlineMs) + ")")
      ->check([](const std::string& v) {
        return int_error("--deadline-ms", v, 1, kMaxDeadlineMs, "milliseconds").value_or("");
      });
  sub.callback([o] {
    if (const auto e = combination_error(*o, false)) throw CLI::ValidationError(*e);
  });
  return [o](const RunContext& ctx) { return run(*o, ctx); };
}

}  // namespace cudasync::lockfree_barrier
