// The rung parts (shared, syncwarp, shfl, cg, two-pass, static, grid-sync, cub): each runs its
// kernels on the model (and the GPU), leaves the results in the run for the ladder, and shows
// them with their checks: bits against the model, the atomic-order bound, two runs, Higham's bound.
#include <algorithm>
#include <vector>

#include "core/errors.hpp"
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

namespace {

using report::Format;
using report::Undefined;
using report::Value;

// Each kernel's rung (the part that runs it) and its order class: kernels of one class share one
// model computation (every atomic rung adds the same block sums). In the order of enum Kernel.
struct Placed {
  const char* rung;
  int order_class;
};
constexpr Placed kPlaced[kKernelCount] = {{"shared", 0},   {"syncwarp", 0}, {"shfl", 0},     {"shfl", 0},
                                          {"cg", 0},       {"cg", 0},       {"two-pass", 1}, {"two-pass", 2},
                                          {"two-pass", 3}, {"static", 1},   {"grid-sync", 4}, {"cub", 5}};
int order_class(Kernel k) { return kPlaced[static_cast<int>(k)].order_class; }

}  // namespace

const char* rung_of(Kernel k) { return kPlaced[static_cast<int>(k)].rung; }

namespace {

template <typename T>
KernelRun model_run(Kernel k, const std::vector<T>& x, const Plan& plan) {
  const ModelResult<T> m = model_kernel(k, x, plan);
  KernelRun r;
  r.model_available = m.available;
  r.fixed_order = m.fixed_order;
  r.model = sum_of(m.sum);
  if (!m.block_sums.empty()) r.order_bound = atomic_order_bound(m.block_sums);
  return r;
}

// Kernel k on the model (once per order class) and, on a GPU, twice, timed.
KernelRun run_kernel(Run& run, Kernel k) {
  const Problem& p = run.problem;
  auto it = run.models.find(order_class(k));
  if (it == run.models.end())
    it = run.models.emplace(order_class(k), p.dtype == Dtype::f32 ? model_run(k, run.xf, p.plan)
                                                                   : model_run(k, run.xd, p.plan)).first;
  KernelRun r = it->second;
  r.kernel = k;
  r.depth = error_depth(k, p.n, p.plan, p.dtype);
  if (!run.ctx.gpu) return r;
  if (k == Kernel::grid_sync && !run.cooperative) {
    r.waived = "this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0)";
    return r;
  }
  try {
    r.gpu = sum_in(p.dtype, gpu_sum(*run.gpu, k, p.plan));
    r.gpu_again = sum_in(p.dtype, gpu_sum(*run.gpu, k, p.plan));
    r.ms = gpu_time_ms(*run.gpu, k, p.plan, p.reps, 2);
    if (k == Kernel::two_pass_fixed_grid || k == Kernel::static_buffer) r.wrapper_us = gpu_wrapper_us(*run.gpu, k, p.plan, p.reps);
    if (k == Kernel::cub_sum) r.cub_reduce_plus = sum_in(p.dtype, gpu_cub_reduce_plus(*run.gpu));
  } catch (const WaivedError& e) {
    r.waived = e.what();
  }
  return r;
}

const char* rung_text(const std::string& rung) {
  if (rung == "shared")
    return "Rung 1, the shared-memory reduction of Fan's chapter 9, where ch. 10 (10.2) starts: each thread puts "
           "one element in s_y, then s_y[tid] += s_y[tid + offset] for offset = blockDim.x/2 ... 1, with "
           "__syncthreads() after every step; thread 0 adds the block's sum to d_y with atomicAdd. The blocks "
           "finish in any order, so the atomics add their sums in any order, and float addition is not "
           "associative: the last bits can change from run to run.";
  if (rung == "syncwarp")
    return "Rung 2, Fan 10.2 reduce_syncwarp: the same tree, but from offset 16 down only warp 0 works, so "
           "__syncwarp() replaces __syncthreads(). A widely copied transcription of the chapter writes "
           "`offset=blockDim.x>1` (a comparison worth 1: the block loop never runs) and `offset>=1` (a "
           "comparison: the warp loop never ends) where the book has >> and >>=. The additions are rung 1's, "
           "so every block sum has the same bits.";
  if (rung == "shfl")
    return "Rung 3, Fan 10.3.2 reduce_shfl: after the block steps down to offset 32, y = s_y[tid] moves to a "
           "register and y += __shfl_down_sync(FULL_MASK, y, offset), offset 16 ... 1, replaces the shared "
           "steps and their __syncwarp: a shuffle reads every lane's y before any lane writes. Lane 0 adds what "
           "rung 2's s_y[0] adds. __shfl_xor_sync gives every lane the sum; lane 0 gets the same bits.";
  if (rung == "cg")
    return "Rung 4, Fan 10.4.2 reduce_cp: thread_block_tile<32> g = tiled_partition<32>(this_thread_block()); "
           "then y += g.shfl_down(y, i) for i = g.size()/2 ... 1. A widely copied transcription writes "
           "g.shfl_down(y.i), a dot for the comma, which does not compile. cg::reduce(g, y, cg::plus<T>()) does "
           "the same work as a butterfly of shfl_xor and hands every lane the sum; lane 0's additions are again "
           "the tree's.";
  if (rung == "two-pass")
    return "Rung 5, Fan 10.5.1 (its second reduce_cp): each thread first adds d_x[n], d_x[n + stride], ... "
           "(stride = blockDim.x * gridDim.x) in a register, the block reduces as in rung 4 and writes "
           "d_y[bid]; a second launch <<<1, 1024>>> of the same kernel reduces d_y in place. No atomics: the "
           "order is fixed, two runs give the same bits, and the model reproduces them. Rows: Fan's grid of "
           "10240 blocks; as many blocks as fit at once (occupancy API); and a vector kernel (float4 or "
           "double2 loads, 4 in flight per thread, warps reduced first) on its own occupancy grid.";
  if (rung == "static")
    return "Rung 6, Fan 10.5.2: d_y is a static __device__ array of 10240 elements whose address "
           "cudaGetSymbolAddress gives, instead of a cudaMalloc and a cudaFree in every call. Same kernels, same "
           "bits as rung 5's grid-10240 row; the saving shows in the whole call: compare the 'whole reduce() "
           "call' measurements of the two rungs.";
  if (rung == "grid-sync")
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

std::vector<double> scaled(const std::vector<double>& v, double factor) {
  std::vector<double> out;
  for (double x : v) out.push_back(x * factor);
  return out;
}

// One kernel's checks and measurements into `s`; returns whether the GPU agreed with the model.
bool judge_kernel(const KernelRun& r, const Problem& p, report::Section& s) {
  const std::string id = kernel_id(r.kernel);
  const std::string name = std::string(kernel_title(r.kernel)).substr(2);
  bool agrees = true;
  if (r.gpu && r.model_available && r.fixed_order) {
    const Verdict v = bits_agree(*r.gpu, r.model);
    agrees = v.passed;
    s.agreement(id + "-gpu-agrees", name + ", bit for bit", v.passed, v.detail);
  }
  if (r.gpu && r.gpu_again && (r.fixed_order || r.kernel == Kernel::cub_sum)) {
    const Verdict v = same_bits_twice(*r.gpu, *r.gpu_again);
    s.check(id + "-same-twice", name + ": two runs give the same bits", v.passed, v.detail);
  }
  if (r.gpu && r.model_available && !r.fixed_order) {
    const Verdict v = within_order_bound(*r.gpu, r.model, r.order_bound);
    agrees = v.passed;
    s.agreement(id + "-gpu-in-bound", name + ", within the atomic-order bound", v.passed, v.detail);
  }
  const std::optional<double> result =
      r.gpu ? std::optional<double>(r.gpu->value) : r.model_available ? std::optional<double>(r.model.value) : std::nullopt;
  if (result) {
    const Verdict v = error_bound(r.kernel, p.dtype, *result, p.reference, r.depth);
    s.check(id + "-error-bound", name + ": " + error_bound_title(r.kernel, p.dtype), v.passed, v.detail);
  }
  if (r.cub_reduce_plus && r.gpu) {
    const Verdict v = reduce_plus_agrees(*r.cub_reduce_plus, *r.gpu);
    s.check(id + "-reduce-plus", name + ": Reduce(cuda::std::plus<>{}, 0) gives Sum's bits", v.passed, v.detail);
  }
  std::vector<double> gbs;
  for (double ms : r.ms) gbs.push_back(gb_per_s(p.n, p.dtype, ms));
  s.add(report::measured(id + "-time", name + ": time per call", Format::ns, scaled(r.ms, 1e6), p.gpu));
  s.add(report::measured(id + "-bandwidth", name + ": bandwidth", Format::gbps, gbs, p.gpu));
  if (r.kernel == Kernel::two_pass_fixed_grid || r.kernel == Kernel::static_buffer)
    s.add(report::measured(id + "-whole-call", name + ": whole reduce() call", Format::ns, scaled(r.wrapper_us, 1e3),
                           p.gpu,
                           r.kernel == Kernel::static_buffer
                               ? "host clock: cudaGetSymbolAddress, 2 launches, cudaMemcpy of the sum"
                               : "host clock: cudaMalloc, 2 launches, cudaMemcpy of the sum, cudaFree"));
  return agrees;
}

// Fan 10.5.1 ("提高线程利用率"): in the shared tree of a block of `block` threads, step k (offset
// block / 2^k) keeps `offset` of the block's threads working. At 128: 64, 32, ..., 1 of 128 over 7
// steps, 1/7 of the threads on average ((1/2 + 1/4 + ... + 1/128) / 7 = 0.142).
report::Table thread_use_table(int block) {
  report::Table t("thread-use", "the shared tree of one block: threads working at each step (model)");
  t.column("step", "step", Format::count).column("offset", "offset", Format::count);
  t.column("working", "threads working", Format::count).column("share", "share of the block", Format::ratio);
  int step = 0;
  for (int offset = block / 2; offset >= 1; offset /= 2)
    t.row({{"step", std::int64_t{++step}}, {"offset", std::int64_t{offset}}, {"working", std::int64_t{offset}},
           {"share", static_cast<double>(offset) / block}});
  t.legend.push_back("the loads before the tree keep every thread working: rung 5 has each thread add many "
                     "elements first, in a register, so the tree's share of the work shrinks (Fan 10.5.1)");
  return t;
}

double tree_thread_use(int block) {
  double sum = 0;
  int steps = 0;
  for (int offset = block / 2; offset >= 1; offset /= 2, ++steps) sum += static_cast<double>(offset) / block;
  return steps == 0 ? 1.0 : sum / steps;
}

// The 32-byte sectors one warp-wide load touches when lane t reads element t * stride + i (stride
// in elements of `bytes` each): 1 apart (Fan's grid-stride loop, coalesced) or k apart (a thread
// given k adjacent elements). Lane 0 reads element 0: 32 lanes x 4 bytes 1 apart touch 4 sectors.
std::int64_t sectors_per_warp_load(std::int64_t stride, int bytes) {
  std::vector<std::int64_t> sectors;
  for (std::int64_t lane = 0; lane < kWarpSize; ++lane) {
    const std::int64_t s = lane * stride * bytes / 32;
    if (std::find(sectors.begin(), sectors.end(), s) == sectors.end()) sectors.push_back(s);
  }
  return static_cast<std::int64_t>(sectors.size());
}

report::Table access_table(const Problem& p) {
  const int bytes = static_cast<int>(type_bytes(p.dtype));
  const std::int64_t threads = static_cast<std::int64_t>(p.plan.seed_grid) * p.plan.block;
  const std::int64_t k = std::max<std::int64_t>(1, (p.n + threads - 1) / threads);
  report::Table t("access", "one warp-wide load of rung 5's first pass: who reads which element (model)");
  t.column("layout", "each thread reads").column("apart", "lanes apart, elements", Format::count);
  t.column("sectors", "32-byte sectors per warp load", Format::count);
  t.row({{"layout", std::string("n, n + stride, ... (Fan's grid-stride loop)")}, {"apart", std::int64_t{1}},
         {"sectors", sectors_per_warp_load(1, bytes)}});
  t.row({{"layout", std::string(std::to_string(k) + " adjacent elements, t*k .. t*k+k-1")}, {"apart", k},
         {"sectors", sectors_per_warp_load(k, bytes)}});
  t.legend.push_back("stride = grid x block = " + std::to_string(threads) + " threads; k = n / stride rounded up. "
                     "Adjacent lanes must read adjacent elements: never give one thread adjacent elements "
                     "(Fan 10.5.1)");
  return t;
}

}  // namespace

report::Section rung_section(const std::string& rung, const std::vector<KernelRun>& runs, const Problem& p) {
  report::Section s(rung, "rung " + std::string(kernel_title(runs.front().kernel)).substr(0, 1) + ": " + rung);
  s.paragraph(rung_text(rung));
  report::Table t("results", "results");
  t.column("kernel", "kernel").column("model", "model", Format::exact);
  if (p.gpu) t.column("gpu", "GPU", Format::exact);
  t.column("rel-error", "rel. error", Format::error);
  if (p.gpu) t.column("two-runs", "2 runs");
  bool any_atomic = false, any_fixed = false, any_cub = false;
  for (const KernelRun& r : runs) {
    any_cub = any_cub || !r.model_available;
    any_atomic = any_atomic || (r.model_available && !r.fixed_order);
    any_fixed = any_fixed || (r.model_available && r.fixed_order);
    const std::optional<Sum> result = r.gpu ? r.gpu : r.model_available ? std::optional<Sum>(r.model) : std::nullopt;
    std::vector<std::pair<std::string, Value>> cells{
        {"kernel", std::string(kernel_title(r.kernel)).substr(2)},
        {"model", r.model_available ? Value{r.model.value} : Value{Undefined{}}},
        {"rel-error", result ? Value{relative_error(result->value, p.reference)}
                             : p.gpu ? Value{Undefined{}} : Value{report::NeedsGpu{}}}};
    if (p.gpu) {
      cells.emplace_back("gpu", r.gpu ? Value{r.gpu->value} : Value{Undefined{}});
      cells.emplace_back("two-runs", r.gpu && r.gpu_again ? Value{std::string(r.gpu->bits == r.gpu_again->bits ? "same" : "differ")}
                                                          : Value{Undefined{}});
    }
    const bool agrees = judge_kernel(r, p, s);
    t.row(cells, agrees ? report::RowMark::none : report::RowMark::mismatch);
  }
  if (any_atomic)
    t.legend.push_back("model: the block sums added in block order 0, 1, 2, ..., one order the atomics may take; "
                       "the GPU's may differ within 2 gamma_(G-1) x the sum of the block sums");
  if (any_fixed) t.legend.push_back("model: the kernel's own order of additions, replayed on the CPU");
  if (any_cub) t.legend.push_back("model: - (CUB's order is its own; the model does not replay it)");
  t.legend.push_back(std::string("rel. error: |sum - exact| / exact, of the ") + (p.gpu ? "GPU" : "model") + " sum");
  s.add(std::move(t));
  s.note("bandwidth: n x " + std::to_string(type_bytes(p.dtype)) + " bytes read once, over the time per call");
  return s;
}

report::Section rung_part(Run& run, const std::string& rung) {
  std::vector<KernelRun> mine;
  for (Kernel k : kLadder)
    if (rung_of(k) == rung) {
      mine.push_back(run_kernel(run, k));
      run.runs.push_back(mine.back());  // the ladder shows it, waived or not
    }
  for (const KernelRun& r : mine)
    if (r.waived) throw WaivedError(*r.waived);
  report::Section s = rung_section(rung, mine, run.problem);
  if (rung == "shared") {
    s.add(thread_use_table(run.options.block));
    s.fact("tree-thread-use", "threads working in the tree, on average over its steps (model)",
           tree_thread_use(run.options.block), Format::ratio, "Fan 10.5.1: about 1/7 at a block of 128");
  }
  if (rung == "two-pass") s.add(access_table(run.problem));
  if (rung == "grid-sync")
    s.fact("grid-valid", "this_grid().is_valid()",
           std::string("true in a cooperative launch, as rung 7's; with <<<grid, block>>> it is false, and "
                       "grid.sync() then calls _CG_ABORT(), __trap() outside a debug build: the kernel traps, it "
                       "does not hang"),
           Format::plain, "cooperative_groups.h and details/info.h, CUDA 13.0");
  const Plan assumed = default_plan(run.options.block);
  if (rung == "grid-sync" && !run.ctx.gpu && run.options.grid && assumed.grid_sync_grid < *run.options.grid)
    s.note("--grid " + std::to_string(*run.options.grid) + " is more blocks than an H100 holds at once (" +
           std::to_string(assumed.grid_sync_grid) + " of " + std::to_string(run.options.block) +
           " threads): on such a GPU the cooperative launch is refused, and a run of the grid-sync rung alone exits 77");
  return s;
}

}  // namespace cudasync::cg_reduce
