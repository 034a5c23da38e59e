// The rung parts (shared, syncwarp, shfl, cg, two-pass, static, grid-sync, cub): each runs its
// kernels on the model (and the GPU), leaves the results in the run for the ladder, and shows
// them with their checks: bits against the model, the atomic-order bound, two runs, Higham's bound.
// The ladder (the lesson's finish) shows every kernel the rung parts ran side by side.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {

namespace {

using report::Format;
using report::printf_number;
using report::Undefined;
using report::Value;

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

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
    r.waived = say("gpu.no-cooperative-launch");
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

// The catalog key of a rung's paragraph.
const char* rung_text(const std::string& rung) {
  if (rung == "shared") return "rung.shared";
  if (rung == "syncwarp") return "rung.syncwarp";
  if (rung == "shfl") return "rung.shfl";
  if (rung == "cg") return "rung.cg";
  if (rung == "two-pass") return "rung.two-pass";
  if (rung == "static") return "rung.static";
  if (rung == "grid-sync") return "rung.grid-sync";
  return "rung.cub";
}

std::vector<double> scaled(const std::vector<double>& v, double factor) {
  std::vector<double> out;
  for (double x : v) out.push_back(x * factor);
  return out;
}

// Cub's Reduce(cuda::std::plus<>{}, 0) gives Sum's bits.
Verdict reduce_plus_agrees(const Sum& reduce, const Sum& sum) {
  return {reduce.bits == sum.bits, "Reduce " + reduce.with_bits() + ", Sum " + sum.with_bits()};
}

// One kernel's checks and measurements into `s`; returns the mark of its row: mismatch when the GPU
// disagreed with the model.
report::RowMark judge_kernel(const KernelRun& r, const Problem& p, report::Section& s) {
  const std::string id = kernel_id(r.kernel);
  const std::string name = kernel_name(r.kernel);
  report::RowMark mark = report::RowMark::none;
  if (const auto v = model_verdict(r))
    mark = r.fixed_order ? s.agreement(id + "-gpu-agrees", say("check.bit-for-bit", {{"name", name}}), *v)
                         : s.agreement(id + "-gpu-in-bound", say("check.in-order-bound", {{"name", name}}), *v);
  if (r.gpu && r.gpu_again && (r.fixed_order || r.kernel == Kernel::cub_sum))
    s.check(id + "-same-twice", say("check.same-twice", {{"name", name}}), same_bits_twice(*r.gpu, *r.gpu_again));
  if (const std::optional<Sum> shown = r.shown())
    s.check(id + "-error-bound", say("check.error-bound", {{"name", name}, {"bound", error_bound_title(r.kernel, p.dtype)}}),
            error_bound(r.kernel, p.dtype, shown->value, p.reference, r.depth));
  if (r.cub_reduce_plus && r.gpu)
    s.check(id + "-reduce-plus", say("check.reduce-plus", {{"name", name}}),
            reduce_plus_agrees(*r.cub_reduce_plus, *r.gpu));
  std::vector<double> gbs;
  for (double ms : r.ms) gbs.push_back(gb_per_s(p.n, p.dtype, ms));
  s.add(report::measured(id + "-time", say("measure.time", {{"name", name}}), Format::ns, scaled(r.ms, 1e6), p.gpu));
  s.add(report::measured(id + "-bandwidth", say("measure.bandwidth", {{"name", name}}), Format::gbps, gbs, p.gpu));
  if (r.kernel == Kernel::two_pass_fixed_grid || r.kernel == Kernel::static_buffer)
    s.add(report::measured(id + "-whole-call", say("measure.whole-call", {{"name", name}}), Format::ns,
                           scaled(r.wrapper_us, 1e3), p.gpu,
                           say(r.kernel == Kernel::static_buffer ? "measure.whole-call-static"
                                                                 : "measure.whole-call-malloc")));
  return mark;
}

// Fan 10.5.1 ("提高线程利用率"): in the shared tree of a block of `block` threads, step k (offset
// block / 2^k) keeps `offset` of the block's threads working. At 128: 64, 32, ..., 1 of 128 over 7
// steps, 1/7 of the threads on average ((1/2 + 1/4 + ... + 1/128) / 7 = 0.142).
report::Table thread_use_table(int block) {
  report::Table t("thread-use", say("thread-use.title"));
  t.column("step", say("column.step"), Format::count).column("offset", "offset", Format::count);
  t.column("working", say("thread-use.working"), Format::count).column("share", say("thread-use.share"), Format::ratio);
  int step = 0;
  for (int offset = block / 2; offset >= 1; offset /= 2)
    t.row({{"step", std::int64_t{++step}}, {"offset", std::int64_t{offset}}, {"working", std::int64_t{offset}},
           {"share", static_cast<double>(offset) / block}});
  t.picture = report::tree_picture("step", "offset");  // --html draws the tree
  t.legend.push_back(say("thread-use.legend"));
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
  report::Table t("access", say("access.title"));
  t.column("layout", say("access.layout")).column("apart", say("access.apart"), Format::count);
  t.column("sectors", say("access.sectors"), Format::count);
  t.row({{"layout", say("access.grid-stride")}, {"apart", std::int64_t{1}}, {"sectors", sectors_per_warp_load(1, bytes)}});
  t.row({{"layout", say("access.adjacent", {{"k", k}})}, {"apart", k}, {"sectors", sectors_per_warp_load(k, bytes)}});
  t.legend.push_back(say("access.legend", {{"threads", threads}}));
  return t;
}

}  // namespace

report::Section rung_section(const std::string& rung, const std::vector<KernelRun>& runs, const Problem& p) {
  report::Section s(rung, say("rung.title", {{"number", kernel_rung(runs.front().kernel)}, {"rung", rung}}));
  s.paragraph(say(rung_text(rung)));
  report::Table t("results", say("results.title"));
  t.column("kernel", say("column.kernel")).column("model", say("column.model"), Format::exact);
  if (p.gpu) t.column("gpu", "GPU", Format::exact);
  t.column("rel-error", say("column.rel-error"), Format::error);
  if (p.gpu) t.column("two-runs", say("column.two-runs"));
  t.column("chain", say("column.chain"), Format::count);  // the d of the error bound gamma_d, as data
  bool any_atomic = false, any_fixed = false, any_cub = false;
  for (const KernelRun& r : runs) {
    any_cub = any_cub || !r.model_available;
    any_atomic = any_atomic || (r.model_available && !r.fixed_order);
    any_fixed = any_fixed || (r.model_available && r.fixed_order);
    const std::optional<Sum> result = r.shown();
    std::vector<std::pair<std::string, Value>> cells{
        {"kernel", kernel_name(r.kernel)},
        {"model", r.model_available ? Value{r.model.value} : Value{Undefined{}}},
        {"rel-error", result ? Value{relative_error(result->value, p.reference)}
                             : p.gpu ? Value{Undefined{}} : Value{report::NeedsGpu{}}},
        {"chain", r.kernel == Kernel::cub_sum ? Value{Undefined{}} : Value{r.depth}}};
    if (p.gpu) {
      cells.emplace_back("gpu", r.gpu ? Value{r.gpu->value} : Value{Undefined{}});
      cells.emplace_back("two-runs", r.gpu && r.gpu_again
                                         ? Value{say(r.gpu->bits == r.gpu_again->bits ? "two-runs.same" : "two-runs.differ")}
                                         : Value{Undefined{}});
    }
    t.row(cells, judge_kernel(r, p, s));
  }
  if (any_atomic) t.legend.push_back(say("results.atomic-legend"));
  if (any_fixed) t.legend.push_back(say("results.fixed-legend"));
  if (any_cub) t.legend.push_back(say("results.cub-legend"));
  t.legend.push_back(say(p.gpu ? "results.error-legend-gpu" : "results.error-legend-model"));
  if (any_atomic || any_fixed) t.legend.push_back(say("results.chain-legend"));
  s.add(std::move(t));
  s.note(say("results.bandwidth-note", {{"bytes", type_bytes(p.dtype)}}));
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
    s.fact("tree-thread-use", say("shared.tree-use"), tree_thread_use(run.options.block), Format::ratio,
           say("shared.tree-use-note"));
  }
  if (rung == "two-pass") s.add(access_table(run.problem));
  if (rung == "grid-sync")
    s.fact("grid-valid", "this_grid().is_valid()", say("grid-sync.valid"), Format::plain,
           say("grid-sync.valid-source"));
  const Plan assumed = default_plan(run.options.block);
  if (rung == "grid-sync" && !run.ctx.gpu && run.options.grid && assumed.grid_sync_grid < *run.options.grid)
    s.note(say("grid-sync.too-large-note",
               {{"grid", *run.options.grid}, {"limit", assumed.grid_sync_grid}, {"block", run.options.block}}));
  return s;
}

// ---------------------------------------------------------------- verdicts

std::string Sum::text() const { return printf_number(dtype == Dtype::f32 ? "%.9g" : "%.17g", value); }

std::string Sum::with_bits() const {
  char b[32];
  if (dtype == Dtype::f32) std::snprintf(b, sizeof b, "0x%08x", static_cast<unsigned>(bits));
  else std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(bits));
  return text() + " (" + b + ")";
}

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

Sum sum_in(Dtype d, double v) { return d == Dtype::f32 ? sum_of(static_cast<float>(v)) : sum_of(v); }

std::size_t type_bytes(Dtype d) { return d == Dtype::f32 ? 4 : 8; }

double gb_per_s(std::int64_t n, Dtype d, double ms) {
  return static_cast<double>(n) * static_cast<double>(type_bytes(d)) / (ms * 1e6);
}

double relative_error(double sum, double reference) {
  return reference == 0.0 ? std::fabs(sum) : std::fabs(sum - reference) / std::fabs(reference);
}

Verdict bits_agree(const Sum& gpu, const Sum& model) {
  return {gpu.bits == model.bits, say("judge.bits", {{"gpu", gpu.with_bits()}, {"model", model.with_bits()}})};
}

Verdict same_bits_twice(const Sum& first, const Sum& second) {
  return {first.bits == second.bits, say("judge.twice", {{"first", first.with_bits()}, {"second", second.with_bits()}})};
}

Verdict within_order_bound(const Sum& gpu, const Sum& model, double bound) {
  const double diff = std::fabs(gpu.value - model.value);
  if (bound < 0) return {true, say("judge.no-order-bound", {{"diff", printf_number("%.3e", diff)}})};
  return {diff <= bound, "|diff| = " + printf_number("%.3e", diff) + " <= " + printf_number("%.3e", bound)};
}

std::string error_bound_title(Kernel k, Dtype d) {
  if (k == Kernel::cub_sum) return say("judge.cub-bound-title", {{"tolerance", printf_number("%.0e", cub_tolerance(d))}});
  return say("judge.bound-title");
}

Verdict error_bound(Kernel k, Dtype d, double sum, double reference, std::int64_t depth) {
  const double err = relative_error(sum, reference);
  const std::string e = printf_number("%.3e", err);
  if (k == Kernel::cub_sum) return {err <= cub_tolerance(d), say("judge.cub-error", {{"error", e}})};
  const double g = gamma_bound(depth, unit_roundoff(d));
  if (g < 0) return {true, say("judge.no-bound", {{"error", e}, {"depth", depth}})};
  return {err <= g, say("judge.in-bound", {{"error", e}, {"depth", depth}, {"gamma", printf_number("%.3e", g)}})};
}


std::optional<Verdict> model_verdict(const KernelRun& r) {
  if (!r.gpu || !r.model_available) return std::nullopt;
  return r.fixed_order ? bits_agree(*r.gpu, r.model) : within_order_bound(*r.gpu, r.model, r.order_bound);
}

std::optional<std::string> agreement_word(const KernelRun& r, bool& agrees) {
  const std::optional<Verdict> v = model_verdict(r);
  agrees = !v || v->passed;
  if (!v) return std::nullopt;
  if (r.fixed_order) return say(agrees ? "word.bit-exact" : "word.mismatch");
  return say(agrees ? "word.in-bound" : "word.out");
}

Verdict every_size_in_bound(Kernel k, Dtype d, const std::vector<BenchSum>& cells) {
  for (const BenchSum& c : cells) {
    const double err = relative_error(c.sum, c.reference);
    const double tol = k == Kernel::cub_sum ? cub_tolerance(d) : gamma_bound(c.depth, unit_roundoff(d));
    if (tol >= 0 && err > tol)
      return {false, say("judge.out-of-bound", {{"size", c.size}, {"error", printf_number("%.3e", err)}})};
  }
  return {true, say("judge.every-size")};
}

template <typename T>
bool tree_word_agrees(const std::vector<T>& gpu, const std::vector<T>& model, int block, int i) {
  // Step 0 is the input; step s (offset block >> s) leaves words 0 .. (block >> s) - 1 live.
  for (int step = 0, live = block; i < live; ++step, live = block >> step) {
    const auto at = static_cast<std::size_t>(step) * static_cast<std::size_t>(block) + static_cast<std::size_t>(i);
    if (!same_bits(gpu[at], model[at])) return false;
  }
  return true;
}

template <typename T>
bool lane_agrees(const std::vector<T>& gpu, const std::vector<T>& model, int steps, int lane) {
  for (int step = 0; step < steps; ++step) {
    const auto at = static_cast<std::size_t>(step * kWarpSize + lane);
    if (!same_bits(gpu[at], model[at])) return false;
  }
  return true;
}

template bool tree_word_agrees<float>(const std::vector<float>&, const std::vector<float>&, int, int);
template bool tree_word_agrees<double>(const std::vector<double>&, const std::vector<double>&, int, int);
template bool lane_agrees<float>(const std::vector<float>&, const std::vector<float>&, int, int);
template bool lane_agrees<double>(const std::vector<double>&, const std::vector<double>&, int, int);

// ---------------------------------------------------------------- the ladder

report::Section ladder_section(const std::vector<KernelRun>& runs, const Problem& p) {
  report::Section s("ladder", say("ladder.title"));
  s.paragraph(say("ladder.about"));
  double cub_gbs = 0.0;
  for (const auto& r : runs)
    if (r.kernel == Kernel::cub_sum && !r.ms.empty()) cub_gbs = gb_per_s(p.n, p.dtype, report::median(r.ms));
  report::Table t("ladder", say(p.gpu ? "ladder.table-gpu" : "ladder.table-model", {{"n", p.n}, {"dtype", dtype_name(p.dtype)}}));
  t.column("kernel", say("column.kernel"))
      .column("sum", say("column.sum"), Format::exact)
      .column("rel-error", say("column.rel-error"), Format::error)
      .column("model", say("column.model"))
      .column("two-runs", say("column.two-runs"))
      .column("time", "ns", Format::ns)
      .column("bandwidth", "GB/s", Format::gbps)
      .column("vs-cub", "x CUB", Format::ratio);
  const Value no_gpu = p.gpu ? Value{Undefined{}} : Value{report::NeedsGpu{}};
  for (const auto& r : runs) {
    const std::string kernel = kernel_title(r.kernel);
    if (r.waived) {
      t.row({{"kernel", kernel}, {"sum", say("waived")}});
      continue;
    }
    const std::optional<Sum> shown = r.shown();
    bool agrees = true;
    const auto word = agreement_word(r, agrees);
    Value time = no_gpu, bandwidth = no_gpu, vs_cub = no_gpu, two_runs = Undefined{};
    if (!r.ms.empty()) {
      const double ms = report::median(r.ms);
      time = ms * 1e6;
      bandwidth = gb_per_s(p.n, p.dtype, ms);
      vs_cub = cub_gbs > 0 ? Value{gb_per_s(p.n, p.dtype, ms) / cub_gbs} : Value{Undefined{}};
    }
    if (r.gpu && r.gpu_again) two_runs = say(r.gpu->bits == r.gpu_again->bits ? "two-runs.same" : "two-runs.differ");
    const std::vector<std::pair<std::string, Value>> cells{
        {"kernel", kernel},
        {"sum", shown ? Value{shown->value} : no_gpu},
        {"rel-error", shown ? Value{relative_error(shown->value, p.reference)} : no_gpu},
        {"model", word ? Value{*word} : Value{Undefined{}}},
        {"two-runs", two_runs},
        {"time", time},
        {"bandwidth", bandwidth},
        {"vs-cub", vs_cub}};
    t.row(cells, agrees ? report::RowMark::none : report::RowMark::mismatch);
  }
  if (!p.gpu) t.legend.push_back(say("ladder.cub-legend"));
  else t.legend.push_back(say("ladder.medians-legend", {{"reps", p.reps}}));
  // The HTML page draws the ladder as bars: each rung's rounding error, and on a GPU its time and
  // its bandwidth as a multiple of CUB's (the CUB row beside each).
  t.picture = report::bars_picture({"kernel"}, p.gpu ? std::vector<std::string>{"rel-error", "time", "vs-cub"}
                                                     : std::vector<std::string>{"rel-error"},
                                   kernel_title(Kernel::cub_sum));
  s.add(std::move(t));
  return s;
}

void ladder_finish(Run& run, report::Report& report) {
  if (run.runs.size() > 1) report.sections.push_back(ladder_section(run.runs, run.problem));
}

}  // namespace cudasync::cg_reduce
