// --bench: GB/s of every kernel of the ladder and of its candidates by size, for float and double
// (or --dtype), with CUB as the baseline every ratio divides by (core/sweep builds the tables), every
// sum checked against its error bound; and beside it the cost model: every kernel's GB/s at every
// size predicted from its launches, the bytes it reads, its blocks and its same-address atomics, each
// a primitive measured in the same run, and the target, the best kernel >= 0.98 x CUB at every size.
#include "core/cost/compare.hpp"
#include "core/cost/cost_gpu.hpp"
#include "core/cost/formula.hpp"
#include "core/cost/primitive_keys.hpp"
#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {

namespace {

using report::Format;
using report::Value;

constexpr int kBenchReps = 20;  // per kernel and size
constexpr int kBenchWarmup = 3;
constexpr int kTreeSteps = 5;           // __syncthreads() in a block's tree down to one warp (1024 -> 32)

// CUB's fixed cost is read as two empty launches, like rungs 5-6. Measured directly, a CUB call on
// 2^16 elements took nearly as long as CUB's whole call at 2^20 (docs/measurements.md,
// 2026-11-29): it holds more than the fixed part, and with the bytes added on top it under-predicted
// CUB's speed at 2^20-2^21.
cost::Need launch_of(ReduceDesign d) {
  switch (d) {
    case ReduceDesign::atomic: return cost::prim::launch(cost::Probe::launch_memset_1);
    case ReduceDesign::grid_sync: return cost::prim::launch(cost::Probe::launch_coop);
    case ReduceDesign::one_pass: return cost::prim::launch(cost::Probe::launch_1);
    default: return cost::prim::launch(cost::Probe::launch_2);
  }
}

constexpr double kLibrarySpeed = 0.98;  // within 2 % of CUB: the library's speed, within two runs' spread

ReduceDesign design_of(Kernel k) {
  switch (k) {
    case Kernel::two_pass_fixed_grid:
    case Kernel::two_pass_occupancy:
    case Kernel::two_pass_vector:
    case Kernel::static_buffer: return ReduceDesign::two_pass;
    case Kernel::grid_sync: return ReduceDesign::grid_sync;
    case Kernel::cub_sum: return ReduceDesign::cub;
    case Kernel::one_pass_vector: return ReduceDesign::one_pass;
    default: return ReduceDesign::atomic;
  }
}

int grid_of(Kernel k, const Plan& p) {
  switch (k) {
    case Kernel::two_pass_fixed_grid:
    case Kernel::static_buffer: return p.seed_grid;
    case Kernel::two_pass_vector: return p.vector_grid;
    case Kernel::grid_sync: return p.grid_sync_grid;
    case Kernel::one_pass_vector: return p.one_pass_grid;
    default: return p.occupancy_grid;  // the occupancy rung, and CUB's second pass read as one like it
  }
}

ReduceShape shape_of(Kernel k, const Plan& p, Dtype d, int log2_n) {
  ReduceShape s;
  s.n = std::int64_t{1} << log2_n;
  s.elem_bytes = static_cast<int>(type_bytes(d));
  s.block = p.block;
  s.grid = grid_of(k, p);
  s.at = "2-" + std::to_string(log2_n);
  return s;
}

Value missing(bool gpu) { return gpu ? Value{report::Undefined{}} : Value{report::NeedsGpu{}}; }

void add_versus_cub(report::Section& s, const std::vector<Kernel>& kernels, const std::vector<int>& sizes,
                const sweep::Sweep& sw, bool gpu) {
  std::size_t cub = 0;
  for (std::size_t r = 0; r < kernels.size(); ++r)
    if (kernels[r] == Kernel::cub_sum) cub = r;
  report::Table t("best-vs-cub", say("cost.title", {{"ratio", report::fixed(kLibrarySpeed, 2)}}));
  t.column("size", say("column.size"))
      .column("cub", "CUB", Format::gbps)
      .column("best", say("cost.best-kernel"))
      .column("best-ratio", "x CUB", Format::ratio)
      .column("library-speed", say("cost.library-speed"));
  bool met = true;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const auto best = sw.best(c);
    const auto ratio = best ? sw.ratio(*best, c) : std::nullopt;
    met = met && ratio && *ratio >= kLibrarySpeed;
    t.row({{"size", "2^" + std::to_string(sizes[c])},
           {"cub", sw.median(cub, c) ? Value{*sw.median(cub, c)} : missing(gpu)},
           {"best", best ? Value{std::string(kernel_id(kernels[*best]))} : missing(gpu)},
           {"best-ratio", ratio ? Value{*ratio} : missing(gpu)},
           {"library-speed", ratio ? Value{*ratio >= kLibrarySpeed} : missing(gpu)}});
  }
  s.add(std::move(t));
  s.fact("best-at-library-speed", say("cost.best-at-library-speed"), gpu ? Value{met} : Value{report::NeedsGpu{}});
}


// The bench's rows: the ladder, then its candidates.
std::vector<Kernel> bench_kernels() {
  std::vector<Kernel> v(kLadder.begin(), kLadder.end());
  v.insert(v.end(), std::begin(kBenchCandidates), std::end(kBenchCandidates));
  return v;
}

// The primitives the model needs for every kernel at every size (log2); the streaming reads
// (read_key) are the bench's to measure, size by size, on its own input.
std::vector<cost::Need> cost_needs(const std::vector<Kernel>& kernels, const Plan& p, Dtype d,
                                   const std::vector<int>& sizes) {
  std::vector<cost::Need> needs;
  for (Kernel k : kernels)
    for (int l : sizes)
      for (cost::Need& n : reduce_needs(design_of(k), shape_of(k, p, d, l))) cost::add_need(needs, std::move(n));
  return needs;
}

cost::Key read_key(const Plan& p, Dtype d, int log2_n) {
  return read_need(shape_of(Kernel::two_pass_vector, p, d, log2_n)).key;
}

// The model's tables beside the sweep's medians, and the target table.
void add_cost_model(report::Section& s, const std::vector<Kernel>& kernels, const Plan& p, Dtype d,
                    const std::vector<int>& sizes, const sweep::Sweep& sw, const cost::Primitives& prims, bool gpu) {
  std::vector<cost::Cell> cells;
  for (std::size_t r = 0; r < kernels.size(); ++r)
    for (std::size_t c = 0; c < sizes.size(); ++c) {
      const ReduceShape shape = shape_of(kernels[r], p, d, sizes[c]);
      cost::Cell cell;
      cell.row = cell.row_title = kernel_id(kernels[r]);
      cell.column = shape.at;
      cell.column_title = "2^" + std::to_string(sizes[c]);
      cell.predicted = predict_reduce(design_of(kernels[r]), shape, prims);
      cell.measured = sw.median(r, c);
      cell.bytes = shape.bytes();
      cells.push_back(std::move(cell));
    }
  cost::add_model(s, cells, {"GB/s", Format::gbps, cost::kTolerance}, cost_needs(kernels, p, d, sizes), prims, gpu);
  add_versus_cub(s, kernels, sizes, sw, gpu);
}

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
    s.check(std::string(kernel_id(kernels[r])) + "-error-bound",
            say("bench.every-size-in-bound", {{"kernel", kernel_title(kernels[r])}}),
            every_size_in_bound(kernels[r], dtype, sums[r]));
  }
  add_cost_model(s, kernels, plan, dtype, sizes, sw, prims, ctx.gpu);
  return s;
}

}  // namespace

cost::Need read_need(const ReduceShape& s) {
  cost::ProbeSpec spec;
  spec.probe = cost::Probe::stream_read;
  spec.bytes = static_cast<long long>(s.bytes());
  spec.reps = 20;
  return {{s.elem_bytes == 8 ? "read-double" : "read-float", s.at}, say("cost.read-need"), spec};
}

std::vector<cost::Need> reduce_needs(ReduceDesign d, const ReduceShape& s) {
  std::vector<cost::Need> n;
  cost::add_need(n, cost::prim::launch(cost::Probe::launch_1));
  cost::add_need(n, launch_of(d));
  cost::add_need(n, read_need(s));
  switch (d) {
    case ReduceDesign::atomic:
      cost::add_need(n, cost::prim::empty_blocks(kDispatchBlocks, s.block));
      cost::add_need(n, cost::prim::atomic_blocks(kAtomicProbeBlocks, s.block, s.elem_bytes == 8));
      break;
    case ReduceDesign::two_pass:
    case ReduceDesign::cub:
      cost::add_need(n, cost::prim::empty_blocks(kDispatchBlocks, s.block));
      cost::add_need(n, cost::prim::rt_load());
      cost::add_need(n, cost::prim::sync(kSecondPassBlock));
      break;
    case ReduceDesign::grid_sync:
      cost::add_need(n, cost::prim::grid_sync(s.grid, s.block));
      cost::add_need(n, cost::prim::rt_load());
      cost::add_need(n, cost::prim::sync(s.block));
      break;
    case ReduceDesign::one_pass:
      cost::add_need(n, cost::prim::rt_atomic());
      cost::add_need(n, cost::prim::fence_under(cost::Op::fence_sc, 1));
      cost::add_need(n, cost::prim::rt_load());
      cost::add_need(n, cost::prim::sync(kOnePassBlock));
      break;
  }
  return n;
}

cost::Prediction predict_reduce(ReduceDesign d, const ReduceShape& s, const cost::Primitives& p) {
  cost::Prediction out;
  const cost::Need one = cost::prim::launch(cost::Probe::launch_1), launch = launch_of(d), read = read_need(s);
  const double launch_1 = p.ns(one.key);
  out.add("launch", say("cost.launch"), p.ns(launch.key), cost::call(launch));
  const double bytes = p.ns(read.key) - launch_1;
  out.add("bytes", say("cost.bytes"), bytes, cost::call(read) + " - launch-1");
  const auto per_block = [&](const cost::Need& probe, int blocks) { return (p.ns(probe.key) - launch_1) / blocks; };
  const auto second_pass = [&](std::int64_t partials, int block) {
    const cost::Need l = cost::prim::rt_load(), y = cost::prim::sync(block);
    const std::int64_t loads = blocks_for(partials, block);
    out.add("finish", say("cost.finish"),
            static_cast<double>(loads) * p.ns(l.key) + kTreeSteps * p.ns(y.key),
            std::to_string(loads) + " x rt-load + " + std::to_string(kTreeSteps) + " x sync(" + std::to_string(block) + ")");
  };
  switch (d) {
    case ReduceDesign::atomic: {
      const cost::Need e = cost::prim::empty_blocks(kDispatchBlocks, s.block);
      const cost::Need a = cost::prim::atomic_blocks(kAtomicProbeBlocks, s.block, s.elem_bytes == 8);
      const std::int64_t blocks = blocks_for(s.n, s.block);
      const double each = cost::nan_max(per_block(e, kDispatchBlocks), per_block(a, kAtomicProbeBlocks));
      out.add("atomics", say("cost.atomics"), cost::excess(static_cast<double>(blocks) * each - bytes),
              "max(0, " + std::to_string(blocks) + " blocks x max(per block of " + cost::call(e) + ", of " + cost::call(a) +
                  ") - bytes)");
      break;
    }
    case ReduceDesign::two_pass:
    case ReduceDesign::cub: {
      const cost::Need e = cost::prim::empty_blocks(kDispatchBlocks, s.block);
      out.add("blocks", say("cost.blocks"), cost::excess(s.grid * per_block(e, kDispatchBlocks) - bytes),
              "max(0, " + std::to_string(s.grid) + " x per block of " + cost::call(e) + " - bytes)");
      second_pass(s.grid, kSecondPassBlock);
      break;
    }
    case ReduceDesign::grid_sync: {
      const cost::Need g = cost::prim::grid_sync(s.grid, s.block);
      out.add("barrier", say("cost.barrier"), p.ns(g.key), cost::call(g));
      second_pass(s.grid, s.block);
      break;
    }
    case ReduceDesign::one_pass: {
      const cost::Need a = cost::prim::rt_atomic(), f = cost::prim::fence_under(cost::Op::fence_sc, 1);
      out.add("ticket", say("cost.ticket"), p.ns(f.key) + p.ns(a.key), cost::call(f) + " + rt-atomic");
      second_pass(s.grid, kOnePassBlock);
      break;
    }
  }
  return out;
}

std::vector<report::Section> bench_sweep(Run& run) {
  const std::vector<int> sizes = bench_sizes(run.options.sizes);
  const auto& dtype = run.options.dtype;
  std::vector<report::Section> out;
  if (!dtype || *dtype == "float") out.push_back(bench_dtype<float>(run, sizes));
  if (!dtype || *dtype == "double") out.push_back(bench_dtype<double>(run, sizes));
  return out;
}

}  // namespace cudasync::cg_reduce

