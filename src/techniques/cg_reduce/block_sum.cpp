// The block-sum kernel exercise (cg_reduce_course.hpp): thread 0 of every block against its block's sum.
#include <random>
#include <string>

#include "techniques/cg_reduce/cg_reduce_course.hpp"

namespace cudasync::cg_reduce {

namespace {

using std::to_string;
using I = std::int64_t;

constexpr std::size_t kExamples = 3;                    // wrong blocks named in the reason

std::int32_t total(const std::vector<std::int32_t>& in, std::size_t from, std::size_t count) {
  std::int32_t s = 0;
  for (std::size_t i = from; i < from + count && i < in.size(); ++i) s += in[i];
  return s;
}

// The harness NVRTC compiles after the student's file.
const char* const kBlockSumHarness =
    "extern \"C\" __global__ void cudasync_exercise(const int* in, int* out) {\n"
    "  const int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  out[t] = block_sum(in[t]);\n"
    "}\n";

}  // namespace

std::vector<std::int32_t> block_sum_inputs(std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::int32_t> in(static_cast<std::size_t>(kBlockSumGrid) * kBlockSumBlock);
  for (auto& v : in) v = static_cast<std::int32_t>(gen() % 100);
  return in;
}

course::KernelOutcome judge_block_sum(const std::vector<std::int32_t>& in, const std::vector<std::int32_t>& out) {
  course::KernelOutcome o;
  const std::size_t block = kBlockSumBlock, blocks = in.size() / block;
  report::Section s("blocks", "your block_sum, block by block");
  report::Table t("blocks", "what thread 0 of each block returned");
  t.column("block", "block", report::Format::count)
      .column("got", "thread 0 returned", report::Format::count)
      .column("expected", "block's sum", report::Format::count)
      .column("warp-0", "warp 0's sum", report::Format::count);
  std::size_t wrong = 0, own_value = 0, warp0_only = 0;
  std::string examples_en, examples_zh;
  for (std::size_t b = 0; b < blocks && b * block < out.size(); ++b) {
    const std::int32_t expected = total(in, b * block, block), warp0 = total(in, b * block, 32);
    const std::int32_t got = out[b * block];
    const bool ok = got == expected;
    t.row({{"block", static_cast<I>(b)}, {"got", static_cast<I>(got)}, {"expected", static_cast<I>(expected)},
           {"warp-0", static_cast<I>(warp0)}},
          ok ? report::RowMark::none : report::RowMark::mismatch);
    if (ok) continue;
    ++wrong;
    if (got == in[b * block]) ++own_value;
    if (got == warp0) ++warp0_only;
    if (wrong <= kExamples) {
      examples_en += (wrong > 1 ? "; " : "") + std::string("block ") + to_string(b) + "'s thread 0 returned " +
                     to_string(got) + ", the block's sum is " + to_string(expected);
      examples_zh += (wrong > 1 ? "；" : "") + std::string("线程块 ") + to_string(b) + " 的线程 0 返回 " +
                     to_string(got) + "，该线程块的和是 " + to_string(expected);
    }
  }
  t.legend.push_back("only thread 0's value is checked; warp 0's sum is there to compare with");
  s.fact("blocks", "blocks checked", static_cast<I>(blocks), report::Format::count,
         "of " + to_string(block) + " threads");
  s.fact("wrong", "blocks wrong", static_cast<I>(wrong), report::Format::count);
  s.add(std::move(t));
  o.sections.push_back(std::move(s));

  o.verdict.right = wrong == 0;
  if (o.verdict.right) {
    o.verdict.reason = {"thread 0 of every one of the " + to_string(blocks) + " blocks returned its block's sum",
                        to_string(blocks) + " 个线程块中每个线程块的线程 0 都返回了该线程块的和"};
    return o;
  }
  std::string why_en, why_zh;
  if (own_value == wrong) {
    why_en = ": thread 0 returned its own v, as if nothing was added";
    why_zh = "：线程 0 返回的是它自己的 v，好像什么也没有加";
  } else if (warp0_only == wrong) {
    why_en = ": thread 0 holds warp 0's sum only: the 4 warps' partial sums were never added together "
             "(shared memory and a __syncthreads() between the two steps)";
    why_zh = "：线程 0 只有线程束 0 的和：4 个线程束的部分和从未加在一起（两步之间需要共享内存和 __syncthreads()）";
  }
  o.verdict.reason = {to_string(wrong) + " of " + to_string(blocks) + " blocks are wrong: " + examples_en +
                          (wrong > kExamples ? "; ..." : "") + why_en,
                      to_string(blocks) + " 个线程块中有 " + to_string(wrong) + " 个不对：" + examples_zh +
                          (wrong > kExamples ? "；……" : "") + why_zh};
  return o;
}

course::KernelOutcome run_block_sum_exercise(const course::KernelRequest& request) {
  return course::compile_run_judge(request, kBlockSumHarness, kBlockSumGrid, kBlockSumBlock, block_sum_inputs(request.ctx->seed), judge_block_sum);
}

}  // namespace cudasync::cg_reduce
