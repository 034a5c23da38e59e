// lock: options, validation, and the run that asks the GPU (when there is one) and the reference
// model the same questions. Sections are built in lock_sections.cpp.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>

#include "core/child_process.hpp"
#include "core/errors.hpp"
#include "core/kernel_listing.hpp"
#include "techniques/lock/lock_copy.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lock/lock_model.hpp"
#include "techniques/lock/lock_sections.hpp"
#if CUDASYNC_HAVE_CUDA
#include "techniques/lock/lock_gpu.hpp"
#endif

namespace cudasync::lock {

namespace {

constexpr int kTimedReps = 5;      // launches timed per part in a plain run
constexpr int kBenchReps = 9;      // per lock and contention level under --bench
constexpr long long kBenchUpdates = 16384;  // updates per bench launch (iterations adjust)
// Part 6 runs the CAS lock beside the combining lock for its time per handoff: as many iterations
// as give about kBenchUpdates handoffs, and only up to 132 x 128 threads (at about 20 us per
// contended handoff there, more threads would take seconds per launch).
constexpr long long kCasCompareThreads = 132 * 128;
constexpr int kTraceLanes = 4;

bool selected(const std::vector<std::string>& parts, const std::string& part) {
  return parts.empty() || std::find(parts.begin(), parts.end(), part) != parts.end();
}
bool any_selected(const std::vector<std::string>& parts, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return selected(parts, n); });
}

std::string acquisitions_error(const std::string& part, int blocks, int threads, int iters) {
  const long long n = static_cast<long long>(blocks) * threads * iters;
  if (n <= kMaxAcquisitions) return "";
  return part + ": " + grid_text(blocks, threads) + " x " + std::to_string(iters) + " iterations is " +
         std::to_string(n) + " lock acquisitions in one launch, more than " + std::to_string(kMaxAcquisitions) +
         " (several seconds of a contended lock); give fewer --iters or --blocks";
}

// stale-reads: 4 runs of each variant, fewer when one launch is big (about a million acquisitions
// per variant at most), so that the issue's --blocks 132 --iters 10000 takes seconds, not minutes.
int stale_runs(const Options& o) {
  if (o.runs) return *o.runs;
  const long long per_launch = static_cast<long long>(o.blocks.value_or(kStaleBlocks)) * o.iters.value_or(kStaleIters);
  return static_cast<int>(std::clamp<long long>((1LL << 20) / per_launch, 1, kStaleRuns));
}

// The schedulers of a part's traces: --model's, else both for warp-deadlock, lockstep for
// thread-lock (where it is the point), independent for combining (where one thread serves others).
enum class TraceDefault { both, lockstep, independent };
std::vector<Regime> regimes_of(const Options& o, TraceDefault d) {
  if (o.model) return {*parse_regime(*o.model)};
  if (d == TraceDefault::both) return {Regime::lockstep, Regime::independent};
  return {d == TraceDefault::lockstep ? Regime::lockstep : Regime::independent};
}

// The setup section's list: the schedulers of every trace the selected parts show.
std::vector<Regime> trace_regimes(const Options& o) {
  bool lockstep = false, independent = false;
  const auto add = [&](TraceDefault d) {
    for (Regime g : regimes_of(o, d)) (g == Regime::lockstep ? lockstep : independent) = true;
  };
  if (selected(o.parts, "warp-deadlock")) add(TraceDefault::both);
  if (selected(o.parts, "thread-lock")) add(TraceDefault::lockstep);
  if (selected(o.parts, "combining")) add(TraceDefault::independent);
  if (!lockstep && !independent) add(TraceDefault::lockstep);
  std::vector<Regime> out;
  if (lockstep) out.push_back(Regime::lockstep);
  if (independent) out.push_back(Regime::independent);
  return out;
}

SimResult sim(Protocol p, Regime r, int blocks, int threads, int iters, int trace_rows = 0) {
  SimConfig c;
  c.protocol = p;
  c.regime = r;
  c.blocks = blocks;
  c.threads = threads;
  c.iters = iters;
  c.trace_lanes = kTraceLanes;
  c.trace_rows = trace_rows;
  return simulate(c);
}

std::string device_text(const RunContext& ctx) {
  if (!ctx.device) return "";
  const DeviceInfo& d = *ctx.device;
  return "GPU " + std::to_string(d.index) + ", " + d.name + ", " + std::to_string(d.sm_count) + " SMs, cc " + d.cc_string();
}

// The hidden child of the copy-destructor part: the seed's callKernel(), then one answer in the file.
report::Report run_copy_child(const Options& o, const RunContext& ctx) {
  report::Report r;
  r.technique = "lock";
  r.title = "lock: copy-destructor child process";
  std::string text;
#if CUDASYNC_HAVE_CUDA
  if (!ctx.gpu) throw NoGpuError("--copy-child needs the GPU backend");
  try {
    text = format_copy_observation(gpu_copy_bug(kCopyBlocks, kCopyIters, kCopyDeadlineNs));
  } catch (const Error& e) {
    text = format_copy_error(e.what());
  }
#else
  (void)ctx;
  throw NoGpuError("this cudasync was built without CUDA");
#endif
  std::ofstream f(o.copy_child);
  if (!f) throw UsageError("--copy-child " + o.copy_child + ": cannot write the file");
  f << text;
  return r;
}

// Part 6: the combining lock and, for the ratio, the CAS lock at the same grid. The model's trace
// runs a few blocks of one thread (or a few lanes of one block, when the part runs wider blocks).
report::Section combining_part(const Options& o, bool gpu) {
  CombiningPart p;
  p.spec = RunSpec::of(Variant::combining, o.blocks.value_or(kCombiningBlocks), o.threads.value_or(kCombiningThreads),
                     o.iters.value_or(kCombiningIters));
  const bool by_block = p.spec.threads == 1;
  const int few_blocks = by_block ? std::min(kTraceLanes, p.spec.blocks) : 1;
  const int few_threads = by_block ? 1 : std::min(kTraceLanes, p.spec.threads);
  p.lockstep = sim(Protocol::combining, Regime::lockstep, 1, kWarpSize, 1);
  p.independent = sim(Protocol::combining, Regime::independent, few_blocks, few_threads, 2);
  for (Regime g : regimes_of(o, TraceDefault::independent))
    p.traces.push_back(sim(Protocol::combining, g, few_blocks, few_threads, 2, 40));
  if (p.spec.threads_total() <= kCasCompareThreads)
    p.cas = RunSpec::of(Variant::fenced, p.spec.blocks, p.spec.threads,
                      static_cast<int>(std::clamp<long long>(kBenchUpdates / p.spec.threads_total(), 1, p.spec.iters)));
#if CUDASYNC_HAVE_CUDA
  if (gpu) {
    p.gpu = gpu_runs(p.spec, kTimedReps);
    if (p.cas.iters > 0) p.gpu_cas = gpu_runs(p.cas, kTimedReps);
  }
#else
  (void)gpu;
#endif
  return combining_section(p, gpu);
}

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

report::Report bench(const RunContext& ctx) {
  report::Report r;
  r.technique = "lock";
  r.title = "lock --bench: contended handoff of the CAS lock, test-and-test-and-set, back-off, ticket, "
            "warp-aggregated and combining locks";
  Setup setup;
  setup.gpu = ctx.gpu;
  setup.device = device_text(ctx);
  setup.parts = {"bench"};
  setup.regimes = {Regime::lockstep, Regime::independent};
  r.sections.push_back(setup_section(setup));
  BenchPart b;
  b.locks = {Variant::book,   Variant::fenced, Variant::acq_rel,         Variant::ttas,     Variant::ttas_same_line,
             Variant::backoff, Variant::ticket, Variant::warp_aggregated, Variant::combining};
  b.configs = bench_configs();
  b.reps = kBenchReps;
  for (Variant v : b.locks)
    for (const auto& c : b.configs) {
      BenchCell cell{v, c, {}};
#if CUDASYNC_HAVE_CUDA
      if (ctx.gpu) {
        cell.gpu = gpu_runs(RunSpec::of(v, c.blocks, c.threads, c.iters), kBenchReps);
      }
#endif
      b.cells.push_back(std::move(cell));
    }
  for (Protocol p : {Protocol::fenced, Protocol::acq_rel, Protocol::ttas, Protocol::backoff, Protocol::ticket,
                     Protocol::warp_aggregated, Protocol::combining})
    for (Regime g : {Regime::lockstep, Regime::independent}) b.verdicts.push_back(sim(p, g, 1, kTraceLanes, 1));
  r.sections.push_back(bench_section(b, ctx.gpu));
  return r;
}

}  // namespace

std::optional<std::string> combination_error(const Options& o, bool bench) {
  if (!o.copy_child.empty()) return std::nullopt;
  if (bench) {
    std::string given;
    if (!o.parts.empty()) given = "--part";
    else if (o.blocks) given = "--blocks";
    else if (o.threads) given = "--threads";
    else if (o.iters) given = "--iters";
    else if (o.runs) given = "--runs";
    else if (o.model) given = "--model";
    if (!given.empty())
      return given + " is not used by --bench, which runs every lock at its own contention levels (blocks x threads "
                     "from 1 x 1 to 132 x 128); leave " + given + " out, or drop --bench";
    return std::nullopt;
  }
  if (o.model) {
    if (!parse_regime(*o.model))
      return "--model " + *o.model + ": accepted lockstep (one program counter per warp, pre-Volta) or independent "
                                    "(Volta and newer)";
    if (o.backend_gpu_asked)
      return "--model " + *o.model + " chooses the warp scheduling of the reference model's traces, and --backend gpu "
                                    "asks for the GPU alone; use --backend model, or leave --backend at auto to see "
                                    "the GPU and the model side by side";
    if (!any_selected(o.parts, {"warp-deadlock", "thread-lock", "combining"}))
      return "--model chooses the scheduling of the warp-deadlock, thread-lock and combining traces; add --part "
             "warp-deadlock, --part thread-lock or --part combining";
  }
  if (o.blocks && !any_selected(o.parts, {"lock-class", "stale-reads", "thread-lock", "combining"}))
    return "--blocks sets the grid of lock-class, stale-reads, thread-lock and combining; warp-deadlock runs one "
           "block and copy-destructor its own small grid. Add one of those parts";
  if (o.threads && !any_selected(o.parts, {"warp-deadlock", "thread-lock", "combining"}))
    return "--threads sets the block of warp-deadlock, thread-lock and combining (lock-class and stale-reads run one "
           "thread per block, as the seed's kernel<<<N, 1>>>). Add one of those parts";
  if (o.runs && !selected(o.parts, "stale-reads"))
    return "--runs is how often stale-reads launches each variant; add --part stale-reads";
  if (o.iters && !any_selected(o.parts, {"lock-class", "warp-deadlock", "stale-reads", "thread-lock", "combining"}))
    return "--iters sets the acquisitions per thread of lock-class, warp-deadlock, stale-reads, thread-lock and "
           "combining; copy-destructor runs its own. Add one of those parts";
  const auto check = [&](const char* part, int blocks, int threads, int iters) -> std::optional<std::string> {
    if (!selected(o.parts, part)) return std::nullopt;
    const std::string e = acquisitions_error(std::string("--part ") + part, blocks, threads, iters);
    return e.empty() ? std::nullopt : std::optional<std::string>(e);
  };
  if (auto e = check("lock-class", o.blocks.value_or(kClassBlocks), 1, o.iters.value_or(kClassIters))) return e;
  if (auto e = check("warp-deadlock", 1, o.threads.value_or(128), o.iters.value_or(kWarpIters))) return e;
  if (auto e = check("stale-reads", o.blocks.value_or(kStaleBlocks), 1, o.iters.value_or(kStaleIters))) return e;
  if (selected(o.parts, "stale-reads")) {
    const int runs = stale_runs(o), blocks = o.blocks.value_or(kStaleBlocks),
              iters = o.iters.value_or(kStaleIters);
    const long long total = static_cast<long long>(runs) * blocks * iters * 4;
    if (total > kMaxPartAcquisitions)
      return "--part stale-reads: 4 variants x " + std::to_string(runs) + " runs x " + grid_text(blocks, 1) + " x " +
             std::to_string(iters) + " iterations is " + std::to_string(total) + " lock acquisitions, more than " +
             std::to_string(kMaxPartAcquisitions) + " (tens of seconds); give fewer --runs, --blocks or --iters";
  }
  if (auto e = check("thread-lock", o.blocks.value_or(kThreadLockBlocks), o.threads.value_or(kThreadLockThreads),
                     o.iters.value_or(kThreadLockIters)))
    return e;
  if (auto e = check("combining", o.blocks.value_or(kCombiningBlocks), o.threads.value_or(kCombiningThreads),
                     o.iters.value_or(kCombiningIters)))
    return e;
  return std::nullopt;
}

report::Report run(const Options& o, const RunContext& ctx) {
  if (const auto e = combination_error(o, ctx.bench)) throw UsageError(*e);
#if !CUDASYNC_HAVE_CUDA
  if (ctx.gpu) throw NoGpuError("this cudasync was built without CUDA");
#endif
  if (!o.copy_child.empty()) return run_copy_child(o, ctx);
  if (ctx.bench) return bench(ctx);
  const bool gpu = ctx.gpu;

  // The child of part 4 starts first and runs while this process does the other parts.
  std::unique_ptr<ChildProcess> child;
  std::optional<CopyOutcome> child_outcome;
  if (gpu && selected(o.parts, "copy-destructor")) {
    try {
      child = std::make_unique<ChildProcess>(
          self_executable(),
          std::vector<std::string>{"lock", "--copy-child", ChildProcess::kOutToken, "--backend", "gpu", "--device",
                                   std::to_string(ctx.device->index), "--color", "never", "-q"},
          std::chrono::milliseconds(20000), "lock_copy");
    } catch (const std::runtime_error& e) {
      CopyOutcome failed;
      failed.message = e.what();
      child_outcome = failed;
    }
  }

  report::Report r;
  r.technique = "lock";
  r.title = "lock: the CUDA-by-Example spin lock, its four pitfalls on a real GPU, and locks that are correct and fast";
  Setup setup;
  setup.gpu = gpu;
  setup.device = device_text(ctx);
  for (const auto& p : kParts)
    if (selected(o.parts, p)) setup.parts.push_back(p);
  setup.regimes = trace_regimes(o);
  r.sections.push_back(setup_section(setup));
  const KernelListing& listing = kernel_listing();
  const std::string arch = listing_sass_arch(listing, gpu ? ctx.device->compute_capability() : 0);

  if (selected(o.parts, "lock-class")) {
    ClassPart p;
    p.spec = RunSpec::of(Variant::book_atomic_add, o.blocks.value_or(kClassBlocks), 1, o.iters.value_or(kClassIters));
    p.model = sim(Protocol::book_atomic_add, Regime::independent, 3, 1, 2);
    p.model_plain = sim(Protocol::book, Regime::independent, 3, 1, 2);
#if CUDASYNC_HAVE_CUDA
    if (gpu) {
      p.gpu = gpu_runs(p.spec, kTimedReps);
      RunSpec plain = p.spec;
      plain.variant = Variant::book;
      p.gpu_plain = gpu_runs(plain, kTimedReps, false);
    }
#endif
    r.sections.push_back(lock_class_section(p, gpu));
  }
  if (selected(o.parts, "warp-deadlock")) {
    WarpPart p;
    std::vector<int> sizes = o.threads ? std::vector<int>{*o.threads} : std::vector<int>{32, 128};
    for (int threads : sizes) {
      WarpCase c;
      c.spec = RunSpec::of(Variant::lock_functions, 1, threads, o.iters.value_or(kWarpIters));
      c.lockstep = sim(Protocol::lock_functions, Regime::lockstep, 1, threads, 1);
      c.independent = sim(Protocol::lock_functions, Regime::independent, 1, threads, 1);
#if CUDASYNC_HAVE_CUDA
      if (gpu) c.gpu = gpu_run(c.spec);
#endif
      p.cases.push_back(std::move(c));
    }
    for (Regime g : regimes_of(o, TraceDefault::both))
      p.traces.push_back(sim(Protocol::lock_functions, g, 1, std::min(kTraceLanes, sizes.front()), 1, 40));
    const auto sass = lesson_sass(listing, arch, "lock_functions_kernel");
    if (!sass.empty()) {
      std::string ops;
      for (const auto& i : sass) ops += (ops.empty() ? "" : ", ") + i;
      p.sass_note = "lock_functions_kernel in this build's SASS (" + arch + "), its fences and sleeps: " + ops;
    }
    r.sections.push_back(warp_deadlock_section(p, gpu));
  }
  if (selected(o.parts, "stale-reads")) {
    StalePart p;
    p.spec.blocks = o.blocks.value_or(kStaleBlocks);
    p.spec.threads = 1;
    p.spec.iters = o.iters.value_or(kStaleIters);
    p.spec.deadline_ns = deadline_for(p.spec.acquisitions());
    p.runs = stale_runs(o);
    p.arch = listing.available ? arch : "";
    for (Variant v : {Variant::book, Variant::book_atomic_add, Variant::fenced, Variant::acq_rel}) {
      StaleRow row;
      row.variant = v;
      row.model = sim(protocol_of(v), Regime::independent, 2, 1, 2);
      row.compiled = lesson_sass(listing, arch, kernel_name(v));
#if CUDASYNC_HAVE_CUDA
      if (gpu) {
        RunSpec spec = p.spec;
        spec.variant = v;
        row.gpu = gpu_runs(spec, p.runs, false);
      }
#endif
      p.rows.push_back(std::move(row));
    }
    p.trace = sim(Protocol::book, Regime::independent, 2, 1, 2, 40);
    r.sections.push_back(stale_reads_section(p, gpu));
  }
  if (selected(o.parts, "copy-destructor")) {
    CopyPart p;
    if (child) child_outcome = copy_outcome(child->finish());
    p.child = child_outcome;
#if CUDASYNC_HAVE_CUDA
    if (gpu) {
      try {
        p.fixes = gpu_copy_fixes(kCopyBlocks, kCopyIters, kCopyDeadlineNs);
      } catch (const Error& e) {
        p.fixes_error = e.what();
      }
    }
#endif
    r.sections.push_back(copy_destructor_section(p, gpu));
  }
  if (selected(o.parts, "thread-lock")) {
    ThreadLockPart p;
    p.spec = RunSpec::of(Variant::thread_lock, o.blocks.value_or(kThreadLockBlocks), o.threads.value_or(kThreadLockThreads),
                       o.iters.value_or(kThreadLockIters));
    p.lockstep = sim(Protocol::thread_lock, Regime::lockstep, 1, 32, 1);
    p.independent = sim(Protocol::thread_lock, Regime::independent, 1, 32, 1);
    for (Regime g : regimes_of(o, TraceDefault::lockstep))
      p.traces.push_back(sim(Protocol::thread_lock, g, 1, std::min(kTraceLanes, p.spec.threads), 1, 40));
#if CUDASYNC_HAVE_CUDA
    if (gpu) p.gpu = gpu_runs(p.spec, kTimedReps);
#endif
    r.sections.push_back(thread_lock_section(p, gpu));
  }
  if (selected(o.parts, "combining")) r.sections.push_back(combining_part(o, gpu));
  return r;
}

cli::Runner attach(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  std::string parts_help = "Which parts to run, comma-separated, in the seed's order (default: every part):";
  for (const auto& p : kParts) parts_help += " " + p;
  sub.add_option("--part", o->parts, parts_help)->delimiter(',')->check(CLI::IsMember(kParts));
  sub.add_option("--blocks", o->blocks,
                 "Contending blocks of lock-class and stale-reads (default 132, one thread each), the grid of "
                 "thread-lock (default 4) and of combining (default 132): 1.." + std::to_string(kMaxBlocks))
      ->check(CLI::Range(1, kMaxBlocks));
  sub.add_option("--threads", o->threads,
                 "Threads of the one block of warp-deadlock (default: 32, then 128), the blocks of thread-lock "
                 "(default 128) and of combining (default 1): 1.." + std::to_string(kMaxBlockThreads))
      ->check(CLI::Range(1, kMaxBlockThreads));
  sub.add_option("--iters", o->iters,
                 "Lock acquisitions per thread (default: lock-class 100, warp-deadlock 10, stale-reads 50, "
                 "thread-lock 20, combining 100 requests): 1.." + std::to_string(kMaxIters))
      ->check(CLI::Range(1, kMaxIters));
  sub.add_option("--runs", o->runs,
                 "stale-reads: launches of each variant (default 4, fewer when --blocks x --iters is over 2^18): 1.." +
                     std::to_string(kMaxRuns))
      ->check(CLI::Range(1, kMaxRuns));
  sub.add_option("--model", o->model,
                 "Warp scheduling of the model's step-by-step traces: lockstep (pre-Volta) or independent (Volta and "
                 "newer); default: both for warp-deadlock, lockstep for thread-lock, independent for combining. Not "
                 "with --backend gpu")
      ->check(CLI::IsMember({"lockstep", "independent"}));
  sub.add_option("--copy-child", o->copy_child)->group("");  // hidden: the copy-destructor part's child process
  CLI::App* parent = sub.get_parent();
  sub.callback([o, parent] {
    bool bench = false;
    if (parent) {
      const CLI::Option* backend = parent->get_option_no_throw("--backend");
      if (backend && backend->count() > 0) {
        std::string v = backend->results().back();
        std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        o->backend_gpu_asked = v == "gpu";
      }
      const CLI::Option* b = parent->get_option_no_throw("--bench");
      bench = b && b->count() > 0;
    }
    if (const auto e = combination_error(*o, bench)) throw CLI::ValidationError(*e);
  });
  return [o](const RunContext& ctx) { return run(*o, ctx); };
}

}  // namespace cudasync::lock
