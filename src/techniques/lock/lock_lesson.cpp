// lock: options, validation, the run's shared state, the setup section, names, and the part table.
#include "techniques/lock/lock_lesson.hpp"

#include <algorithm>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "core/kernel_listing.hpp"
#include "core/parts/child.hpp"

namespace cudasync::lock {

namespace {

void add_options(CLI::App& sub, Options& o) {
  sub.add_option("--blocks", o.blocks,
                 "Contending blocks of lock-class, stale-reads and delay-fix (default 132, one thread each), the "
                 "grid of thread-lock (default 4) and of combining (default 132): 1.." + std::to_string(kMaxBlocks))
      ->check(CLI::Range(1, kMaxBlocks));
  sub.add_option("--threads", o.threads,
                 "Threads of the one block of warp-deadlock (default: 32, then 128), the blocks of thread-lock "
                 "(default 128) and of combining (default 1): 1.." + std::to_string(kMaxBlockThreads))
      ->check(CLI::Range(1, kMaxBlockThreads));
  sub.add_option("--iterations", o.iterations,
                 "Lock acquisitions per thread (default: lock-class 100, warp-deadlock 10, stale-reads 50, "
                 "delay-fix 20, thread-lock 20, combining 100 requests): 1.." + std::to_string(kMaxIters))
      ->check(CLI::Range(1, kMaxIters));
  sub.add_option("--runs", o.runs,
                 "stale-reads and delay-fix: launches of each variant (stale-reads: default 4, fewer when --blocks x "
                 "--iterations is over 2^18; delay-fix: default 2): 1.." + std::to_string(kMaxRuns))
      ->check(CLI::Range(1, kMaxRuns));
  sub.add_option("--delays", o.delays,
                 "delay-fix: the delays to try inside the critical section, ns, comma-separated (default 1000,10000): "
                 "each 1.." + std::to_string(kMaxDelayNs))
      ->delimiter(',')
      ->check(CLI::Range(1, kMaxDelayNs));
  sub.add_option("--model", o.model,
                 "Warp scheduling the reference model runs (its checks and step-by-step traces): lockstep "
                 "(pre-Volta) or independent (Volta and newer); default: both, with traces of both for "
                 "warp-deadlock, lockstep for thread-lock, independent for combining. Not with --backend gpu")
      ->check(CLI::IsMember({"lockstep", "independent"}));
}

std::optional<std::string> validate(const Options& o, const parts::Selection& sel, const RunContext& ctx) {
  if (o.model && ctx.backend_request == BackendRequest::gpu)
    return "--model " + *o.model + " chooses the warp scheduling of the reference model, and --backend gpu asks "
                                   "for the GPU alone; accepted: --model with --backend model, or with --backend "
                                   "auto to see the GPU and the model side by side";
  const auto check = [&](const char* part, int blocks, int threads, int iterations) -> std::optional<std::string> {
    if (!sel.has(part)) return std::nullopt;
    return acquisitions_error(std::string("--part ") + part, blocks, threads, iterations);
  };
  const int iters = o.iterations.value_or(0);
  if (auto e = check("lock-class", o.blocks.value_or(kClassBlocks), 1, iters ? iters : kClassIters)) return e;
  if (auto e = check("warp-deadlock", 1, o.threads.value_or(128), iters ? iters : kWarpIters)) return e;
  const int stale_blocks = o.blocks.value_or(kStaleBlocks), stale_iters = iters ? iters : kStaleIters;
  if (auto e = check("stale-reads", stale_blocks, 1, stale_iters)) return e;
  if (sel.has("stale-reads")) {
    const int runs = stale_runs(o.runs, stale_blocks, stale_iters);
    const long long total = static_cast<long long>(runs) * stale_blocks * stale_iters * 4;
    if (total > kMaxPartAcquisitions)
      return "--part stale-reads: 4 variants x " + std::to_string(runs) + " runs x " + grid_text(stale_blocks, 1) +
             " x " + std::to_string(stale_iters) + " iterations is " + std::to_string(total) +
             " lock acquisitions, more than " + std::to_string(kMaxPartAcquisitions) +
             " (tens of seconds); accepted: at most " + std::to_string(kMaxPartAcquisitions) +
             " in all: give fewer --runs, --blocks or --iterations";
  }
  if (sel.has("delay-fix")) {
    const int blocks = o.blocks.value_or(kDelayBlocks), delay_iters = iters ? iters : kDelayIters;
    if (auto e = check("delay-fix", blocks, 1, delay_iters)) return e;
    if (auto e = delay_budget_error(o.delays.value_or(kDefaultDelaysNs), o.runs.value_or(kDelayRuns), blocks, delay_iters))
      return e;
  }
  if (auto e = check("thread-lock", o.blocks.value_or(kThreadLockBlocks), o.threads.value_or(kThreadLockThreads),
                     iters ? iters : kThreadLockIters))
    return e;
  return check("combining", o.blocks.value_or(kCombiningBlocks), o.threads.value_or(kCombiningThreads),
               iters ? iters : kCombiningIters);
}

void setup(Run& run, report::Section& s) {
  s.title = say("setup.title");
  s.paragraph(say("setup.about"));
  std::string regimes;
  for (Regime r : run.trace_regimes) regimes += (regimes.empty() ? "" : ", ") + std::string(simt::to_string(r));
  s.fact("model-traces", say("setup.model-traces"), regimes, report::Format::plain, say("setup.model-traces-note"));
  s.fact("deadline-s", say("setup.deadline"), static_cast<std::int64_t>(kDefaultDeadlineNs / 1000000000ull),
         report::Format::count, say("setup.deadline-note", {{"max", kMaxDeadlineNs / 1000000000ull}}));
}

// The schedulers of every trace the selected parts show (lockstep alone when none shows one).
std::vector<Regime> trace_regimes(const Run& run, const parts::Selection& sel) {
  if (sel.bench) return {Regime::lockstep, Regime::independent};
  std::vector<Regime> all;
  if (sel.has("warp-deadlock")) all = run.traced({});
  if (sel.has("thread-lock"))
    for (Regime g : run.traced({Regime::lockstep})) all.push_back(g);
  if (sel.has("combining"))
    for (Regime g : run.traced({Regime::independent})) all.push_back(g);
  if (all.empty()) all = run.traced({Regime::lockstep});
  std::vector<Regime> out;
  for (Regime g : {Regime::lockstep, Regime::independent})
    if (std::find(all.begin(), all.end(), g) != all.end()) out.push_back(g);
  return out;
}

}  // namespace

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : ctx(run_ctx), options(o) {
  const KernelListing& listing = kernel_listing();
  if (listing.available) arch = listing_sass_arch(listing, ctx.gpu ? ctx.compute_capability() : 0);
  trace_regimes = lock::trace_regimes(*this, selection);
  // The copy-destructor child starts first and runs while this process does the other parts. It
  // tells its steps in this run's language.
  if (ctx.gpu && selection.has("copy-destructor") && !selection.child) {
    try {
      copy_child = parts::start_child(ctx, "lock", "copy", {}, kCopyChildTimeout);
    } catch (const std::runtime_error& e) {
      CopyOutcome failed;
      failed.message = e.what();
      copy_start_failed = failed;
    }
  }
}

std::vector<Regime> Run::checked() const {
  if (options.model) return {*simt::parse_scheduling(*options.model)};
  return {Regime::lockstep, Regime::independent};
}

bool Run::checks(Regime r) const {
  const auto c = checked();
  return std::find(c.begin(), c.end(), r) != c.end();
}

std::vector<std::string> Run::sass(const std::string& kernel) const {
  const KernelCode* k = find_kernel(kernel_listing().sass, arch, "lock", kernel);
  return k ? k->instructions : std::vector<std::string>{};
}

std::vector<Regime> Run::traced(std::vector<Regime> fallback) const {
  if (options.model) return checked();
  return fallback.empty() ? std::vector<Regime>{Regime::lockstep, Regime::independent} : fallback;
}

SimResult sim(Protocol p, Regime r, int blocks, int threads, int iterations, int trace_rows) {
  SimConfig c;
  c.protocol = p;
  c.regime = r;
  c.blocks = blocks;
  c.threads = threads;
  c.iters = iterations;
  c.trace_lanes = kTraceLanes;
  c.trace_rows = trace_rows;
  return simulate(c);
}

std::string variant_name(Variant v) {
  switch (v) {
    case Variant::book: return say("variant.book");
    case Variant::book_atomic_add: return say("variant.book-atomic-add");
    case Variant::lock_functions: return say("variant.lock-functions");
    case Variant::fenced: return say("variant.fenced");
    case Variant::acq_rel: return say("variant.acq-rel");
    case Variant::thread_lock: return say("variant.thread-lock");
    case Variant::backoff: return say("variant.backoff");
    case Variant::ticket: return say("variant.ticket");
    case Variant::warp_aggregated: return say("variant.warp-aggregated");
    case Variant::combining: return say("variant.combining");
    case Variant::ttas: return say("variant.ttas");
    case Variant::ttas_same_line: return say("variant.ttas-same-line");
    case Variant::delay_after: return say("variant.delay-after");
    case Variant::delay_before: return say("variant.delay-before");
  }
  return "";
}

std::string bench_name(Variant v) {
  switch (v) {
    case Variant::book: return say("variant.bench-book");
    case Variant::fenced: return say("variant.bench-cas");
    case Variant::acq_rel: return say("variant.bench-acq-rel");
    default: return variant_name(v);
  }
}

const char* bench_id(Variant v) {
  switch (v) {
    case Variant::book: return "book";
    case Variant::book_atomic_add: return "book-atomic-add";
    case Variant::lock_functions: return "lock-functions";
    case Variant::fenced: return "cas";
    case Variant::acq_rel: return "acq-rel";
    case Variant::thread_lock: return "thread-lock";
    case Variant::backoff: return "backoff";
    case Variant::ticket: return "ticket";
    case Variant::warp_aggregated: return "warp-aggregated";
    case Variant::combining: return "combining";
    case Variant::ttas: return "ttas";
    case Variant::ttas_same_line: return "ttas-same-line";
    case Variant::delay_after: return "delay-after";
    case Variant::delay_before: return "delay-before";
  }
  return "";
}

const char* kernel_name(Variant v) {
  switch (v) {
    case Variant::book: return "book_kernel";
    case Variant::book_atomic_add: return "book_atomic_add_kernel";
    case Variant::lock_functions: return "lock_functions_kernel";
    case Variant::fenced: return "fenced_kernel";
    case Variant::acq_rel: return "acq_rel_kernel";
    case Variant::thread_lock: return "thread_lock_kernel";
    case Variant::backoff: return "backoff_kernel";
    case Variant::ticket: return "ticket_kernel";
    case Variant::warp_aggregated: return "warp_aggregated_kernel";
    case Variant::combining: return "combining_kernel";
    case Variant::ttas:
    case Variant::ttas_same_line: return "ttas_kernel";
    case Variant::delay_after: return "delay_kernel<true>";
    case Variant::delay_before: return "delay_kernel<false>";
  }
  return "";
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "lock",
      "lock: the CUDA-by-Example spin lock, its four pitfalls on a real GPU, and locks that are correct and fast",
      "the CUDA-by-Example spin lock (App. A), its four pitfalls on the GPU, and faster correct locks",
      {
          {"lock-class", "the lock class", "the blog's CudaKernelLock as kernel<<<N, 1>>>: counts and time per handoff",
           {"--blocks", "--iterations"}, false, false, true, lock_class_part},
          {"warp-deadlock", "warp deadlock", "lock() / unlock() by every lane of a warp: lockstep against independent",
           {"--threads", "--iterations", "--model"}, false, false, true, warp_deadlock_part},
          {"stale-reads", "stale reads", "*cnt = *cnt + 1 under the lock with no fence: lost updates and three fixes",
           {"--blocks", "--iterations", "--runs"}, false, false, true, stale_reads_part},
          {"delay-fix", "the delay remedy", "the blog's \"add a delay\": still lost updates, beside the real fixes",
           {"--blocks", "--iterations", "--runs", "--delays"}, false, false, true, delay_fix_part},
          {"copy-destructor", "copy and destructor", "the lock passed by value frees its mutex (a child process)",
           {}, true, true, true, copy_destructor_part},
          {"shared-mutex", "a shared Mutex", "the blog's fix 2: a Mutex class held by std::shared_ptr, freed once",
           {}, true, false, true, shared_mutex_part},
          {"thread-lock", "the true thread lock", "acquire, work and release in one loop iteration: no warp deadlock",
           {"--blocks", "--threads", "--iterations", "--model"}, false, false, true, thread_lock_part},
          {"combining", "combining lock", "beyond the blog: one lock handoff serves many critical sections",
           {"--blocks", "--threads", "--iterations", "--model"}, false, false, true, combining_part},
      },
      add_options,
      validate,
      setup,
      {},
      parts::Bench<Run>{"every lock at contention levels from 1 x 1 to 132 x 128 threads, ns per update", {}, bench},
      {{"copy", copy_child}},
      predictions()};
  return table;
}

}  // namespace cudasync::lock
