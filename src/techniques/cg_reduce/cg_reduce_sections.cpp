#include "techniques/cg_reduce/cg_reduce_sections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/report/text_format.hpp"

namespace cudasync::cg_reduce {

using report::Check;
using report::Fact;
using report::LaneTable;
using report::Measurement;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;
using report::measured;
using report::printf_number;

namespace {

std::string hex_bits(const Sum& s) {
  char b[32];
  if (s.dtype == Dtype::f32) std::snprintf(b, sizeof b, "0x%08x", static_cast<unsigned>(s.bits));
  else std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(s.bits));
  return b;
}

std::string with_bits(const Sum& s) { return s.text() + " (" + hex_bits(s) + ")"; }

std::size_t type_bytes(Dtype d) { return d == Dtype::f32 ? 4 : 8; }

std::string pow2_text(int log2) { return "2^" + std::to_string(log2); }

// The relative-error check every kernel with a result carries.
Check bound_check(const std::string& title, Kernel k, double sum, const Problem& s, std::int64_t depth) {
  const double err = relative_error(sum, s.reference);
  Check c;
  if (k == Kernel::cub_sum) {
    const double tol = cub_tolerance(s.dtype);
    c.name = title + ": relative error within " + printf_number("%.0e", tol) + " (CUB publishes no order)";
    c.passed = err <= tol;
    c.detail = "error " + printf_number("%.3e", err) + " against the exact sum";
    return c;
  }
  const double g = gamma_bound(depth, unit_roundoff(s.dtype));
  c.name = title + ": relative error within gamma_d";
  if (g < 0) {
    c.passed = true;
    c.detail = "error " + printf_number("%.3e", err) + "; d = " + std::to_string(depth) + " additions, d*u >= 1: no bound";
  } else {
    c.passed = err <= g;
    c.detail = "error " + printf_number("%.3e", err) + " <= gamma_" + std::to_string(depth) + " = " + printf_number("%.3e", g) +
               " (longest chain of additions d = " + std::to_string(depth) + ")";
  }
  return c;
}

const char* rung_text(const std::string& variant) {
  if (variant == "shared")
    return "Rung 1, chapter 9's reduce_shared (where seed 10.2 starts): each thread puts one element in s_y, "
           "then s_y[tid] += s_y[tid + offset] for offset = blockDim.x/2 ... 1, with __syncthreads() after "
           "every step; thread 0 adds the block's sum to d_y with atomicAdd. The blocks finish in any order, so "
           "the atomics add their sums in any order, and float addition is not associative: the last bits can "
           "change from run to run.";
  if (variant == "syncwarp")
    return "Rung 2, seed 10.2 reduce_syncwarp: the same tree, but from offset 16 down only warp 0 works, so "
           "__syncwarp() replaces __syncthreads(). The seed writes `offset=blockDim.x>1` (a comparison worth "
           "1: the block loop never runs) and `offset>=1` (a comparison: the warp loop never ends); both mean "
           ">>=. The additions are rung 1's, so every block sum has the same bits.";
  if (variant == "shfl")
    return "Rung 3, seed 10.3.2 reduce_shfl: after the block steps down to offset 32, y = s_y[tid] moves to a "
           "register and y += __shfl_down_sync(FULL_MASK, y, offset), offset 16 ... 1, replaces the shared "
           "steps and their __syncwarp: a shuffle reads every lane's y before any lane writes. Lane 0 adds what "
           "rung 2's s_y[0] adds. __shfl_xor_sync gives every lane the sum; lane 0 gets the same bits.";
  if (variant == "cg")
    return "Rung 4, seed 10.4.2: thread_block_tile<32> g = tiled_partition<32>(this_thread_block()); then "
           "y += g.shfl_down(y, i) for i = g.size()/2 ... 1. The seed writes g.shfl_down(y.i), a dot for the "
           "comma, which does not compile. cg::reduce(g, y, cg::plus<T>()) does the same work as a butterfly of "
           "shfl_xor and hands every lane the sum; lane 0's additions are again the tree's.";
  if (variant == "two-pass")
    return "Rung 5, seed 10.5.1 (its second reduce_cp): each thread first adds d_x[n], d_x[n + stride], ... "
           "(stride = blockDim.x * gridDim.x) in a register, the block reduces as in rung 4 and writes "
           "d_y[bid]; a second launch <<<1, 1024>>> of the same kernel reduces d_y in place. No atomics: the "
           "order is fixed, two runs give the same bits, and the model reproduces them. Rows: the seed's grid "
           "of 10240 blocks; as many blocks as fit at once (occupancy API); and a vector kernel (float4 or "
           "double2 loads, 4 in flight per thread, warps reduced first) on its own occupancy grid.";
  if (variant == "static")
    return "Rung 6, seed 10.5.2: d_y is a static __device__ array of 10240 elements whose address "
           "cudaGetSymbolAddress gives, instead of a cudaMalloc and a cudaFree in every call. Same kernels, same "
           "bits as rung 5's grid-10240 row; the saving shows in the whole call: compare the 'whole reduce() "
           "call' measurements of the two rungs.";
  if (variant == "grid-sync")
    return "Rung 7: one cooperative launch (cudaLaunchCooperativeKernel). Each block writes its sum, "
           "grid.sync() waits for every block of the grid, then block 0 adds the block sums (cg::reduce per "
           "warp, then over the warp sums). grid.sync() needs every block of the grid resident at once, so the "
           "grid may not exceed what the occupancy API allows; a larger cooperative launch is refused with "
           "cudaErrorCooperativeLaunchTooLarge.";
  return "Rung 8, cub::DeviceReduce::Sum (CCCL): called twice, first with d_temp_storage = nullptr to get "
         "temp_storage_bytes, then to reduce. It adds with cuda::std::plus<> (CCCL 3 removed cub::Sum()). CUB "
         "promises run-to-run determinism on one GPU but publishes no order, so it is checked against the exact "
         "sum rather than the model. It is the speed every other rung is measured against.";
}

}  // namespace

std::string Sum::text() const { return printf_number(dtype == Dtype::f32 ? "%.9g" : "%.17g", value); }

Sum sum_of(float v) {
  std::uint32_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return {static_cast<double>(v), b, Dtype::f32};
}

Sum sum_of(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return {v, b, Dtype::f64};
}

double gb_per_s(std::int64_t n, Dtype d, double ms) {
  return static_cast<double>(n) * static_cast<double>(type_bytes(d)) / (ms * 1e6);
}

double relative_error(double sum, double reference) {
  return reference == 0.0 ? std::fabs(sum) : std::fabs(sum - reference) / std::fabs(reference);
}

const char* rung_of(Kernel k) {
  switch (k) {
    case Kernel::shared_atomic: return "shared";
    case Kernel::syncwarp_atomic: return "syncwarp";
    case Kernel::shfl_down_atomic:
    case Kernel::shfl_xor_atomic: return "shfl";
    case Kernel::tile_shfl_down_atomic:
    case Kernel::cg_reduce_atomic: return "cg";
    case Kernel::two_pass_seed:
    case Kernel::two_pass_occupancy:
    case Kernel::two_pass_vector: return "two-pass";
    case Kernel::static_buffer: return "static";
    case Kernel::grid_sync: return "grid-sync";
    case Kernel::cub_sum: return "cub";
  }
  return "shared";
}

Section setup_section(const Problem& s) {
  Section sec;
  sec.id = "setup";
  sec.title = "setup: " + std::to_string(s.n) + " " + dtype_name(s.dtype) + "s, blocks of " +
              std::to_string(s.plan.block);
  sec.paragraphs.push_back(
      "The inputs are random values in (0, 1) drawn with --seed: odd multiples of 2^-24 (float) or 2^-53 "
      "(double), so each is exact in its type and the exact sum is known. The reference is that exact sum, "
      "computed on the CPU in integer arithmetic and rounded once to fp64. All inputs are positive, so the "
      "relative error of a sum is a fair measure of its rounding.");
  sec.paragraphs.push_back(
      s.gpu ? "Every rung runs on the GPU; the reference model replays each rung's additions in the same order on "
              "the CPU, so a rung with a fixed order must match it bit for bit, and an atomic rung must lie "
              "within the bound that covers every order of its atomics."
            : "No GPU: the reference model computes every rung's result by replaying its additions in the kernel's "
              "order. Times and bandwidth need a GPU.");
  sec.facts.push_back({"elements (--n)", static_cast<I>(s.n), "", ""});
  sec.facts.push_back({"type (--dtype)", std::string(dtype_name(s.dtype)), "", ""});
  sec.facts.push_back({"block (--block)", static_cast<I>(s.plan.block), "", ""});
  sec.facts.push_back({"seed (--seed)", static_cast<I>(s.seed), "", ""});
  sec.facts.push_back({"exact sum (fp64)", printf_number("%.17g", s.reference), "", ""});
  sec.facts.push_back({"backend", s.gpu ? s.device : std::string("reference model"), "", ""});
  const std::string from = s.gpu ? "occupancy API" : "assumed: an H100, 132 SMs x " +
                                                         std::to_string(std::min(32, 2048 / s.plan.block)) +
                                                         " blocks of " + std::to_string(s.plan.block);
  sec.facts.push_back({"grid, rungs 1-4", static_cast<I>(blocks_for(s.n, s.plan.block)), "", "one element per thread"});
  sec.facts.push_back({"grid, rungs 5-6 (seed)", static_cast<I>(s.plan.seed_grid), "", "the seed's grid_size"});
  sec.facts.push_back({"grid, rung 5 occupancy", static_cast<I>(s.plan.occupancy_grid), "", from});
  sec.facts.push_back({"grid, rung 5 vector", static_cast<I>(s.plan.vector_grid), "", from});
  sec.facts.push_back({"grid, rung 7 (--grid)", static_cast<I>(s.plan.grid_sync_grid), "",
                       s.plan.grid_sync_limit > 0
                           ? "a cooperative launch accepts at most " + std::to_string(s.plan.grid_sync_limit)
                           : from});
  if (s.gpu && s.reps > 0)
    sec.notes.push_back("times: CUDA events around each call, " + std::to_string(s.reps) +
                        " calls after 2 warm-up calls, rotating through " + std::to_string(s.copies) +
                        " device copies of the input so that it is read from device memory, not the L2 cache");
  return sec;
}

Section rung_section(const std::string& variant, const std::vector<KernelRun>& runs, const Problem& s) {
  Section sec;
  std::string id = variant;
  std::replace(id.begin(), id.end(), '-', '_');
  sec.id = id;
  sec.paragraphs.push_back(rung_text(variant));
  LaneTable t;
  t.id = id + "_results";
  t.title = "results";
  t.columns = {{"kernel", "kernel", ""}, {"model", "model", ""}};
  if (s.gpu) t.columns.push_back({"gpu", "GPU", ""});
  t.columns.push_back({"rel_error", "rel. error", ""});
  if (s.gpu) t.columns.push_back({"two_runs", "2 runs", ""});
  bool any_atomic = false, any_fixed = false, any_cub = false;
  for (const KernelRun& r : runs) {
    if (std::string(rung_of(r.kernel)) != variant) continue;
    const std::string title = kernel_title(r.kernel);
    if (sec.title.empty()) sec.title = "rung " + title.substr(0, 1) + ": " + variant;
    const std::string name = title.substr(2);
    if (r.waived) {
      sec.notes.push_back(name + ": waived on this GPU: " + *r.waived);
      std::vector<Value> row{name, r.model.text()};
      if (s.gpu) row.push_back(std::string("waived"));
      row.push_back(relative_error(r.model.value, s.reference));
      if (s.gpu) row.push_back(Undefined{});
      t.add_row(std::move(row));
      continue;
    }
    any_cub = any_cub || !r.model_available;
    any_atomic = any_atomic || (r.model_available && !r.fixed_order);
    any_fixed = any_fixed || (r.model_available && r.fixed_order);
    const std::optional<double> result =
        r.gpu ? std::optional<double>(r.gpu->value) : r.model_available ? std::optional<double>(r.model.value)
                                                                          : std::nullopt;
    RowMark mark = RowMark::none;
    std::vector<Value> row{name, r.model_available ? Value{r.model.text()} : Value{Undefined{}}};
    if (s.gpu) row.push_back(r.gpu ? Value{r.gpu->text()} : Value{Undefined{}});
    row.push_back(result ? Value{relative_error(*result, s.reference)} : Value{Undefined{}});
    if (s.gpu)
      row.push_back(r.gpu && r.gpu_again ? Value{std::string(r.gpu->bits == r.gpu_again->bits ? "same" : "differ")}
                                         : Value{Undefined{}});

    if (r.gpu && r.model_available && r.fixed_order) {
      const bool same = r.gpu->bits == r.model.bits;
      if (!same) mark = RowMark::mismatch;
      sec.checks.push_back({name + ": GPU bits equal the model's", same,
                            "GPU " + with_bits(*r.gpu) + ", model " + with_bits(r.model)});
    }
    if (r.gpu && r.gpu_again && (r.fixed_order || r.kernel == Kernel::cub_sum)) {
      sec.checks.push_back({name + ": two runs give the same bits", r.gpu->bits == r.gpu_again->bits,
                            with_bits(*r.gpu) + " and " + with_bits(*r.gpu_again)});
    }
    if (r.gpu && r.model_available && !r.fixed_order) {
      const double diff = std::fabs(r.gpu->value - r.model.value);
      Check c;
      c.name = name + ": |GPU - model| within the atomic-order bound";
      if (r.order_bound < 0) {
        c.passed = true;
        c.detail = "|diff| = " + printf_number("%.3e", diff) + "; too many blocks for a bound (d*u >= 1)";
      } else {
        c.passed = diff <= r.order_bound;
        c.detail = "|diff| = " + printf_number("%.3e", diff) + " <= " + printf_number("%.3e", r.order_bound);
      }
      if (!c.passed) mark = RowMark::mismatch;
      sec.checks.push_back(c);
    }
    if (result) sec.checks.push_back(bound_check(name, r.kernel, *result, s, r.depth));
    if (r.cub_reduce_plus && r.gpu)
      sec.checks.push_back({name + ": Reduce(cuda::std::plus<>{}, 0) gives Sum's bits",
                            r.cub_reduce_plus->bits == r.gpu->bits,
                            "Reduce " + with_bits(*r.cub_reduce_plus) + ", Sum " + with_bits(*r.gpu)});
    t.add_row(std::move(row), mark);

    std::vector<double> gbs;
    for (double ms : r.ms) gbs.push_back(gb_per_s(s.n, s.dtype, ms));
    sec.measurements.push_back(measured(name + ": time per call", "ms", r.ms, s.gpu, ""));
    sec.measurements.push_back(measured(name + ": bandwidth", "GB/s", gbs, s.gpu, ""));
    if (r.kernel == Kernel::two_pass_seed || r.kernel == Kernel::static_buffer)
      sec.measurements.push_back(measured(
          name + ": whole reduce() call", "us", r.wrapper_us, s.gpu,
          r.kernel == Kernel::static_buffer ? "host clock: cudaGetSymbolAddress, 2 launches, cudaMemcpy of the sum"
                                            : "host clock: cudaMalloc, 2 launches, cudaMemcpy of the sum, cudaFree"));
  }
  if (any_atomic)
    t.legend.push_back("model: the block sums added in block order 0, 1, 2, ..., one order the atomics may take; "
                       "the GPU's may differ within 2 gamma_(G-1) x the sum of the block sums");
  if (any_fixed) t.legend.push_back("model: the kernel's own order of additions, replayed on the CPU");
  if (any_cub) t.legend.push_back("model: - (CUB's order is its own; the model does not replay it)");
  t.legend.push_back(std::string("rel. error: |sum - exact| / exact, of the ") + (s.gpu ? "GPU" : "model") + " sum");
  sec.tables.push_back(std::move(t));
  if (!sec.measurements.empty())
    sec.notes.push_back("bandwidth: n x " + std::to_string(type_bytes(s.dtype)) +
                        " bytes read once, over the time per call");
  return sec;
}

Section ladder_section(const std::vector<KernelRun>& runs, const Problem& s) {
  Section sec;
  sec.id = "ladder";
  sec.title = "the ladder: every rung side by side";
  sec.paragraphs.push_back(
      "model: bit-exact (the GPU's bits are the model's), in bound (an atomic rung, within the bound that covers "
      "every order of its atomics), or -. two runs: whether two calls gave the same bits. x CUB: bandwidth over "
      "CUB's, measured in the same run.");
  double cub_gbs = 0.0;
  for (const auto& r : runs)
    if (r.kernel == Kernel::cub_sum && !r.ms.empty()) cub_gbs = gb_per_s(s.n, s.dtype, report::median(r.ms));
  LaneTable t;
  t.id = "ladder";
  t.title = std::to_string(s.n) + " " + dtype_name(s.dtype) + "s" + (s.gpu ? ", on the GPU" : ", reference model");
  t.columns = {{"kernel", "kernel", ""},   {"sum", "sum", ""},        {"rel_error", "rel. error", ""},
               {"model", "model", ""},     {"two_runs", "2 runs", ""}, {"ms", "ms", ""},
               {"gb_per_s", "GB/s", ""},   {"vs_cub", "x CUB", ""}};
  for (const auto& r : runs) {
    if (r.waived) {
      t.add_row({std::string(kernel_title(r.kernel)), std::string("waived"), Undefined{}, Undefined{}, Undefined{},
                 Undefined{}, Undefined{}, Undefined{}});
      continue;
    }
    const bool has = r.gpu.has_value() || r.model_available;
    const Sum shown = r.gpu ? *r.gpu : r.model;
    Value agreement = Undefined{};
    RowMark mark = RowMark::none;
    if (r.gpu && r.model_available) {
      if (r.fixed_order) {
        agreement = std::string(r.gpu->bits == r.model.bits ? "bit-exact" : "MISMATCH");
        if (r.gpu->bits != r.model.bits) mark = RowMark::mismatch;
      } else {
        const bool in = r.order_bound < 0 || std::fabs(r.gpu->value - r.model.value) <= r.order_bound;
        agreement = std::string(in ? "in bound" : "OUT");
        if (!in) mark = RowMark::mismatch;
      }
    }
    Value two = Undefined{};
    if (r.gpu && r.gpu_again) two = std::string(r.gpu->bits == r.gpu_again->bits ? "same" : "differ");
    Value ms = Undefined{}, gbs = Undefined{}, ratio = Undefined{};
    if (!r.ms.empty()) {
      const double m = report::median(r.ms);
      ms = m;
      gbs = gb_per_s(s.n, s.dtype, m);
      if (cub_gbs > 0) ratio = gb_per_s(s.n, s.dtype, m) / cub_gbs;
    }
    t.add_row({std::string(kernel_title(r.kernel)), has ? Value{shown.text()} : Value{Undefined{}},
               has ? Value{relative_error(shown.value, s.reference)} : Value{Undefined{}}, agreement, two, ms, gbs,
               ratio},
              mark);
  }
  if (!s.gpu) t.legend.push_back("ms, GB/s and x CUB need a GPU; CUB's sum too (the model does not replay CUB)");
  else t.legend.push_back("ms and GB/s: medians over " + std::to_string(s.reps) + " calls");
  sec.tables.push_back(std::move(t));
  return sec;
}

namespace {

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

std::vector<int> offsets_of(int block) {
  std::vector<int> o;
  for (int off = block >> 1; off > 0; off >>= 1) o.push_back(off);
  return o;
}

}  // namespace

template <typename T>
Section trace_section(const Trace<T>& model, const std::optional<Trace<T>>& gpu, const Problem& s) {
  const int B = model.block;
  const int b = model.block_index;
  const int w = model.warp;
  Section sec;
  sec.id = "trace";
  sec.title = "trace: block " + std::to_string(b) + ", warp " + std::to_string(w);
  sec.paragraphs.push_back(
      "What the threads held after each step. The shared-memory tree is rung 1's and rung 2's (the same "
      "additions); '-' marks a word no later step reads. The shuffle tables are one warp's y: a lane whose "
      "source lies past lane 31 gets its own y back, so the upper lanes fill with values nobody uses.");
  if (w != 0)
    sec.notes.push_back("warp " + std::to_string(w) + " of rungs 3 and 5 shuffles values that are never used: only "
                        "thread 0 (warp 0) adds y to the result, and warp " + std::to_string(w) +
                        "'s words were already folded into warp 0's by the shared steps");
  const Trace<T>& shown = gpu ? *gpu : model;
  const std::string from = gpu ? " (GPU values)" : " (reference model)";

  // (A) the shared tree
  {
    const auto offs = offsets_of(B);
    LaneTable t;
    t.id = "shared_tree";
    t.title = "s_y[i] of block " + std::to_string(b) + " after each step" + from;
    t.columns = {{"i", "i", ""}, {"input", "input", ""}};
    for (int o : offs) t.columns.push_back({"after_" + std::to_string(o), "+" + std::to_string(o), ""});
    std::vector<int> bad;
    for (int i = 0; i < B; ++i) {
      std::vector<Value> row{static_cast<I>(i)};
      bool ok = true;
      for (std::size_t step = 0; step <= offs.size(); ++step) {
        const bool live = step == 0 || i < offs[step - 1];
        const auto at = step * static_cast<std::size_t>(B) + static_cast<std::size_t>(i);
        row.push_back(live ? Value{static_cast<double>(shown.shared_tree[at])} : Value{Undefined{}});
        if (gpu && live) ok = ok && same_bits(gpu->shared_tree[at], model.shared_tree[at]);
      }
      if (!ok) bad.push_back(i);
      t.add_row(std::move(row), ok ? RowMark::none : RowMark::mismatch);
    }
    t.legend.push_back("steps +" + std::to_string(offs.front()) + " ... +32 end with __syncthreads(), +16 ... +1 "
                       "with __syncwarp(); s_y[0] after +1 is the block's sum");
    sec.tables.push_back(std::move(t));
    if (gpu)
      sec.checks.push_back({"shared tree: GPU agrees with the model, every live word and step", bad.empty(),
                            bad.empty() ? std::to_string(B) + " words agree"
                                        : std::to_string(bad.size()) + " words differ, first s_y[" +
                                              std::to_string(bad.front()) + "]"});
  }

  const auto lane_table = [&](const std::string& id, const std::string& title, const std::vector<T>& g,
                              const std::vector<T>& m, int first_step, bool with_loop, const std::string& check) {
    LaneTable t;
    t.id = id;
    t.title = title + from;
    t.columns = {{"lane", "lane", ""}};
    if (with_loop) {
      t.columns.push_back({"thread", "thread", ""});
      t.columns.push_back({"elements", "elements", ""});
      t.columns.push_back({"loop", "loop y", ""});
    }
    t.columns.push_back({"start", "start", ""});
    for (int o = 16; o > 0; o >>= 1) t.columns.push_back({"after_" + std::to_string(o), "+" + std::to_string(o), ""});
    std::vector<int> bad;
    const std::int64_t stride = static_cast<std::int64_t>(s.plan.seed_grid) * B;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      std::vector<Value> row{static_cast<I>(lane)};
      const std::int64_t thread = static_cast<std::int64_t>(b) * B + w * kWarpSize + lane;
      if (with_loop) {
        row.push_back(static_cast<I>(thread));
        row.push_back(static_cast<I>(elements_of_thread(thread, s.n, stride)));
      }
      bool ok = true;
      const int steps = with_loop ? kGridStrideSteps : kShuffleSteps;
      for (int step = first_step; step < steps; ++step) {
        const auto at = static_cast<std::size_t>(step * kWarpSize + lane);
        row.push_back(static_cast<double>((gpu ? g : m)[at]));
        if (gpu) ok = ok && same_bits(g[at], m[at]);
      }
      if (!ok) bad.push_back(lane);
      t.add_row(std::move(row), ok ? RowMark::none : RowMark::mismatch);
    }
    sec.tables.push_back(std::move(t));
    if (gpu)
      sec.checks.push_back({check + ": GPU agrees with the model, every lane and step", bad.empty(),
                            bad.empty() ? "32 lanes agree" : std::to_string(bad.size()) + " lanes differ"});
  };

  // (B) rung 3's shuffles
  lane_table("shuffle", "rung 3, warp " + std::to_string(w) + ": y += __shfl_down_sync(FULL_MASK, y, offset)",
             gpu ? gpu->shuffle : model.shuffle, model.shuffle, 0, false, "rung 3 shuffles");
  // (C) rung 5's grid-stride loop and shuffles
  if (!model.grid_stride.empty()) {
    lane_table("grid_stride",
               "rung 5 (grid " + std::to_string(s.plan.seed_grid) + "), warp " + std::to_string(w) +
                   ": the grid-stride loop, then y = s_y[tid] after the shared steps, then g.shfl_down",
               gpu ? gpu->grid_stride : model.grid_stride, model.grid_stride, 0, true, "rung 5 grid-stride");
  } else {
    sec.notes.push_back("rung 5 has only " + std::to_string(s.plan.seed_grid) + " blocks: block " + std::to_string(b) +
                        " does not exist there");
  }
  return sec;
}

template Section trace_section<float>(const Trace<float>&, const std::optional<Trace<float>>&, const Problem&);
template Section trace_section<double>(const Trace<double>&, const std::optional<Trace<double>>&, const Problem&);

Section bench_section(Dtype dtype, const std::vector<int>& log2_sizes, const std::vector<BenchRow>& rows,
                      const Problem& s) {
  Section sec;
  sec.id = std::string("bench_") + dtype_name(dtype);
  sec.title = std::string("bench: ") + dtype_name(dtype) + ", GB/s by size";
  sec.paragraphs.push_back(
      "GB/s = n x " + std::to_string(type_bytes(dtype)) + " bytes / time per call (CUDA events; both launches of "
      "a two-pass rung, the memset of an atomic rung's target included). Each cell is the median of " +
      std::to_string(s.reps) + " calls after 3 warm-up calls; small sizes rotate through copies of the input so "
      "that every call reads device memory. x CUB divides by CUB's median in the same run.");
  std::vector<double> cub(log2_sizes.size(), 0.0);
  for (const auto& r : rows)
    if (r.kernel == Kernel::cub_sum)
      for (std::size_t i = 0; i < r.cells.size(); ++i)
        if (!r.cells[i].ms.empty()) cub[i] = gb_per_s(r.cells[i].n, dtype, report::median(r.cells[i].ms));

  LaneTable gbs, ratio;
  gbs.id = "gb_per_s";
  gbs.title = "GB/s, median";
  ratio.id = "vs_cub";
  ratio.title = "x CUB (median GB/s over CUB's median GB/s)";
  for (LaneTable* t : {&gbs, &ratio}) {
    t->columns = {{"kernel", "kernel", ""}};
    for (int l : log2_sizes) t->columns.push_back({"n_2_" + std::to_string(l), pow2_text(l), ""});
  }
  std::string best_name;
  double best_ratio = 0.0, best_gbs = 0.0;
  for (const auto& r : rows) {
    std::vector<Value> g{std::string(kernel_title(r.kernel))}, q{std::string(kernel_title(r.kernel))};
    std::vector<std::string> out_of_bound;
    bool any_checked = false;
    for (std::size_t i = 0; i < r.cells.size(); ++i) {
      const BenchCell& c = r.cells[i];
      if (c.ms.empty()) {
        g.push_back(Undefined{});
        q.push_back(Undefined{});
      } else {
        const double v = gb_per_s(c.n, dtype, report::median(c.ms));
        g.push_back(v);
        q.push_back(cub[i] > 0 ? Value{v / cub[i]} : Value{Undefined{}});
        if (i + 1 == r.cells.size() && r.kernel != Kernel::cub_sum && cub[i] > 0 && v / cub[i] > best_ratio) {
          best_ratio = v / cub[i];
          best_gbs = v;
          best_name = kernel_title(r.kernel);
        }
      }
      std::vector<double> samples;
      for (double ms : c.ms) samples.push_back(gb_per_s(c.n, dtype, ms));
      sec.measurements.push_back(measured(std::string(kernel_title(r.kernel)) + " @ " + pow2_text(log2_sizes[i]),
                                          "GB/s", samples, s.gpu, c.waived ? "waived: " + *c.waived : ""));
      if (c.waived) sec.measurements.back().needs_gpu = false;
      if (c.gpu) {
        any_checked = true;
        const double err = relative_error(c.gpu->value, c.reference);
        double tol = r.kernel == Kernel::cub_sum ? cub_tolerance(dtype) : gamma_bound(c.depth, unit_roundoff(dtype));
        if (tol >= 0 && err > tol) out_of_bound.push_back(pow2_text(log2_sizes[i]) + ": " + printf_number("%.3e", err));
      }
    }
    gbs.add_row(std::move(g));
    ratio.add_row(std::move(q));
    if (any_checked)
      sec.checks.push_back({std::string(kernel_title(r.kernel)) + ": every size within its error bound",
                            out_of_bound.empty(),
                            out_of_bound.empty() ? "relative error against the exact sum at every size"
                                                 : "out of bound at " + out_of_bound.front()});
  }
  if (!s.gpu) {
    gbs.legend.push_back("every cell needs a GPU");
    ratio.legend.push_back("every cell needs a GPU");
  }
  sec.tables.push_back(std::move(gbs));
  sec.tables.push_back(std::move(ratio));
  if (!best_name.empty())
    sec.facts.push_back({"best rung at " + pow2_text(log2_sizes.back()), best_name, "",
                         printf_number("%.1f", best_gbs) + " GB/s, " + printf_number("%.3f", best_ratio) + " x CUB"});
  return sec;
}

}  // namespace cudasync::cg_reduce
