// A warp's sum: part syncwarp (the last warp of Fan's shared-memory reduction, 10.2, three ways,
// the racy one with the orders the hardware may choose), part warp-reduce (a warp sum by shuffles,
// every lane after every step, shfl_down against shfl_xor, Fan 10.3.2), part cost (cycles per
// operation in a dependent chain in one warp, Fan's warp sums beside NVIDIA's built-ins).
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

}  // namespace cudasync::warp_primitives
