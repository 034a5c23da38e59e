// --bench: GB/s of every kernel of the ladder and of its candidates by size, for float and double
// (or --dtype), with CUB as the baseline every ratio divides by (core/sweep builds the tables), every
// sum checked against its error bound, and the cost model beside (cg_reduce_cost.cpp).
#include "core/cost/cost_gpu.hpp"
#include "core/errors.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/cg_reduce/cg_reduce_cost.hpp"
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

namespace {

constexpr int kBenchReps = 20;  // per kernel and size
constexpr int kBenchWarmup = 3;

template <typename T>
report::Section bench_dtype(Run& run, const std::vector<int>& sizes) {
  const Dtype dtype = sizeof(T) == sizeof(float) ? Dtype::f32 : Dtype::f64;
  const RunContext& ctx = run.ctx;
  bool cooperative = true;
  const Plan plan = plan_for(run.options.block, std::nullopt, ctx, dtype, cooperative);

  const std::vector<Kernel> kernels = bench_kernels();
  sweep::Sweep sw("bench", say("bench.bandwidth"), report::Format::gbps, sweep::Better::higher);
  std::vector<sweep::Point> rows, columns;
  for (Kernel k : kernels) rows.push_back({kernel_id(k), kernel_title(k)});
  for (int l : sizes) columns.push_back({"2-" + std::to_string(l), "2^" + std::to_string(l)});
  sw.rows(say("column.kernel"), rows).columns(say("column.size"), columns).baseline(kernel_id(Kernel::cub_sum));

  // The cost model's primitives; the streaming read of each size's input is measured with it below.
  cost::Primitives prims = cost::measure(cost_needs(kernels, plan, dtype, sizes), ctx.gpu);
  std::vector<std::vector<BenchSum>> sums(kernels.size());
  for (std::size_t c = 0; ctx.gpu && c < sizes.size(); ++c) {
    const std::int64_t n = std::int64_t{1} << sizes[c];
    const std::size_t free_bytes = gpu_free_bytes();
    check_device_memory(n, sizeof(T), plan, free_bytes, ctx, "--bench size " + columns[c].title);
    const std::vector<T> x = make_inputs<T>(n, ctx.seed);
    const double reference = exact_sum(x);
    const auto in = gpu_upload(x, rotation_copies(n * static_cast<std::int64_t>(sizeof(T)), ctx, free_bytes));
    prims.set(read_key(plan, dtype, sizes[c]), gpu_read_ns(*in, kBenchReps, kBenchWarmup));
    for (std::size_t r = 0; r < kernels.size(); ++r) {
      const Kernel k = kernels[r];
      if (k == Kernel::grid_sync && !cooperative) {
        sw.skip(r, c, say("bench.no-cooperative-launch"));
        continue;
      }
      try {
        const Sum sum = sum_in(dtype, gpu_sum(*in, k, plan));
        std::vector<double> gbs;
        for (double ms : gpu_time_ms(*in, k, plan, kBenchReps, kBenchWarmup)) gbs.push_back(gb_per_s(n, dtype, ms));
        sw.record(r, c, gbs);
        sums[r].push_back({columns[c].title, sum.value, reference, error_depth(k, n, plan, dtype)});
      } catch (const WaivedError& e) {
        sw.skip(r, c, e.what());
      }
    }
  }

  report::Section s(std::string("bench-") + dtype_name(dtype), say("bench.title", {{"dtype", dtype_name(dtype)}}));
  s.paragraph(say("bench.about", {{"bytes", type_bytes(dtype)}, {"reps", kBenchReps}, {"warmup", kBenchWarmup}}));
  sw.add_to(s, ctx.gpu);
  for (std::size_t r = 0; r < kernels.size(); ++r) {
    if (sums[r].empty()) continue;
    const Verdict v = every_size_in_bound(kernels[r], dtype, sums[r]);
    s.check(std::string(kernel_id(kernels[r])) + "-error-bound",
            say("bench.every-size-in-bound", {{"kernel", kernel_title(kernels[r])}}), v.passed, v.detail);
  }
  add_cost_model(s, kernels, plan, dtype, sizes, sw, prims, ctx.gpu);
  return s;
}

}  // namespace

std::vector<report::Section> bench_sweep(Run& run) {
  const std::vector<int> sizes = bench_sizes(run.options.sizes);
  const auto& dtype = run.options.dtype;
  std::vector<report::Section> out;
  if (!dtype || *dtype == "float") out.push_back(bench_dtype<float>(run, sizes));
  if (!dtype || *dtype == "double") out.push_back(bench_dtype<double>(run, sizes));
  return out;
}

}  // namespace cudasync::cg_reduce
