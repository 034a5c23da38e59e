// The block-sum kernel exercise (cg_reduce_course.hpp): thread 0 of every block against its block's sum.
#include <random>
#include <string>

#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {

namespace {

using I = std::int64_t;

constexpr std::size_t kExamples = 3;  // wrong blocks named in the reason

// The verdict's reason is given in both languages.
std::string in_lang(words::Lang lang, std::string_view key, const words::Args& args = {}) {
  return words::say_in(lang, "cg-reduce", key, args);
}

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
  report::Section s("blocks", say("exercise.blocks-title"));
  report::Table t("blocks", say("exercise.table-title"));
  t.column("block", "block", report::Format::count)
      .column("got", say("exercise.returned"), report::Format::count)
      .column("expected", say("exercise.block-sum"), report::Format::count)
      .column("warp-0", say("exercise.warp-0-sum"), report::Format::count);
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
      const words::Args example{{"block", b}, {"got", got}, {"sum", expected}};
      examples_en += (wrong > 1 ? "; " : "") + in_lang(words::Lang::en, "exercise.example", example);
      examples_zh += (wrong > 1 ? "；" : "") + in_lang(words::Lang::zh, "exercise.example", example);
    }
  }
  t.legend.push_back(say("exercise.legend"));
  s.fact("blocks", say("exercise.blocks-checked"), static_cast<I>(blocks), report::Format::count,
         say("exercise.of-threads", {{"threads", block}}));
  s.fact("wrong", say("exercise.blocks-wrong"), static_cast<I>(wrong), report::Format::count);
  s.add(std::move(t));
  o.sections.push_back(std::move(s));

  o.verdict.right = wrong == 0;
  if (o.verdict.right) {
    o.verdict.reason = {in_lang(words::Lang::en, "exercise.right", {{"blocks", blocks}}),
                        in_lang(words::Lang::zh, "exercise.right", {{"blocks", blocks}})};
    return o;
  }
  const char* why = own_value == wrong ? "exercise.own-value" : warp0_only == wrong ? "exercise.warp-0-only" : nullptr;
  const auto reason = [&](words::Lang lang, const std::string& examples, const char* more) {
    return in_lang(lang, "exercise.wrong", {{"wrong", wrong}, {"blocks", blocks}, {"examples", examples},
                                            {"more", wrong > kExamples ? more : ""},
                                            {"why", why ? in_lang(lang, why) : std::string()}});
  };
  o.verdict.reason = {reason(words::Lang::en, examples_en, "; ..."), reason(words::Lang::zh, examples_zh, "；……")};
  return o;
}

course::KernelOutcome run_block_sum_exercise(const course::KernelRequest& request) {
  return course::compile_run_judge(request, kBlockSumHarness, kBlockSumGrid, kBlockSumBlock, block_sum_inputs(request.ctx->seed), judge_block_sum);
}

}  // namespace cudasync::cg_reduce
