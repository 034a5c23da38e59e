// cg-reduce: options, validation, the run's shared inputs, the setup section, the part table and
// the course hook.
#include <algorithm>

#include "core/checked.hpp"
#include "core/course/exercise_texts.hpp"
#include "core/parts/option_binder.hpp"
#include "core/errors.hpp"
#include "core/memory_budget.hpp"
#include "core/number_list.hpp"
#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {

namespace {

using I = std::int64_t;
using report::Format;

constexpr int kReps = 10;  // timed calls per kernel in a plain run

std::string mib(double bytes) {
  return std::to_string(static_cast<long long>(bytes / (1024.0 * 1024.0) + 0.5)) + " MiB";
}

std::string pow2_name(std::int64_t v) {
  int l = 0;
  while ((std::int64_t{1} << l) < v) ++l;
  return std::to_string(v) + " (2^" + std::to_string(l) + ")";
}


std::optional<std::string> n_error(const std::string& text) {
  const auto v = whole_number(text);
  if (!v) return say("usage.n-not-whole", {{"n", text}});
  if (*v <= 0) return say("usage.n-not-positive", {{"n", text}});
  if (*v > kMaxN) return say("usage.n-too-large", {{"n", text}, {"most", pow2_name(kMaxN)}, {"max", kMaxN}});
  return std::nullopt;
}

// What only the trace part limits: the problem's size, the block, and which block and warp exist.
std::optional<std::string> validate(const Options& o, const parts::Selection& selection, const RunContext&) {
  if (!selection.has("trace")) return std::nullopt;
  const std::int64_t n = o.n.value_or(kDefaultN);
  if (n > kTraceMaxN)
    return say("usage.trace-n", {{"most", pow2_name(kTraceMaxN)}, {"n", n}, {"max", kTraceMaxN}});
  if (o.block > kTraceMaxBlock) return say("usage.trace-block-size", {{"max", kTraceMaxBlock}, {"block", o.block}});
  const int blocks = blocks_for(n, o.block);
  if (o.trace_block && *o.trace_block >= blocks)
    return say("usage.trace-block",
                   {{"trace-block", *o.trace_block}, {"n", n}, {"block", o.block}, {"last", blocks - 1}});
  if (o.trace_warp && *o.trace_warp >= o.block / kWarpSize)
    return say("usage.trace-warp", {{"warp", *o.trace_warp}, {"block", o.block}, {"last", o.block / kWarpSize - 1}});
  return std::nullopt;
}

void bind_options(parts::OptionBinder& b, Options& o) {
  b.bind("--n", o.n, [](const std::string& s) { return n_error(s).value_or(""); });
  b.bind("--block", o.block);
  b.bind("--dtype", o.dtype);
  b.bind("--trace-block", o.trace_block);
  b.bind("--trace-warp", o.trace_warp);
  b.bind("--grid", o.grid);
  b.bind("--sizes", o.sizes);
}

void bench_setup(const Run& run, report::Section& s) {
  s.title = say("bench.setup-title");
  std::string list;
  for (int l : bench_sizes(run.options.sizes)) list += (list.empty() ? "2^" : ", 2^") + std::to_string(l);
  s.fact("sizes", say("bench.sizes"), list);
  s.fact("block", say("setup.block"), static_cast<I>(run.options.block));
  s.fact("seed", say("setup.seed"), static_cast<I>(run.ctx.seed));
  if (!run.ctx.gpu) s.note(say("bench.model-note"));
}

void setup(Run& run, report::Section& s) {
  if (run.bench) return bench_setup(run, s);
  const Problem& p = run.problem;
  s.title = say("setup.title", {{"n", p.n}, {"dtype", dtype_name(p.dtype)}, {"block", p.plan.block}});
  s.paragraph(say("setup.inputs-about"));
  s.paragraph(say(p.gpu ? "setup.gpu-about" : "setup.model-about"));
  s.fact("n", say("setup.n"), static_cast<I>(p.n), Format::count);
  s.fact("dtype", say("setup.dtype"), std::string(dtype_name(p.dtype)));
  s.fact("block", say("setup.block"), static_cast<I>(p.plan.block));
  s.fact("seed", say("setup.seed"), static_cast<I>(run.ctx.seed));
  s.fact("exact-sum", say("setup.exact-sum"), p.reference, Format::exact);
  const std::string from =
      p.gpu ? say("setup.occupancy-api")
            : say("setup.assumed", {{"per-sm", std::min(32, 2048 / p.plan.block)}, {"block", p.plan.block}});
  s.fact("grid-rungs-1-4", say("setup.grid-rungs-1-4"), static_cast<I>(blocks_for(p.n, p.plan.block)), Format::count,
         say("setup.one-element-per-thread"));
  s.fact("grid-seed", say("setup.grid-seed"), static_cast<I>(p.plan.seed_grid), Format::count,
         say("setup.grid-seed-note"));
  s.fact("grid-occupancy", say("setup.grid-occupancy"), static_cast<I>(p.plan.occupancy_grid), Format::count, from);
  s.fact("grid-vector", say("setup.grid-vector"), static_cast<I>(p.plan.vector_grid), Format::count, from);
  s.fact("grid-sync-grid", say("setup.grid-sync-grid"), static_cast<I>(p.plan.grid_sync_grid), Format::count,
         p.plan.grid_sync_limit > 0 ? say("setup.cooperative-limit", {{"limit", p.plan.grid_sync_limit}}) : from);
  if (p.gpu) s.note(say("setup.times-note", {{"reps", p.reps}, {"copies", p.copies}}));
}

// The host bytes of a model run: the input, and beside it the largest working set of the kernels
// of the selected rungs (one kernel's sums at a time; nullopt past 2^64).
std::optional<std::uint64_t> model_run_bytes(const Problem& p, const parts::Selection& selection) {
  const std::size_t elem = type_bytes(p.dtype);
  std::uint64_t sums = 0;
  for (Kernel k : kLadder)
    if (selection.has(rung_of(k))) sums = std::max(sums, model_working_bytes(k, p.n, p.plan, elem));
  return checked_sum({checked_product({static_cast<std::uint64_t>(p.n), elem}), sums});
}

// What the estimate follows from: "--n 268435456 --grid 268435456: the input array of floats and the
// model's sums".
std::string model_run_named(const Options& o, const Problem& p, const parts::Selection& selection) {
  std::string named = "--n " + std::to_string(p.n);
  if (o.grid && selection.has("grid-sync")) named += " --grid " + std::to_string(*o.grid);
  return say("usage.model-memory", {{"options", named}, {"dtype", dtype_name(p.dtype)}});
}

parts::PartRun<Run> rung_row(const std::string& id) {
  return {id, [id](Run& r) { return rung_part(r, id); }};
}

}  // namespace

Plan plan_for(int block, std::optional<int> grid, const RunContext& ctx, Dtype dtype, bool& cooperative) {
  Plan p = default_plan(block);
  cooperative = true;
  if (ctx.gpu) {
    const GpuGrids g = gpu_grids(dtype, block, ctx.device->index);
    const int fallback = ctx.device->sm_count;  // never 0, even if the occupancy API says so
    p.occupancy_grid = g.occupancy_grid > 0 ? g.occupancy_grid : fallback;
    p.vector_grid = g.vector_grid > 0 ? g.vector_grid : fallback;
    p.grid_sync_limit = g.grid_sync_limit;
    p.one_pass_grid = g.one_pass_grid > 0 ? g.one_pass_grid : fallback;
    p.grid_sync_grid = g.grid_sync_limit > 0 ? g.grid_sync_limit : fallback;
    cooperative = g.cooperative_launch;
  }
  if (grid) p.grid_sync_grid = *grid;
  return p;
}

int rotation_copies(std::int64_t bytes, const RunContext& ctx, std::size_t free_bytes) {
  if (!ctx.device || ctx.device->l2_bytes <= 0) return 1;
  const double want = 4.0 * ctx.device->l2_bytes / static_cast<double>(bytes);
  int copies = std::clamp(static_cast<int>(want + 0.999), 1, 64);
  while (copies > 1 && static_cast<double>(copies) * static_cast<double>(bytes) > 0.5 * static_cast<double>(free_bytes))
    --copies;
  return copies;
}

void check_device_memory(std::int64_t n, std::size_t elem, const Plan& p, std::size_t free_bytes,
                         const RunContext& ctx, const std::string& what) {
  const double input = static_cast<double>(n) * static_cast<double>(elem);
  const int sync_grid = p.grid_sync_limit > 0 ? std::min(p.grid_sync_grid, p.grid_sync_limit) : p.grid_sync_grid;
  const int grid = std::max({p.seed_grid, p.occupancy_grid, p.vector_grid, sync_grid});
  const double partials = static_cast<double>(grid) * static_cast<double>(elem);
  if (input + partials > 0.9 * static_cast<double>(free_bytes))
    throw UsageError(say("usage.device-memory", {{"what", what},
                                                     {"input", mib(input)},
                                                     {"partials", mib(partials)},
                                                     {"gpu", ctx.device ? ctx.device->index : 0},
                                                     {"free", mib(static_cast<double>(free_bytes))}}));
}

std::vector<int> bench_sizes(std::vector<int> sizes) {
  if (sizes.empty())
    for (int l = 20; l <= 28; ++l) sizes.push_back(l);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

Run::Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection)
    : options(o), ctx(run_ctx), bench(selection.bench) {
  if (bench) return;  // the sweep draws its own inputs, size by size
  Problem& p = problem;
  p.dtype = o.dtype && *o.dtype == "double" ? Dtype::f64 : Dtype::f32;
  p.n = o.n.value_or(kDefaultN);
  p.plan = plan_for(o.block, o.grid, ctx, p.dtype, cooperative);
  p.gpu = ctx.gpu;
  p.reps = kReps;
  const std::size_t elem = type_bytes(p.dtype);
  // On the model the host holds the whole run: the input and the sums of the kernel it replays;
  // on a GPU the device's free memory is the bound (check_device_memory).
  if (!ctx.gpu) require_host_memory(ctx, model_run_bytes(p, selection), model_run_named(o, p, selection));
  if (ctx.gpu) {
    const std::size_t free_bytes = gpu_free_bytes();
    check_device_memory(p.n, elem, p.plan, free_bytes, ctx, "--n " + std::to_string(p.n));
    p.copies = rotation_copies(p.n * static_cast<std::int64_t>(elem), ctx, free_bytes);
  }
  if (p.dtype == Dtype::f32) {
    xf = make_inputs<float>(p.n, ctx.seed);
    p.reference = exact_sum(xf);
    if (ctx.gpu) gpu = gpu_upload(xf, p.copies);
  } else {
    xd = make_inputs<double>(p.n, ctx.seed);
    p.reference = exact_sum(xd);
    if (ctx.gpu) gpu = gpu_upload(xd, p.copies);
  }
}

const parts::Lesson<Options, Run>& lesson() {
  static const parts::Lesson<Options, Run> table{
      "cg-reduce",
      {
          rung_row("shared"),
          rung_row("syncwarp"),
          rung_row("shfl"),
          rung_row("cg"),
          rung_row("two-pass"),
          rung_row("static"),
          rung_row("grid-sync"),
          rung_row("cub"),
          {"trace", trace_part},
      },
      bind_options,
      validate,
      setup,
      ladder_finish,
      parts::Bench<Run>{bench_sweep},
      {},
      {}};
  return table;
}

// Every exercise is a row of lessons/cg-reduce/lesson.json; those with an answer read it by id from a
// run of the lesson (the rungs' errors compared, a bound's chain, whether the rungs' sums are the
// same bits).
const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course("cg-reduce");
  return c;
}

}  // namespace cudasync::cg_reduce
