#include "techniques/warp_primitives/warp_primitives_sections.hpp"

#include "core/report/text_renderer.hpp"

#include <algorithm>

namespace cudasync::warp_primitives {

using report::Check;
using report::Column;
using report::LaneTable;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;

namespace {

std::string hex32(std::uint32_t v) { return report::format_value(static_cast<I>(v), "hex32"); }

std::string lane_list(const std::vector<int>& lanes) {
  std::string s;
  for (std::size_t i = 0; i < lanes.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(lanes[i]);
  if (lanes.size() > 8) s += ", ... (" + std::to_string(lanes.size()) + " lanes)";
  return s;
}

// The check every GPU table carries. `mismatches` lists lanes where the GPU differs.
Check agreement_check(const std::string& what, const std::vector<int>& mismatches, int compared) {
  Check c;
  c.name = "GPU agrees with the reference model: " + what;
  c.passed = mismatches.empty();
  c.detail = c.passed ? std::to_string(compared) + " of " + std::to_string(compared) + " compared lanes agree"
                      : "lanes " + lane_list(mismatches) + " differ";
  return c;
}

const char* op_symbol(const std::string& op) {
  if (op == "shfl") return "__shfl_sync";
  if (op == "shfl_up") return "__shfl_up_sync";
  if (op == "shfl_down") return "__shfl_down_sync";
  return "__shfl_xor_sync";
}

std::string shuffle_rule(const std::string& op, const ShuffleSpec& s) {
  const std::string w = std::to_string(s.width), p = std::to_string(s.param);
  if (op == "shfl")
    return "Every lane of each " + w + "-lane segment receives var from lane " + std::to_string(s.param % s.width) +
           " of its own segment (srcLane " + p + " modulo width " + w + "): a broadcast.";
  if (op == "shfl_up")
    return "Lane t of each " + w + "-lane segment receives var from lane t-" + p + "; the first " + p +
           " lanes of each segment have no such lane and keep their own var (no wrap-around).";
  if (op == "shfl_down")
    return "Lane t of each " + w + "-lane segment receives var from lane t+" + p + "; the last " + p +
           " lanes of each segment have no such lane and keep their own var.";
  return "Lane t receives var from lane t^" + p + " (bitwise xor): lanes swap in pairs. A lane whose partner lies in "
         "a later " + w + "-lane segment keeps its own var; one whose partner lies in an earlier segment reads it.";
}

}  // namespace

const char* variant_name(SyncwarpVariant v) {
  switch (v) {
    case SyncwarpVariant::guarded: return "guarded";
    case SyncwarpVariant::registers: return "registers";
    case SyncwarpVariant::racy: return "racy";
  }
  return "guarded";
}

std::string shuffle_call(const std::string& op, const ShuffleSpec& s) {
  return std::string(op_symbol(op)) + "(" + hex32(s.warp.mask) + ", v, " + std::to_string(s.param) + ", " +
         std::to_string(s.width) + ")";
}

Section setup_section(const Inputs& in, bool gpu) {
  Section s;
  s.id = "setup";
  s.title = "setup: one warp, " + std::to_string(in.warp.threads) + " threads";
  s.paragraphs.push_back(
      "A warp is 32 consecutive threads of a block. Every function below is called by the lanes in the mask, with "
      "that mask as its first argument. Shuffles work inside segments of `width` lanes: the lane index within a "
      "segment is tid % width (seed 002, 10.3.1).");
  s.facts.push_back({"threads in the block", static_cast<I>(in.warp.threads), "", ""});
  s.facts.push_back({"mask", static_cast<I>(in.warp.mask), "hex32", ""});
  s.facts.push_back({"calling lanes", static_cast<I>(in.warp.calling()), "bin32", "lane 31 on the left"});
  s.facts.push_back({"width", static_cast<I>(in.width), "", ""});
  s.facts.push_back({"values", std::string(in.value_kind == ValueKind::tid ? "tid (each lane passes its thread index)"
                                                                           : "random 0..99 (--seed)"), "", ""});
  s.facts.push_back({"backend", std::string(gpu ? "GPU, checked against the reference model" : "reference model"), "", ""});
  LaneTable t;
  t.id = "thread_vs_lane";
  t.title = "thread index and lane index within its segment of " + std::to_string(in.width) + " lanes";
  t.lanes_across = true;
  t.columns = {{"thread", "threadIdx.x", ""}, {"segment_lane", "lane_id", ""}, {"var", "var", ""}};
  for (int lane = 0; lane < in.warp.threads; ++lane)
    t.add_row({static_cast<I>(lane), static_cast<I>(lane & (in.width - 1)), static_cast<I>(in.values[static_cast<std::size_t>(lane)])},
              in.warp.calls(lane) ? RowMark::none : RowMark::inactive);
  s.tables.push_back(std::move(t));
  return s;
}

Section shuffle_section(const std::string& op, const ShuffleSpec& spec, const std::optional<Lanes>& gpu) {
  const auto model = model_shuffle(spec);
  Section s;
  s.id = op;
  s.title = shuffle_call(op, spec);
  s.paragraphs.push_back(shuffle_rule(op, spec));
  LaneTable t;
  t.id = op;
  t.title = "what each lane received";
  t.lanes_across = true;
  t.columns = {{"thread", "thread", ""}, {"segment_lane", "lane", ""}, {"source_lane", "src", ""}, {"var", "var", ""},
               {"model", "model", ""}};
  if (gpu) t.columns.push_back({"gpu", "gpu", ""});
  std::vector<int> mismatches;
  int compared = 0;
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const ShuffleLane& m = model[l];
    if (m.outcome != LaneOutcome::undefined_source) ++compared;
    RowMark mark = m.outcome == LaneOutcome::inactive          ? RowMark::inactive
                   : m.outcome == LaneOutcome::kept_own         ? RowMark::kept_own
                   : m.outcome == LaneOutcome::undefined_source ? RowMark::undefined_src
                                                                : RowMark::none;
    std::vector<Value> row{static_cast<I>(lane), static_cast<I>(m.segment_lane),
                           m.outcome == LaneOutcome::inactive ? Value{Undefined{}} : Value{static_cast<I>(m.source)},
                           static_cast<I>(spec.values[l]), m.defined() ? Value{static_cast<I>(m.value)} : Value{Undefined{}}};
    if (gpu) {
      const std::int32_t g = (*gpu)[l];
      // A lane that did not call must not have been written; one with a defined value must match.
      const bool ok = m.outcome == LaneOutcome::inactive ? g == kPoison
                      : m.defined()                      ? g == m.value
                                                         : true;
      if (!ok) {
        mismatches.push_back(lane);
        mark = RowMark::mismatch;
      }
      row.push_back(m.outcome == LaneOutcome::inactive && g == kPoison ? Value{Undefined{}} : Value{static_cast<I>(g)});
    }
    t.add_row(std::move(row), mark);
  }
  if (gpu && std::find(t.marks.begin(), t.marks.end(), RowMark::undefined_src) != t.marks.end())
    t.legend.push_back("?-lanes show what this GPU returned; CUDA promises nothing there, so they are not compared");
  s.tables.push_back(std::move(t));
  if (gpu) s.checks.push_back(agreement_check(op, mismatches, compared));
  return s;
}

Section vote_section(const std::string& op, const VoteSpec& spec, const Predicate& pred, const Key& key,
                     const std::optional<VoteLanes>& gpu) {
  const VoteLanes m = model_votes(spec);
  const std::string mask = hex32(spec.warp.mask);
  Section s;
  s.id = op;
  LaneTable t;
  t.id = op;
  t.lanes_across = true;
  std::vector<int> mismatches;
  int compared = 0;
  // The per-lane value each op returns, as (model, gpu).
  auto lane_result = [&](const VoteLanes& v, std::size_t l) -> std::int64_t {
    if (op == "ballot") return v.ballot[l];
    if (op == "all") return v.all[l];
    if (op == "any") return v.any[l];
    if (op == "activemask") return v.activemask[l];
    if (op == "match_any") return v.match_any[l];
    return v.match_all[l];
  };
  const std::size_t first = [&] {
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (spec.warp.calls(lane)) return static_cast<std::size_t>(lane);
    return std::size_t{0};
  }();
  const bool uses_key = op == "match_any" || op == "match_all";
  if (op == "ballot") {
    s.title = "__ballot_sync(" + mask + ", " + pred.text + ")";
    s.paragraphs.push_back("Bit n of the result is lane n's predicate, for the lanes that call; every calling lane "
                           "receives the same 32-bit mask.");
  } else if (op == "all" || op == "any") {
    s.title = "__" + op + "_sync(" + mask + ", " + pred.text + ")";
    s.paragraphs.push_back(op == "all" ? "1 in every calling lane if the predicate is non-zero in all of them, else 0: "
                                         "a vote that passes only when everyone agrees."
                                       : "1 in every calling lane if the predicate is non-zero in any of them, else 0.");
  } else if (op == "activemask") {
    s.title = "__activemask()";
    s.paragraphs.push_back("The lanes executing this call together. It takes no mask and synchronises nothing: the "
                           "guide promises only the currently active threads, so a GPU may return fewer lanes than "
                           "took the branch (never the lane itself missing). The check allows exactly that.");
  } else if (op == "match_any") {
    s.title = "__match_any_sync(" + mask + ", " + key.text + ")";
    s.paragraphs.push_back("Each calling lane receives the mask of calling lanes whose value equals its own.");
    t.lanes_across = false;  // a hex mask per lane reads better one lane per row
  } else {
    s.title = "__match_all_sync(" + mask + ", " + key.text + ", &pred)";
    s.paragraphs.push_back("The mask of calling lanes if they all hold the same value (pred = 1), else 0 (pred = 0).");
  }
  t.title = "per lane";
  // __activemask takes no predicate: its table shows only which lanes' bits are set.
  const bool shows_input = op != "activemask";
  t.columns = {{"thread", "thread", ""}};
  if (shows_input) t.columns.push_back(uses_key ? Column{"key", "key", ""} : Column{"predicate", "pred", ""});
  const bool mask_result = op == "ballot" || op == "activemask" || op == "match_any";
  if (op == "ballot" || op == "activemask") t.columns.push_back({"bit", "bit", ""});
  else if (op == "match_any") t.columns.push_back({"model", "model", "hex32"});
  else t.columns.push_back({"model", "model", ""});
  if (gpu && op == "match_any") t.columns.push_back({"gpu", "gpu", "hex32"});
  else if (gpu && !mask_result) t.columns.push_back({"gpu", "gpu", ""});
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const bool calls = spec.warp.calls(lane);
    RowMark mark = calls ? RowMark::none : RowMark::inactive;
    std::vector<Value> row{static_cast<I>(lane)};
    if (shows_input) row.push_back(static_cast<I>(uses_key ? spec.key[l] : spec.predicate[l]));
    const std::int64_t mv = lane_result(m, l);
    if (op == "ballot" || op == "activemask") {
      const std::uint32_t whole = static_cast<std::uint32_t>(lane_result(gpu ? *gpu : m, first));
      row.push_back(static_cast<I>((whole >> lane) & 1u));
    } else {
      row.push_back(calls ? Value{static_cast<I>(op == "match_all" ? m.match_all_pred[l] : mv)} : Value{Undefined{}});
      if (gpu) {
        const std::int64_t gv = op == "match_all" ? (*gpu).match_all_pred[l] : lane_result(*gpu, l);
        row.push_back(calls ? Value{static_cast<I>(gv)} : Value{Undefined{}});
      }
    }
    if (gpu && calls) {
      ++compared;
      const auto gv = lane_result(*gpu, l);
      bool ok = gv == mv;
      if (op == "activemask") {  // a subset of the branch's lanes that contains the lane itself
        const auto g = static_cast<std::uint32_t>(gv);
        ok = (g & ~spec.warp.calling()) == 0 && ((g >> lane) & 1u);
      }
      if (op == "match_all") ok = ok && (*gpu).match_all_pred[l] == m.match_all_pred[l];
      if (!ok) {
        mismatches.push_back(lane);
        mark = RowMark::mismatch;
      }
    }
    t.add_row(std::move(row), mark);
  }
  const std::int64_t mres = lane_result(m, first);
  if (mask_result && op != "match_any") {
    s.facts.push_back({"result (model)", static_cast<I>(mres), "hex32", ""});
    s.facts.push_back({"result (model), binary", static_cast<I>(mres), "bin32", "lane 31 on the left"});
    if (gpu) {
      const auto g = lane_result(*gpu, first);
      s.facts.push_back({"result (gpu)", static_cast<I>(g), "hex32", ""});
      s.facts.push_back({"result (gpu), binary", static_cast<I>(g), "bin32", ""});
    }
    t.legend.push_back("bit: lane n's bit of the result" + std::string(gpu ? " the GPU returned" : ""));
  } else if (op == "all" || op == "any") {
    s.facts.push_back({"result (model)", static_cast<I>(mres), "", ""});
    if (gpu) s.facts.push_back({"result (gpu)", static_cast<I>(lane_result(*gpu, first)), "", ""});
  } else if (op == "match_all") {
    s.facts.push_back({"result (model)", static_cast<I>(mres), "hex32", "pred " + std::to_string(m.match_all_pred[first])});
    if (gpu)
      s.facts.push_back({"result (gpu)", static_cast<I>(lane_result(*gpu, first)), "hex32",
                         "pred " + std::to_string((*gpu).match_all_pred[first])});
    t.legend.push_back("model / gpu columns: the pred each lane received");
  }
  s.tables.push_back(std::move(t));
  if (gpu) s.checks.push_back(agreement_check(op, mismatches, compared));
  return s;
}

Section reduce_section(const std::string& op, const VoteSpec& spec, const std::optional<ReduceLanes>& gpu) {
  const ReduceLanes m = model_reduce(spec);
  const std::string which = op.substr(7);  // add, min, max
  const std::string what = which == "add" ? "sum" : which == "min" ? "minimum" : "maximum";
  auto pick = [&](const ReduceLanes& r, std::size_t l) -> std::uint32_t {
    return which == "add" ? r.add[l] : which == "min" ? r.min[l] : r.max[l];
  };
  Section s;
  s.id = op;
  s.title = "__" + op + "_sync(" + hex32(spec.warp.mask) + ", value)";
  s.paragraphs.push_back("One instruction (REDUX) on compute capability 8.0 and newer: every calling lane receives the " +
                         what + " of the calling lanes' unsigned values. Before 8.0 the same needs five shuffles.");
  LaneTable t;
  t.id = op;
  t.title = "per lane";
  t.lanes_across = true;
  t.columns = {{"thread", "thread", ""}, {"value", "value", ""}, {"model", "model", ""}};
  if (gpu) t.columns.push_back({"gpu", "gpu", ""});
  std::vector<int> mismatches;
  int compared = 0;
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const bool calls = spec.warp.calls(lane);
    RowMark mark = calls ? RowMark::none : RowMark::inactive;
    std::vector<Value> row{static_cast<I>(lane), static_cast<I>(spec.values[l]),
                           calls ? Value{static_cast<I>(pick(m, l))} : Value{Undefined{}}};
    if (gpu) {
      row.push_back(calls ? Value{static_cast<I>(pick(*gpu, l))} : Value{Undefined{}});
      if (calls) {
        ++compared;
        if (pick(*gpu, l) != pick(m, l)) {
          mismatches.push_back(lane);
          mark = RowMark::mismatch;
        }
      }
    }
    t.add_row(std::move(row), mark);
  }
  s.tables.push_back(std::move(t));
  if (gpu) s.checks.push_back(agreement_check(op, mismatches, compared));
  return s;
}

Section syncwarp_section(const Lanes& values, const std::vector<SyncwarpOutcome>& outcomes, bool gpu_run) {
  std::int64_t right = 0;
  for (auto v : values) right += v;
  Section s;
  s.id = "syncwarp";
  s.title = "__syncwarp in the last warp of a reduction (seed 002, 10.2)";
  s.paragraphs.push_back(
      "s[0..31] hold the warp's values and s[32..63] the zeros left by the rest of the block. Five steps "
      "(offset 16, 8, 4, 2, 1) add s[tid + offset] into s[tid]; s[0] ends with the sum.");
  s.paragraphs.push_back(
      "guarded: if (tid < offset) s[tid] += s[tid + offset]; __syncwarp();  registers: v += s[tid + offset]; "
      "__syncwarp(); s[tid] = v; __syncwarp();  racy (the seed's wrong loop): s[tid] += s[tid + offset]; "
      "__syncwarp(); without the if, lane t reads s[t + offset] while lane t + offset writes it.");
  s.facts.push_back({"right sum", static_cast<I>(right), "", "computed on the CPU"});
  LaneTable t;
  t.id = "syncwarp_shared";
  t.title = "s[0..31] after the five steps";
  t.lanes_across = true;
  t.columns = {{"index", "s index", ""}, {"input", "input", ""}};
  std::vector<std::pair<SharedWords, std::string>> shown;
  for (const auto& o : outcomes) {
    const std::string name = variant_name(o.variant);
    const SharedWords model = model_syncwarp(values, o.variant);
    if (o.variant != SyncwarpVariant::racy) {
      s.facts.push_back({name + ": s[0] (model)", static_cast<I>(model[0]), "", ""});
      shown.emplace_back(model, name + " model");
      if (o.gpu) {
        s.facts.push_back({name + ": s[0] (gpu)", static_cast<I>((*o.gpu)[0]), "", ""});
        shown.emplace_back(*o.gpu, name + " gpu");
        std::vector<int> bad;
        for (int i = 0; i < kSyncwarpShared; ++i)
          if ((*o.gpu)[static_cast<std::size_t>(i)] != model[static_cast<std::size_t>(i)]) bad.push_back(i);
        Check c = agreement_check(name + " (all 64 shared words)", bad, kSyncwarpShared);
        s.checks.push_back(c);
        s.checks.push_back({name + ": s[0] is the right sum", (*o.gpu)[0] == right,
                            "s[0] = " + std::to_string((*o.gpu)[0]) + ", right sum " + std::to_string(right)});
      }
    } else {
      const SharedWords desc = model_syncwarp_racy_descending(values);
      s.facts.push_back({"racy: s[0] if the warp runs in lockstep (model)", static_cast<I>(model[0]), "", ""});
      s.facts.push_back({"racy: s[0] if lanes run one at a time, 31 down to 0 (model)", static_cast<I>(desc[0]), "", ""});
      shown.emplace_back(model, "racy lockstep");
      shown.emplace_back(desc, "racy 31..0");
      if (o.gpu) {
        const std::int32_t got = (*o.gpu)[0];
        s.facts.push_back({"racy: s[0] on this GPU", static_cast<I>(got), "", ""});
        shown.emplace_back(*o.gpu, "racy gpu");
        if (got == right)
          s.notes.push_back("racy on this GPU: s[0] = " + std::to_string(got) +
                            ", the right sum, because a converged warp executes each load for all 32 lanes before "
                            "any store. The race is still there: independent thread scheduling (sm_70+) permits "
                            "other orders, and `compute-sanitizer --tool racecheck` reports the hazard.");
        else
          s.notes.push_back("racy on this GPU: s[0] = " + std::to_string(got) + " instead of " + std::to_string(right) +
                            ": the read-write race changed the sum by " + std::to_string(got - right) + ".");
      } else if (!gpu_run) {
        s.notes.push_back("racy: what a real GPU returns needs a GPU; the model shows two orders the hardware may use.");
      }
    }
  }
  for (const auto& [words, title] : shown) {
    (void)words;
    std::string key = title;
    for (auto& c : key) c = (c == ' ' || c == '.') ? '_' : c;
    t.columns.push_back({key, title, ""});
  }
  for (int i = 0; i < kWarpSize; ++i) {
    std::vector<Value> row{static_cast<I>(i), static_cast<I>(values[static_cast<std::size_t>(i)])};
    for (const auto& sw : shown) row.push_back(static_cast<I>(sw.first[static_cast<std::size_t>(i)]));
    t.add_row(std::move(row));
  }
  s.tables.push_back(std::move(t));
  return s;
}

namespace {
LaneTable trace_table(const std::string& id, const std::string& title, const ReductionTrace& shown,
                      const ReductionTrace& model, bool compare, std::vector<int>& mismatches) {
  LaneTable t;
  t.id = id;
  t.title = title;
  t.columns = {{"lane", "lane", ""}, {"start", "start", ""}, {"after_16", "+16", ""}, {"after_8", "+8", ""},
               {"after_4", "+4", ""}, {"after_2", "+2", ""}, {"after_1", "+1", ""}};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    std::vector<Value> row{static_cast<I>(lane)};
    bool ok = true;
    for (int step = 0; step < kTraceSteps; ++step) {
      const auto st = static_cast<std::size_t>(step);
      row.push_back(static_cast<I>(shown[st][l]));
      ok = ok && shown[st][l] == model[st][l];
    }
    if (compare && !ok) mismatches.push_back(lane);
    t.add_row(std::move(row), compare && !ok ? RowMark::mismatch : RowMark::none);
  }
  return t;
}
}  // namespace

Section warp_reduce_section(const Lanes& values, const std::optional<ReductionTrace>& gpu_down,
                            const std::optional<ReductionTrace>& gpu_xor) {
  std::int64_t right = 0;
  for (auto v : values) right += v;
  Section s;
  s.id = "warp_reduce";
  s.title = "warp sum by shuffles, offset 16 ... 1: shfl_down and shfl_xor";
  s.paragraphs.push_back("Each column is every lane's v after one step. shfl_down moves values towards lane 0: only "
                         "lane 0 ends with the sum, the upper lanes hold partial garbage. shfl_xor exchanges in "
                         "pairs: every lane ends with the sum (a butterfly), so no broadcast is needed afterwards.");
  s.facts.push_back({"right sum", static_cast<I>(right), "", ""});
  const bool gpu = gpu_down.has_value();
  const ReductionTrace m_down = model_reduction_trace(values, ShuffleOp::down);
  const ReductionTrace m_xor = model_reduction_trace(values, ShuffleOp::bfly);
  const ReductionTrace& down = gpu ? *gpu_down : m_down;
  const ReductionTrace& bfly = gpu ? *gpu_xor : m_xor;
  const std::string source = gpu ? " (values from the GPU)" : " (reference model)";
  std::vector<int> bad_down, bad_xor;
  s.tables.push_back(trace_table("trace_shfl_down", "v += __shfl_down_sync(0xffffffff, v, offset)" + source, down, m_down, gpu, bad_down));
  s.tables.push_back(trace_table("trace_shfl_xor", "v += __shfl_xor_sync(0xffffffff, v, offset)" + source, bfly, m_xor, gpu, bad_xor));
  if (gpu) {
    s.checks.push_back(agreement_check("shfl_down trace, every step", bad_down, kWarpSize));
    s.checks.push_back(agreement_check("shfl_xor trace, every step", bad_xor, kWarpSize));
  }
  const auto& last_down = down[kTraceSteps - 1];
  const auto& last_xor = bfly[kTraceSteps - 1];
  int xor_total = 0, down_total = 0;
  for (int l = 0; l < kWarpSize; ++l) {
    xor_total += last_xor[static_cast<std::size_t>(l)] == right ? 1 : 0;
    down_total += last_down[static_cast<std::size_t>(l)] == right ? 1 : 0;
  }
  s.checks.push_back({"shfl_down leaves the sum in lane 0", last_down[0] == right,
                      "lane 0 holds " + std::to_string(last_down[0]) + "; " + std::to_string(down_total) +
                          (down_total == 1 ? " lane of 32 holds" : " of 32 lanes hold") + " the sum"});
  s.checks.push_back({"shfl_xor leaves the sum in every lane", xor_total == kWarpSize,
                      std::to_string(xor_total) + " of 32 lanes hold " + std::to_string(right)});
  return s;
}

Section cost_section(const std::vector<CostRow>& rows, bool gpu_run, int iterations) {
  Section s;
  s.id = "cost";
  s.title = "cost: latency in one warp, a dependent chain";
  s.paragraphs.push_back("Each figure is clock64 cycles per operation over " + std::to_string(iterations) +
                         " dependent repetitions in one warp (one sample per launch). The last two rows are NVIDIA's "
                         "built-ins for a warp sum, beside the seed's ladders.");
  for (const auto& r : rows) {
    report::Measurement m;
    m.name = r.name;
    m.unit = "cycles";
    m.samples = r.cycles;
    m.needs_gpu = !gpu_run;
    m.note = r.note;
    s.measurements.push_back(std::move(m));
  }
  return s;
}

}  // namespace cudasync::warp_primitives
