#include "techniques/cg_reduce/cg_reduce_judge.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/report/text_format.hpp"
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

using report::printf_number;

namespace {

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

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

Verdict reduce_plus_agrees(const Sum& reduce, const Sum& sum) {
  return {reduce.bits == sum.bits, "Reduce " + reduce.with_bits() + ", Sum " + sum.with_bits()};
}

std::optional<std::string> agreement_word(const KernelRun& r, bool& agrees) {
  agrees = true;
  if (!r.gpu || !r.model_available) return std::nullopt;
  if (r.fixed_order) {
    agrees = r.gpu->bits == r.model.bits;
    return say(agrees ? "word.bit-exact" : "word.mismatch");
  }
  agrees = within_order_bound(*r.gpu, r.model, r.order_bound).passed;
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
std::vector<int> differing_tree_words(const std::vector<T>& gpu, const std::vector<T>& model, int block) {
  std::vector<int> bad;
  for (int i = 0; i < block; ++i) {
    bool ok = true;
    // Step 0 is the input; step s (offset block >> s) leaves words 0 .. (block >> s) - 1 live.
    for (int step = 0, live = block; live >= 1; ++step, live = block >> step) {
      if (i >= live) break;
      const auto at = static_cast<std::size_t>(step) * static_cast<std::size_t>(block) + static_cast<std::size_t>(i);
      ok = ok && same_bits(gpu[at], model[at]);
    }
    if (!ok) bad.push_back(i);
  }
  return bad;
}

template <typename T>
std::vector<int> differing_lanes(const std::vector<T>& gpu, const std::vector<T>& model, int steps) {
  std::vector<int> bad;
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int step = 0; step < steps; ++step) {
      const auto at = static_cast<std::size_t>(step * kWarpSize + lane);
      if (!same_bits(gpu[at], model[at])) {
        bad.push_back(lane);
        break;
      }
    }
  return bad;
}

template std::vector<int> differing_tree_words<float>(const std::vector<float>&, const std::vector<float>&, int);
template std::vector<int> differing_tree_words<double>(const std::vector<double>&, const std::vector<double>&, int);
template std::vector<int> differing_lanes<float>(const std::vector<float>&, const std::vector<float>&, int);
template std::vector<int> differing_lanes<double>(const std::vector<double>&, const std::vector<double>&, int);

}  // namespace cudasync::cg_reduce
