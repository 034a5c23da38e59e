// A warp's sum: part syncwarp (the last warp of Fan's shared-memory reduction, 10.2, three ways,
// the racy one with the orders the hardware may choose), part warp-reduce (a warp sum by shuffles,
// every lane after every step, shfl_down against shfl_xor, Fan 10.3.2), part cost (cycles per
// operation in a dependent chain in one warp, Fan's warp sums beside NVIDIA's built-ins) and the
// kernel exercise (the student's warp_sum).
#include <random>

#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using I = std::int64_t;

SharedWords syncwarp_input(const Lanes& values) {  // s[0..31] = values, s[32..63] = 0
  SharedWords s{};
  for (int i = 0; i < kWarpSize; ++i) s[static_cast<std::size_t>(i)] = values[static_cast<std::size_t>(i)];
  return s;
}

I sum_of(const Lanes& values) {
  I right = 0;
  for (auto v : values) right += v;
  return right;
}

report::Table trace_table(const std::string& id, const std::string& title, const ReductionTrace& shown,
                          const ReductionTrace& model, report::Agreement& a) {
  report::Table t(id, title);
  t.column("lane", "lane").column("start", "start");
  const char* steps[] = {"after-16", "after-8", "after-4", "after-2", "after-1"};
  const char* titles[] = {"+16", "+8", "+4", "+2", "+1"};
  for (int k = 0; k < kTraceSteps - 1; ++k) t.column(steps[k], titles[k]);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    std::vector<std::pair<std::string, report::Value>> cells{{"lane", lane}, {"start", shown[0][l]}};
    bool ok = shown[0][l] == model[0][l];
    for (int k = 1; k < kTraceSteps; ++k) {
      const auto st = static_cast<std::size_t>(k);
      cells.emplace_back(steps[k - 1], shown[st][l]);
      ok = ok && shown[st][l] == model[st][l];
    }
    t.row(cells, a.note(lane, ok));
  }
  return t;
}

int lanes_holding(const Lanes& lanes, std::int64_t value) {
  int n = 0;
  for (auto v : lanes) n += v == value ? 1 : 0;
  return n;
}

struct CostRow {
  const char* id;
  const char* title;
  const char* note;  // a key of the lesson's catalog
  CostProbe probe;
  bool needs_cc80;
};

const CostRow kRows[] = {
    {"shfl-xor", "__shfl_xor_sync", "cost.note-shfl-xor", CostProbe::shfl_xor, false},
    {"ballot", "__ballot_sync", "cost.note-ballot", CostProbe::ballot, false},
    {"match-any", "__match_any_sync", "cost.note-match-any", CostProbe::match_any, false},
    {"sum-shared-syncwarp", "sum: shared + __syncwarp", "cost.note-sum-shared-syncwarp", CostProbe::sum_shared_syncwarp,
     false},
    {"sum-shfl-down", "sum: 5 x __shfl_down_sync", "cost.note-sum-shfl-down",
     CostProbe::sum_shfl_down, false},
    {"sum-shfl-xor", "sum: 5 x __shfl_xor_sync", "cost.note-sum-shfl-xor", CostProbe::sum_shfl_xor, false},
    {"sum-cg-reduce", "sum: cg::reduce", "cost.note-sum-cg-reduce",
     CostProbe::sum_cg_reduce, false},
    {"sum-reduce-add", "sum: __reduce_add_sync", "cost.note-sum-reduce-add", CostProbe::sum_reduce_add,
     true},
};

using std::to_string;

constexpr std::size_t kExamples = 3;  // wrong lanes named in the reason

// The verdict's reason is given in both languages.
std::string in_lang(words::Lang lang, std::string_view key, const words::Args& args = {}) {
  return words::say_in(lang, "warp-primitives", key, args);
}

std::int32_t warp_total(const std::vector<std::int32_t>& in, std::size_t warp) {
  std::int32_t s = 0;
  for (std::size_t i = warp * 32; i < warp * 32 + 32 && i < in.size(); ++i) s += in[i];
  return s;
}
}  // namespace

SharedWords model_syncwarp(const Lanes& values, SyncwarpVariant variant) {
  SharedWords s = syncwarp_input(values);
  for (int offset = 16; offset > 0; offset >>= 1) {
    // Every lane reads before any lane writes: what __syncwarp guarantees for the guarded and
    // register variants, and what a converged warp happens to do for the racy one.
    SharedWords next = s;
    for (int t = 0; t < kWarpSize; ++t) {
      const auto i = static_cast<std::size_t>(t);
      const auto j = static_cast<std::size_t>(t + offset);
      if (variant == SyncwarpVariant::guarded && t >= offset) continue;
      next[i] = s[i] + s[j];
    }
    s = next;
  }
  return s;
}

SharedWords model_syncwarp_racy_descending(const Lanes& values) {
  SharedWords s = syncwarp_input(values);
  for (int offset = 16; offset > 0; offset >>= 1)
    for (int t = kWarpSize - 1; t >= 0; --t)
      s[static_cast<std::size_t>(t)] += s[static_cast<std::size_t>(t + offset)];
  return s;
}

ReductionTrace model_reduction_trace(const Lanes& values, ShuffleOp op) {
  ReductionTrace trace{};
  trace[0] = values;
  Lanes v = values;
  int step = 1;
  for (int offset = 16; offset > 0; offset >>= 1, ++step) {
    ShuffleSpec s;
    s.op = op;
    s.param = offset;
    s.width = kWarpSize;
    s.values = v;
    const auto got = model_shuffle(s);
    for (int lane = 0; lane < kWarpSize; ++lane) {
      const auto l = static_cast<std::size_t>(lane);
      v[l] = v[l] + got[l].value;
    }
    trace[static_cast<std::size_t>(step)] = v;
  }
  return trace;
}

std::vector<int> differing_words(const SharedWords& a, const SharedWords& b) {
  std::vector<int> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) out.push_back(static_cast<int>(i));
  return out;
}

const char* variant_name(SyncwarpVariant v) {
  switch (v) {
    case SyncwarpVariant::guarded: return "guarded";
    case SyncwarpVariant::registers: return "registers";
    case SyncwarpVariant::racy: return "racy";
  }
  return "guarded";
}

report::Section syncwarp_part(Run& run) {
  const Lanes& values = run.in.values;
  const I right = sum_of(values);
  report::Section s("syncwarp", say("syncwarp.title"));
  s.paragraph(say("syncwarp.steps"));
  s.paragraph(say("syncwarp.variants"));
  s.fact("right-sum", say("syncwarp.right-sum"), right, report::Format::plain, say("syncwarp.right-sum-note"));

  struct Shown {
    SharedWords words;
    std::string key, title;
  };
  std::vector<Shown> shown;
  for (SyncwarpVariant variant : run.in.variants) {
    const std::string name = variant_name(variant);
    const SharedWords model = model_syncwarp(values, variant);
    std::optional<SharedWords> gpu;
    if (run.ctx.gpu) gpu = gpu_syncwarp(values, variant);
    if (variant != SyncwarpVariant::racy) {
      s.fact(name + "-s0-model", say("syncwarp.s0-model", {{"variant", name}}), model[0]);
      shown.push_back({model, name + "-model", name + " model"});
      if (gpu) {
        s.fact(name + "-s0-gpu", say("syncwarp.s0-gpu", {{"variant", name}}), (*gpu)[0]);
        shown.push_back({*gpu, name + "-gpu", name + " gpu"});
        const auto bad = differing_words(*gpu, model);
        s.agreement(name + "-gpu-agrees", say("syncwarp.all-words", {{"variant", name}}), bad.empty(),
                    bad.empty() ? say("syncwarp.words-agree") : say("syncwarp.words-differ", {{"words", report::list_of(bad)}}));
        s.check(name + "-right-sum", say("syncwarp.right-sum-check", {{"variant", name}}), (*gpu)[0] == right,
                say("syncwarp.right-sum-detail", {{"got", (*gpu)[0]}, {"right", right}}));
      }
      continue;
    }
    const SharedWords desc = model_syncwarp_racy_descending(values);
    s.fact("racy-s0-lockstep", say("syncwarp.racy-lockstep"), model[0]);
    s.fact("racy-s0-descending", say("syncwarp.racy-descending"), desc[0]);
    shown.push_back({model, "racy-lockstep", "racy lockstep"});
    shown.push_back({desc, "racy-descending", "racy 31..0"});
    if (!gpu) {
      s.note(say("syncwarp.racy-needs-gpu"));
      continue;
    }
    const std::int32_t got = (*gpu)[0];
    s.fact("racy-s0-gpu", say("syncwarp.racy-gpu"), got);
    shown.push_back({*gpu, "racy-gpu", "racy gpu"});
    if (got == right)
      s.note(say("syncwarp.racy-right", {{"got", got}}));
    else
      s.note(say("syncwarp.racy-wrong", {{"got", got}, {"right", right}, {"change", got - right}}));
  }

  report::Table t("shared", say("syncwarp.shared-title"));
  t.lanes_across = true;
  t.column("index", say("syncwarp.s-index")).column("input", say("syncwarp.input"));
  for (const auto& sw : shown) t.column(sw.key, sw.title);
  for (int i = 0; i < kWarpSize; ++i) {
    const auto l = static_cast<std::size_t>(i);
    std::vector<std::pair<std::string, report::Value>> cells{{"index", i}, {"input", values[l]}};
    for (const auto& sw : shown) cells.emplace_back(sw.key, sw.words[l]);
    t.row(cells);
  }
  s.add(std::move(t));
  return s;
}

report::Section warp_reduce_part(Run& run) {
  const Lanes& values = run.in.values;
  const I right = sum_of(values);
  report::Section s("warp-reduce", say("warp-reduce.title"));
  s.paragraph(say("warp-reduce.about"));
  s.fact("right-sum", say("syncwarp.right-sum"), right);
  const bool gpu = run.ctx.gpu;
  const ReductionTrace m_down = model_reduction_trace(values, ShuffleOp::down);
  const ReductionTrace m_xor = model_reduction_trace(values, ShuffleOp::bfly);
  const ReductionTrace down = gpu ? gpu_reduction_trace(values, ShuffleOp::down) : m_down;
  const ReductionTrace bfly = gpu ? gpu_reduction_trace(values, ShuffleOp::bfly) : m_xor;
  const std::string source = say(gpu ? "warp-reduce.from-gpu" : "warp-reduce.from-model");
  report::Agreement a_down(gpu), a_xor(gpu);
  s.add(trace_table("shfl-down", "v += __shfl_down_sync(0xffffffff, v, offset) " + source, down, m_down, a_down));
  s.add(trace_table("shfl-xor", "v += __shfl_xor_sync(0xffffffff, v, offset) " + source, bfly, m_xor, a_xor));
  a_down.check(s, "shfl-down-agrees", say("warp-reduce.down-agrees"), lanes_detail(a_down));
  a_xor.check(s, "shfl-xor-agrees", say("warp-reduce.xor-agrees"), lanes_detail(a_xor));
  const Lanes& last_down = down[kTraceSteps - 1];
  const Lanes& last_xor = bfly[kTraceSteps - 1];
  const int down_total = lanes_holding(last_down, right), xor_total = lanes_holding(last_xor, right);
  s.check("shfl-down-sum-in-lane-0", say("warp-reduce.down-check"), last_down[0] == right,
          say(down_total == 1 ? "warp-reduce.down-detail-one" : "warp-reduce.down-detail",
              {{"lane-0", last_down[0]}, {"holding", down_total}}));
  s.check("shfl-xor-sum-in-every-lane", say("warp-reduce.xor-check"), xor_total == kWarpSize,
          say("warp-reduce.xor-detail", {{"holding", xor_total}, {"sum", right}}));
  return s;
}

report::Section cost_part(Run& run) {
  const bool bench = run.ctx.bench;
  const int iterations = bench ? 4096 : 1024;
  const int reps = bench ? 31 : 7;
  report::Section s("cost", say("cost.title"));
  s.paragraph(say("cost.about", {{"iterations", iterations}}));
  for (const auto& row : kRows) {
    const bool waived = run.ctx.gpu && row.needs_cc80 && run.ctx.compute_capability() < 80;
    std::vector<double> cycles;
    if (run.ctx.gpu && !waived)
      for (int i = 0; i < reps; ++i) cycles.push_back(gpu_cycles_per_op(row.probe, iterations));
    auto m = report::measured(row.id, row.title, report::Format::cycles, cycles, run.ctx.gpu,
                              say(waived ? "cost.waived-cc80" : row.note));
    s.add(std::move(m));
  }
  return s;
}

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
  report::Section s("lanes", say("exercise.lanes-title"));
  const std::size_t warps = in.size() / 32;
  report::Table t("wrong-lanes", say("exercise.wrong-lanes-title"));
  t.column("thread", "thread", report::Format::count)
      .column("warp", "warp", report::Format::count)
      .column("lane", "lane", report::Format::count)
      .column("v", "v", report::Format::count)
      .column("got", say("exercise.returned"), report::Format::count)
      .column("expected", say("exercise.warp-sum"), report::Format::count);
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
      const words::Args example{{"lane", i % 32}, {"warp", i / 32}, {"got", out[i]}, {"sum", expected}};
      examples_en += (wrong > 1 ? "; " : "") + in_lang(words::Lang::en, "exercise.example", example);
      examples_zh += (wrong > 1 ? "；" : "") + in_lang(words::Lang::zh, "exercise.example", example);
    }
  }
  s.fact("lanes", say("exercise.lanes-checked"), static_cast<I>(in.size()), report::Format::count,
         say("exercise.warps-of-32", {{"warps", warps}}));
  for (std::size_t w = 0; w < warps; ++w)
    s.fact("warp-" + to_string(w) + "-sum", say("exercise.warp-n-sum", {{"warp", w}}), static_cast<I>(warp_total(in, w)),
           report::Format::count);
  s.fact("wrong", say("exercise.lanes-wrong"), static_cast<I>(wrong), report::Format::count);
  if (wrong > 0) s.add(std::move(t));
  o.sections.push_back(std::move(s));

  o.verdict.right = wrong == 0;
  if (o.verdict.right) {
    o.verdict.reason = {in_lang(words::Lang::en, "exercise.right", {{"warps", warps}}),
                        in_lang(words::Lang::zh, "exercise.right", {{"warps", warps}})};
    return o;
  }
  const char* why = own_value == wrong ? "exercise.own-value" : sum_in_lane0_only == wrong ? "exercise.lane-0-only" : nullptr;
  const auto reason = [&](words::Lang lang, const std::string& examples, const char* more) {
    return in_lang(lang, "exercise.wrong", {{"wrong", wrong}, {"lanes", in.size()}, {"examples", examples},
                                            {"more", wrong > kExamples ? more : ""},
                                            {"why", why ? in_lang(lang, why) : std::string()}});
  };
  o.verdict.reason = {reason(words::Lang::en, examples_en, "; ..."), reason(words::Lang::zh, examples_zh, "；……")};
  return o;
}

course::KernelOutcome run_warp_sum_exercise(const course::KernelRequest& request) {
  return course::compile_run_judge(request, kWarpSumHarness, 1, kWarpSumThreads, warp_sum_inputs(request.ctx->seed), judge_warp_sum);
}

}  // namespace cudasync::warp_primitives
