#include "techniques/warp_primitives/warp_primitives_kernel_exercise.hpp"

#include <random>
#include <string>


namespace cudasync::warp_primitives {

namespace {

using std::to_string;
using I = std::int64_t;

constexpr std::size_t kExamples = 3;                    // wrong lanes named in the reason

std::int32_t warp_total(const std::vector<std::int32_t>& in, std::size_t warp) {
  std::int32_t s = 0;
  for (std::size_t i = warp * 32; i < warp * 32 + 32 && i < in.size(); ++i) s += in[i];
  return s;
}

}  // namespace

const char* const kWarpSumHarness =
    "extern \"C\" __global__ void cudasync_exercise(const int* in, int* out) {\n"
    "  const int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  out[t] = warp_sum(in[t]);\n"
    "}\n";

std::vector<std::int32_t> warp_sum_inputs(std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::int32_t> in(kWarpSumThreads);
  for (auto& v : in) v = static_cast<std::int32_t>(gen() % 100);
  return in;
}

course::KernelOutcome judge_warp_sum(const std::vector<std::int32_t>& in, const std::vector<std::int32_t>& out) {
  course::KernelOutcome o;
  report::Section s("lanes", "your warp_sum, lane by lane");
  const std::size_t warps = in.size() / 32;
  report::Table t("wrong-lanes", "the lanes that did not return their warp's sum");
  t.column("thread", "thread", report::Format::count)
      .column("warp", "warp", report::Format::count)
      .column("lane", "lane", report::Format::count)
      .column("v", "v", report::Format::count)
      .column("got", "returned", report::Format::count)
      .column("expected", "warp's sum", report::Format::count);
  std::size_t wrong = 0, own_value = 0, sum_in_lane0_only = 0;
  std::string examples_en, examples_zh;
  for (std::size_t i = 0; i < in.size() && i < out.size(); ++i) {
    const std::int32_t expected = warp_total(in, i / 32);
    if (out[i] == expected) continue;
    ++wrong;
    if (out[i] == in[i]) ++own_value;
    if (i % 32 != 0 && out[i - i % 32] == warp_total(in, i / 32)) ++sum_in_lane0_only;
    t.row({{"thread", static_cast<I>(i)}, {"warp", static_cast<I>(i / 32)}, {"lane", static_cast<I>(i % 32)},
           {"v", static_cast<I>(in[i])}, {"got", static_cast<I>(out[i])}, {"expected", static_cast<I>(expected)}},
          report::RowMark::mismatch);
    if (wrong <= kExamples) {
      examples_en += (wrong > 1 ? "; " : "") + std::string("lane ") + to_string(i % 32) + " of warp " +
                     to_string(i / 32) + " returned " + to_string(out[i]) + ", its warp's sum is " + to_string(expected);
      examples_zh += (wrong > 1 ? "；" : "") + std::string("线程束 ") + to_string(i / 32) + " 的 lane " + to_string(i % 32) +
                     " 返回 " + to_string(out[i]) + "，它所在线程束的和是 " + to_string(expected);
    }
  }
  s.fact("lanes", "lanes checked", static_cast<I>(in.size()), report::Format::count,
         to_string(warps) + " warps of 32");
  for (std::size_t w = 0; w < warps; ++w)
    s.fact("warp-" + to_string(w) + "-sum", "warp " + to_string(w) + "'s sum", static_cast<I>(warp_total(in, w)),
           report::Format::count);
  s.fact("wrong", "lanes wrong", static_cast<I>(wrong), report::Format::count);
  if (wrong > 0) s.add(std::move(t));
  o.sections.push_back(std::move(s));

  o.verdict.right = wrong == 0;
  if (o.verdict.right) {
    o.verdict.reason = {"every lane of the " + to_string(warps) + " warps returned its warp's sum",
                        "两个线程束的每个 lane 都返回了所在线程束的和"};
    return o;
  }
  std::string why_en, why_zh;
  if (own_value == wrong) {
    why_en = ": these lanes returned their own v, as if nothing was exchanged";
    why_zh = "：这些 lane 返回的是自己的 v，好像什么也没有交换";
  } else if (sum_in_lane0_only == wrong) {
    why_en = ": lane 0 of the warp holds the sum and the others do not, as __shfl_down_sync leaves it; "
             "the exercise asks for it in every lane (__shfl_xor_sync, or broadcast lane 0's with __shfl_sync)";
    why_zh = "：和只在线程束的 lane 0 里，正如 __shfl_down_sync 留下的那样；本练习要求每个 lane 都有它"
             "（用 __shfl_xor_sync，或者用 __shfl_sync 广播 lane 0 的值）";
  }
  o.verdict.reason = {to_string(wrong) + " of " + to_string(in.size()) + " lanes are wrong: " + examples_en +
                          (wrong > kExamples ? "; ..." : "") + why_en,
                      to_string(in.size()) + " 个 lane 中有 " + to_string(wrong) + " 个不对：" + examples_zh +
                          (wrong > kExamples ? "；……" : "") + why_zh};
  return o;
}

course::KernelOutcome run_warp_sum_exercise(const course::KernelRequest& request) {
  return course::compile_run_judge(request, kWarpSumHarness, 1, kWarpSumThreads, warp_sum_inputs(request.ctx->seed), judge_warp_sum);
}

}  // namespace cudasync::warp_primitives
