// cg-reduce: options, validation, and the run that asks the GPU (when there is one) and the
// reference model for the same sums. Sections are built in cg_reduce_sections.cpp.
#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "core/errors.hpp"
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"
#include "techniques/cg_reduce/cg_reduce_sections.hpp"
#if CUDASYNC_HAVE_CUDA
#include "techniques/cg_reduce/cg_reduce_gpu.hpp"
#endif

namespace cudasync::cg_reduce {

namespace {

constexpr std::array<Kernel, kKernelCount> kLadder = {
    Kernel::shared_atomic,     Kernel::syncwarp_atomic, Kernel::shfl_down_atomic,   Kernel::shfl_xor_atomic,
    Kernel::tile_shfl_down_atomic, Kernel::cg_reduce_atomic, Kernel::two_pass_seed, Kernel::two_pass_occupancy,
    Kernel::two_pass_vector,   Kernel::static_buffer,   Kernel::grid_sync,          Kernel::cub_sum};

constexpr int kReps = 10;        // timed calls per kernel in a plain run
constexpr int kBenchReps = 20;   // per kernel and size under --bench
constexpr int kBenchWarmup = 3;

bool selected(const std::vector<std::string>& variants, const std::string& v) {
  return variants.empty() || std::find(variants.begin(), variants.end(), v) != variants.end();
}

std::vector<Kernel> kernels_for(const Options& o) {
  std::vector<Kernel> ks;
  for (Kernel k : kLadder)
    if (selected(o.variants, rung_of(k))) ks.push_back(k);
  return ks;
}

std::string pow2_name(std::int64_t v) {
  int l = 0;
  while ((std::int64_t{1} << l) < v) ++l;
  return std::to_string(v) + " (2^" + std::to_string(l) + ")";
}


std::optional<std::string> n_error(const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != text.size()) return "'" + text + "' is not a whole number of elements";
  if (v <= 0) return text + " elements: give at least 1";
  if (v > kMaxN)
    return text + " is more than " + pow2_name(kMaxN) +
           ", the most the seed's kernels handle (they index with int); give 1.." + std::to_string(kMaxN);
  return std::nullopt;
}

bool power_of_two_block(int b) { return b >= 32 && b <= 1024 && (b & (b - 1)) == 0; }

// Which rungs share one model computation (the model is the same for all atomic rungs).
int order_class(Kernel k) {
  switch (k) {
    case Kernel::two_pass_seed:
    case Kernel::static_buffer: return 1;
    case Kernel::two_pass_occupancy: return 2;
    case Kernel::two_pass_vector: return 3;
    case Kernel::grid_sync: return 4;
    case Kernel::cub_sum: return 5;
    default: return 0;
  }
}

Plan plan_for(const Options& o, const RunContext& ctx, Dtype dtype, bool& cooperative) {
  Plan p = default_plan(o.block);
  cooperative = true;
#if CUDASYNC_HAVE_CUDA
  if (ctx.gpu) {
    const GpuGrids g = gpu_grids(dtype, o.block, ctx.device->index);
    const int fallback = ctx.device->sm_count;  // never 0, even if the occupancy API says so
    p.occupancy_grid = g.occupancy_grid > 0 ? g.occupancy_grid : fallback;
    p.vector_grid = g.vector_grid > 0 ? g.vector_grid : fallback;
    p.grid_sync_limit = g.grid_sync_limit;
    p.grid_sync_grid = g.grid_sync_limit > 0 ? g.grid_sync_limit : fallback;
    cooperative = g.cooperative_launch;
  }
#else
  (void)ctx;
  (void)dtype;
#endif
  if (o.grid) p.grid_sync_grid = *o.grid;
  return p;
}

std::string device_text(const RunContext& ctx) {
  if (!ctx.device) return "";
  const DeviceInfo& d = *ctx.device;
  return "GPU " + std::to_string(d.index) + ", " + d.name + ", " + std::to_string(d.sm_count) + " SMs, cc " + d.cc_string();
}

#if CUDASYNC_HAVE_CUDA
std::string mib(double bytes) {
  return std::to_string(static_cast<long long>(bytes / (1024.0 * 1024.0) + 0.5)) + " MiB";
}

// Device copies of the input to rotate through: enough that they span 4 x the L2 cache, at most 64,
// and never more than half the free memory.
int rotation_copies(std::int64_t bytes, const RunContext& ctx, std::size_t free_bytes) {
  if (!ctx.device || ctx.device->l2_bytes <= 0) return 1;
  const double want = 4.0 * ctx.device->l2_bytes / static_cast<double>(bytes);
  int copies = std::clamp(static_cast<int>(want + 0.999), 1, 64);
  while (copies > 1 && static_cast<double>(copies) * static_cast<double>(bytes) > 0.5 * static_cast<double>(free_bytes))
    --copies;
  return copies;
}

// The input plus the largest partial-sum array a rung uses must fit in device memory.
void check_device_memory(std::int64_t n, std::size_t elem, const Plan& p, std::size_t free_bytes, const RunContext& ctx,
                         const std::string& what) {
  const double input = static_cast<double>(n) * static_cast<double>(elem);
  const int sync_grid = p.grid_sync_limit > 0 ? std::min(p.grid_sync_grid, p.grid_sync_limit) : p.grid_sync_grid;
  const int grid = std::max({p.seed_grid, p.occupancy_grid, p.vector_grid, sync_grid});
  const double partials = static_cast<double>(grid) * static_cast<double>(elem);
  if (input + partials > 0.9 * static_cast<double>(free_bytes))
    throw UsageError(what + " needs " + mib(input) + " of device memory for the input and " + mib(partials) +
                     " for the partial sums; GPU " + std::to_string(ctx.device->index) + " has " +
                     mib(static_cast<double>(free_bytes)) + " free. Give a smaller --n");
}
#endif

template <typename T>
Dtype dtype_of() {
  return sizeof(T) == sizeof(float) ? Dtype::f32 : Dtype::f64;
}

template <typename T>
report::Report run_single(const Options& o, const RunContext& ctx) {
  const Dtype dtype = dtype_of<T>();
  bool cooperative = true;
  Problem s;
  s.dtype = dtype;
  s.n = o.n.value_or(kDefaultN);
  s.seed = ctx.seed;
  s.plan = plan_for(o, ctx, dtype, cooperative);
  s.gpu = ctx.gpu;
  s.device = device_text(ctx);
  s.reps = kReps;
  const Plan& plan = s.plan;
  const std::vector<Kernel> kernels = kernels_for(o);

#if CUDASYNC_HAVE_CUDA
  std::unique_ptr<GpuReduce<T>> gpu;
  if (ctx.gpu) {
    const std::size_t free_bytes = gpu_free_bytes();
    check_device_memory(s.n, sizeof(T), plan, free_bytes, ctx, "--n " + std::to_string(s.n));
    s.copies = rotation_copies(s.n * static_cast<std::int64_t>(sizeof(T)), ctx, free_bytes);
  }
#endif
  const std::vector<T> x = make_inputs<T>(s.n, ctx.seed);
  s.reference = exact_sum(x);
#if CUDASYNC_HAVE_CUDA
  if (ctx.gpu) gpu = std::make_unique<GpuReduce<T>>(x, s.copies);
#endif

  report::Report r;
  r.technique = "cg-reduce";
  r.title = "cg-reduce: the reduction ladder of seed 002 (10.2-10.5), rung by rung, against the model and CUB";

  std::map<int, ModelResult<T>> models;
  std::vector<KernelRun> runs;
  for (Kernel k : kernels) {
    auto it = models.find(order_class(k));
    if (it == models.end()) it = models.emplace(order_class(k), model_kernel(k, x, plan)).first;
    const ModelResult<T>& m = it->second;
    KernelRun kr;
    kr.kernel = k;
    kr.model_available = m.available;
    kr.fixed_order = m.fixed_order;
    kr.model = sum_of(m.sum);
    kr.depth = error_depth(k, s.n, plan, dtype);
    if (!m.block_sums.empty()) kr.order_bound = atomic_order_bound(m.block_sums);
#if CUDASYNC_HAVE_CUDA
    if (gpu) {
      if (k == Kernel::grid_sync && !cooperative) {
        kr.waived = "this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0)";
      } else {
        try {
          kr.gpu = sum_of(gpu->run(k, plan));
          kr.gpu_again = sum_of(gpu->run(k, plan));
          kr.ms = gpu->time_ms(k, plan, kReps, 2);
          if (k == Kernel::two_pass_seed || k == Kernel::static_buffer) kr.wrapper_us = gpu->wrapper_us(k, plan, kReps);
          if (k == Kernel::cub_sum) kr.cub_reduce_plus = sum_of(gpu->cub_reduce_plus());
        } catch (const WaivedError& e) {
          kr.waived = e.what();
        }
      }
      if (kr.waived) r.waived.push_back({"grid-sync", *kr.waived});
    }
#endif
    runs.push_back(kr);
  }

  r.sections.push_back(setup_section(s));
  for (const auto& v : kVariants)
    if (selected(o.variants, v)) r.sections.push_back(rung_section(v, runs, s));
  if (kernels.size() > 1) r.sections.push_back(ladder_section(runs, s));
  if (o.trace) {
    const Trace<T> model = model_trace(x, plan, o.trace_block.value_or(0), o.trace_warp.value_or(0));
    std::optional<Trace<T>> got;
#if CUDASYNC_HAVE_CUDA
    if (gpu) got = gpu->trace(plan, model.block_index, model.warp);
#endif
    r.sections.push_back(trace_section(model, got, s));
  }
  if (!ctx.gpu && o.grid && default_plan(o.block).grid_sync_grid < *o.grid)
    r.sections.back().notes.push_back(
        "--grid " + std::to_string(*o.grid) + " is more blocks than an H100 holds at once (" +
        std::to_string(default_plan(o.block).grid_sync_grid) + " of " + std::to_string(o.block) +
        " threads): on such a GPU the cooperative launch is refused, and a run of the grid-sync rung alone exits 77");
  const bool all_waived = std::all_of(runs.begin(), runs.end(), [](const KernelRun& k) { return k.waived.has_value(); });
  if (all_waived && !r.waived.empty()) r.sections.clear();
  return r;
}

template <typename T>
std::vector<report::Section> run_bench(const Options& o, const RunContext& ctx, const std::vector<int>& sizes,
                                       std::vector<report::Waiver>& waived) {
  const Dtype dtype = dtype_of<T>();
  bool cooperative = true;
  Problem s;
  s.dtype = dtype;
  s.seed = ctx.seed;
  s.plan = plan_for(o, ctx, dtype, cooperative);
  s.gpu = ctx.gpu;
  s.reps = kBenchReps;
  const std::vector<Kernel> kernels = kernels_for(o);
  std::vector<BenchRow> rows;
  for (Kernel k : kernels) rows.push_back({k, {}});
  for (int l : sizes) {
    const std::int64_t n = std::int64_t{1} << l;
    for (auto& row : rows) {
      BenchCell c;
      c.n = n;
      c.depth = error_depth(row.kernel, n, s.plan, dtype);
      row.cells.push_back(c);
    }
#if CUDASYNC_HAVE_CUDA
    if (!ctx.gpu) continue;
    const std::size_t free_bytes = gpu_free_bytes();
    check_device_memory(n, sizeof(T), s.plan, free_bytes, ctx, "--bench size 2^" + std::to_string(l));
    const std::vector<T> x = make_inputs<T>(n, ctx.seed);
    const double reference = exact_sum(x);
    GpuReduce<T> gpu(x, rotation_copies(n * static_cast<std::int64_t>(sizeof(T)), ctx, free_bytes));
    for (auto& row : rows) {
      BenchCell& c = row.cells.back();
      c.reference = reference;
      if (row.kernel == Kernel::grid_sync && !cooperative) {
        c.waived = "no cooperative launch on this GPU";
        continue;
      }
      try {
        c.gpu = sum_of(gpu.run(row.kernel, s.plan));
        c.ms = gpu.time_ms(row.kernel, s.plan, kBenchReps, kBenchWarmup);
      } catch (const WaivedError& e) {
        c.waived = e.what();
        if (std::none_of(waived.begin(), waived.end(), [](const report::Waiver& w) { return w.part == "grid-sync"; }))
          waived.push_back({"grid-sync", e.what()});
      }
    }
#endif
  }
#if !CUDASYNC_HAVE_CUDA
  (void)waived;
#endif
  return {bench_section(dtype, sizes, rows, s)};
}

report::Report bench(const Options& o, const RunContext& ctx) {
  std::vector<int> sizes = o.sizes;
  if (sizes.empty())
    for (int l = 20; l <= 28; ++l) sizes.push_back(l);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<Dtype> dtypes;
  if (!o.dtype || *o.dtype == "float") dtypes.push_back(Dtype::f32);
  if (!o.dtype || *o.dtype == "double") dtypes.push_back(Dtype::f64);

  report::Report r;
  r.technique = "cg-reduce";
  r.title = "cg-reduce --bench: GB/s of every rung by size, beside cub::DeviceReduce::Sum";
  report::Section setup;
  setup.id = "setup";
  setup.title = "setup: bench sweep";
  std::string list;
  for (int l : sizes) list += (list.empty() ? "2^" : ", 2^") + std::to_string(l);
  setup.facts.push_back({"sizes (--sizes)", list, "", ""});
  setup.facts.push_back({"block (--block)", static_cast<std::int64_t>(o.block), "", ""});
  setup.facts.push_back({"seed (--seed)", static_cast<std::int64_t>(ctx.seed), "", ""});
  setup.facts.push_back({"backend", ctx.gpu ? device_text(ctx) : std::string("reference model"), "", ""});
  if (!ctx.gpu) setup.notes.push_back("without a GPU every figure of the sweep says 'needs a GPU'");
  r.sections.push_back(setup);
  for (Dtype d : dtypes) {
    auto secs = d == Dtype::f32 ? run_bench<float>(o, ctx, sizes, r.waived) : run_bench<double>(o, ctx, sizes, r.waived);
    for (auto& sec : secs) r.sections.push_back(std::move(sec));
  }
  return r;
}

}  // namespace

std::optional<std::string> combination_error(const Options& o) {
  const std::int64_t n = o.n.value_or(kDefaultN);
  if (o.trace) {
    if (n > kTraceMaxN)
      return "--trace is for problems of at most " + pow2_name(kTraceMaxN) + " elements (the model replays every "
             "rung beside the trace); got --n " + std::to_string(n) + ". Give a smaller --n";
    if (o.block > kTraceMaxBlock)
      return "--trace prints the shared-memory tree with one row per word: at most --block " +
             std::to_string(kTraceMaxBlock) + " (got " + std::to_string(o.block) + ")";
  } else if (o.trace_block || o.trace_warp) {
    return "--trace-block and --trace-warp choose what --trace prints; add --trace";
  }
  const int blocks = blocks_for(n, o.block);
  if (o.trace_block && *o.trace_block >= blocks)
    return "--trace-block " + std::to_string(*o.trace_block) + " does not exist: " + std::to_string(n) +
           " elements in blocks of " + std::to_string(o.block) + " make blocks 0.." + std::to_string(blocks - 1);
  if (o.trace_warp && *o.trace_warp >= o.block / kWarpSize)
    return "--trace-warp " + std::to_string(*o.trace_warp) + " does not exist: a block of " + std::to_string(o.block) +
           " threads has warps 0.." + std::to_string(o.block / kWarpSize - 1);
  if (o.grid && !selected(o.variants, "grid-sync"))
    return "--grid sets the grid of the grid-sync rung, which this --variant leaves out";
  return std::nullopt;
}

report::Report run(const Options& o, const RunContext& ctx) {
  if (const auto e = combination_error(o)) throw UsageError(*e);
#if !CUDASYNC_HAVE_CUDA
  if (ctx.gpu) throw NoGpuError("this cudasync was built without CUDA");
#endif
  if (ctx.bench) {
    if (o.trace) throw UsageError("--trace and --bench do not mix: --trace looks at one problem, --bench sweeps sizes");
    if (o.n)
      throw UsageError("--n is not used by --bench, which sweeps the sizes of --sizes (log2, default 20,21,...,28)");
    return bench(o, ctx);
  }
  if (!o.sizes.empty()) throw UsageError("--sizes chooses the sizes of a --bench sweep; add --bench, or give --n");
  if (o.dtype && *o.dtype == "double") return run_single<double>(o, ctx);
  return run_single<float>(o, ctx);
}

cli::Runner attach(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("--n", o->n, "Elements to sum, 1.." + std::to_string(kMaxN) + " (default 2^24)")
      ->check([](const std::string& s) { return n_error(s).value_or(""); });
  sub.add_option("--block", o->block, "Threads per block: a power of two, 32..1024 (default 128, as the seed)")
      ->check([](const std::string& s) {
        int b = 0;
        try {
          std::size_t used = 0;
          b = std::stoi(s, &used);
          if (used != s.size()) b = 0;
        } catch (...) {
          b = 0;
        }
        return power_of_two_block(b) ? std::string()
                                     : s + " is not a power of two in 32..1024: accepted 32, 64, 128, 256, 512, 1024";
      });
  std::string names;
  for (const auto& v : kVariants) names += (names.empty() ? "" : ", ") + v;
  sub.add_option("--variant", o->variants, "Which rungs, comma-separated: " + names + " (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(kVariants));
  sub.add_option("--dtype", o->dtype, "float or double (default float; --bench without it runs both)")
      ->check(CLI::IsMember({"float", "double"}));
  sub.add_flag("--trace", o->trace,
               "Per-lane partial sums of one warp, step by step, and one block's shared-memory tree "
               "(--n at most 2^24, --block at most 256)");
  sub.add_option("--trace-block", o->trace_block, "The block --trace shows (default 0)")->check(CLI::NonNegativeNumber);
  sub.add_option("--trace-warp", o->trace_warp, "The warp of that block --trace shows (default 0)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--grid", o->grid,
                 "Blocks of the grid-sync rung (default: the most a cooperative launch accepts, from the occupancy API; "
                 "a larger grid is refused, and a run of that rung alone exits 77)")
      ->check(CLI::Range(1, 1 << 30));
  sub.add_option("--sizes", o->sizes,
                 "--bench sizes as powers of two, comma-separated log2 values in " + std::to_string(kMinLog2Size) +
                     ".." + std::to_string(kMaxLog2Size) + " (default 20,21,...,28)")
      ->delimiter(',')
      ->check(CLI::Range(kMinLog2Size, kMaxLog2Size));
  sub.callback([o] {
    if (const auto e = combination_error(*o)) throw CLI::ValidationError(*e);
  });
  return [o](const RunContext& ctx) { return run(*o, ctx); };
}

}  // namespace cudasync::cg_reduce
