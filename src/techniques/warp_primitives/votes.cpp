// Votes: parts ballot, all, any, activemask, match-any, match-all (one launch of the vote kernel
// on a GPU answers all six; each part shows its own function per lane) and reduce-add, reduce-min,
// reduce-max (__reduce_*_sync: one REDUX instruction on compute capability 8.0+; a GPU below that
// waives them).
#include <algorithm>

#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using report::Format;
using report::RowMark;
using report::Undefined;
using report::Value;
using I = std::int64_t;

std::string hex(std::uint32_t v) { return report::format_value(I{v}, Format::hex32); }

// The section's title, the call as the kernel makes it, and what the function returns.
void describe(report::Section& s, const std::string& op, const VoteSpec& spec, const Inputs& in) {
  std::string fn = "__" + op + "_sync(";  // "__match-any_sync(" -> "__match_any_sync("
  std::replace(fn.begin(), fn.end(), '-', '_');
  const bool key = op == "match-any" || op == "match-all";
  s.title = op == "activemask" ? "__activemask()"
                               : fn + hex(spec.warp.mask) + ", " + (key ? in.key.text : in.predicate.text) +
                                     (op == "match-all" ? ", &pred)" : ")");
  s.paragraph(say(op == "ballot"       ? "votes.ballot-about"
                  : op == "all"        ? "votes.all-about"
                  : op == "any"        ? "votes.any-about"
                  : op == "activemask" ? "votes.activemask-about"
                  : op == "match-any"  ? "votes.match-any-about"
                                       : "votes.match-all-about"));
}

// The value a vote or match op ("ballot", "all", "any", "activemask", "match-any", "match-all")
// returns in lane `lane`.
std::int64_t vote_result(const VoteLanes& v, const std::string& op, std::size_t lane) {
  if (op == "ballot") return v.ballot[lane];
  if (op == "all") return v.all[lane];
  if (op == "any") return v.any[lane];
  if (op == "activemask") return v.activemask[lane];
  if (op == "match-any") return v.match_any[lane];
  return v.match_all[lane];
}

std::size_t first_calling(const WarpSetup& warp) {
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (warp.calls(lane)) return static_cast<std::size_t>(lane);
  return 0;
}

}  // namespace

VoteLanes model_votes(const VoteSpec& spec) {
  const std::uint32_t calling = spec.warp.calling();
  std::uint32_t ballot = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (spec.warp.calls(lane) && spec.predicate[static_cast<std::size_t>(lane)]) ballot |= 1u << lane;
  bool same_key = true;
  int first = -1;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!spec.warp.calls(lane)) continue;
    if (first < 0) first = lane;
    else if (spec.key[static_cast<std::size_t>(lane)] != spec.key[static_cast<std::size_t>(first)]) same_key = false;
  }
  VoteLanes v{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    if (!spec.warp.calls(lane)) continue;
    v.ballot[l] = ballot;
    v.all[l] = ballot == calling ? 1 : 0;
    v.any[l] = ballot != 0 ? 1 : 0;
    v.activemask[l] = calling;
    std::uint32_t peers = 0;
    for (int other = 0; other < kWarpSize; ++other)
      if (spec.warp.calls(other) && spec.key[static_cast<std::size_t>(other)] == spec.key[l]) peers |= 1u << other;
    v.match_any[l] = peers;
    v.match_all[l] = same_key ? calling : 0u;
    v.match_all_pred[l] = same_key ? 1 : 0;
  }
  return v;
}

ReduceLanes model_reduce(const VoteSpec& spec) {
  std::uint32_t sum = 0, lo = 0xffffffffu, hi = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!spec.warp.calls(lane)) continue;
    const auto u = static_cast<std::uint32_t>(spec.values[static_cast<std::size_t>(lane)]);
    sum += u;  // unsigned: wraps modulo 2^32 exactly like the hardware
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
  }
  ReduceLanes r{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!spec.warp.calls(lane)) continue;
    const auto l = static_cast<std::size_t>(lane);
    r.add[l] = sum;
    r.min[l] = lo;
    r.max[l] = hi;
  }
  return r;
}

bool vote_lane_agrees(const std::string& op, const VoteLanes& model, const VoteLanes& gpu, const WarpSetup& warp,
                      int lane) {
  const auto l = static_cast<std::size_t>(lane);
  const std::int64_t g = vote_result(gpu, op, l);
  if (op == "activemask") {
    const auto mask = static_cast<std::uint32_t>(g);
    return (mask & ~warp.calling()) == 0 && ((mask >> lane) & 1u);
  }
  const bool same = g == vote_result(model, op, l);
  return op == "match-all" ? same && gpu.match_all_pred[l] == model.match_all_pred[l] : same;
}

report::Section vote_part(Run& run, const std::string& op) {
  const VoteSpec& spec = run.vote;
  const VoteLanes m = model_votes(spec);
  if (run.ctx.gpu && !run.gpu_votes) run.gpu_votes = gpu_votes(spec);
  const std::optional<VoteLanes>& gpu = run.gpu_votes;

  report::Section s(op, op);
  describe(s, op, spec, run.in);
  const bool uses_key = op == "match-any" || op == "match-all";
  const bool mask_result = op == "ballot" || op == "activemask" || op == "match-any";
  const bool bit_column = op == "ballot" || op == "activemask";
  const bool shows_input = op != "activemask";  // __activemask takes no predicate
  report::Table t("lanes", say("votes.lanes-title"));
  t.lanes_across = op != "match-any";  // a hex mask per lane reads better one lane per row
  t.column("thread", "thread");
  if (shows_input) uses_key ? t.column("key", "key") : t.column("predicate", "pred");
  if (bit_column) t.column("bit", "bit");
  else t.column("model", "model", op == "match-any" ? Format::hex32 : Format::plain);
  if (gpu && !bit_column) t.column("gpu", "gpu", op == "match-any" ? Format::hex32 : Format::plain);

  const std::size_t first = first_calling(spec.warp);
  report::Agreement a(gpu.has_value());
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const bool calls = spec.warp.calls(lane);
    RowMark mark = calls ? RowMark::none : RowMark::inactive;
    std::vector<std::pair<std::string, Value>> cells{{"thread", lane}};
    if (shows_input) cells.emplace_back(uses_key ? "key" : "predicate", uses_key ? spec.key[l] : spec.predicate[l]);
    if (bit_column) {
      const auto whole = static_cast<std::uint32_t>(vote_result(gpu ? *gpu : m, op, first));
      cells.emplace_back("bit", I{(whole >> lane) & 1u});
    } else {
      const I mv = op == "match-all" ? m.match_all_pred[l] : vote_result(m, op, l);
      cells.emplace_back("model", calls ? Value{mv} : Value{Undefined{}});
      if (gpu) {
        const I gv = op == "match-all" ? gpu->match_all_pred[l] : vote_result(*gpu, op, l);
        cells.emplace_back("gpu", calls ? Value{gv} : Value{Undefined{}});
      }
    }
    if (calls) mark = a.note(lane, !gpu || vote_lane_agrees(op, m, *gpu, spec.warp, lane));
    t.row(cells, mark);
  }

  const I result = vote_result(m, op, first);
  if (mask_result && op != "match-any") {
    s.fact("result-model", say("votes.result-model"), result, Format::hex32);
    s.fact("result-model-bits", say("votes.result-model-bits"), result, Format::bin32, say("lane-31-left"));
    if (gpu) {
      const I g = vote_result(*gpu, op, first);
      s.fact("result-gpu", say("votes.result-gpu"), g, Format::hex32);
      s.fact("result-gpu-bits", say("votes.result-gpu-bits"), g, Format::bin32);
    }
    t.legend.push_back(say(gpu ? "votes.bit-legend-gpu" : "votes.bit-legend"));
  } else if (op == "all" || op == "any") {
    s.fact("result-model", say("votes.result-model"), result);
    if (gpu) s.fact("result-gpu", say("votes.result-gpu"), vote_result(*gpu, op, first));
  } else if (op == "match-all") {
    s.fact("result-model", say("votes.result-model"), result, Format::hex32,
           say("votes.pred-note", {{"pred", m.match_all_pred[first]}}));
    if (gpu)
      s.fact("result-gpu", say("votes.result-gpu"), vote_result(*gpu, op, first), Format::hex32,
             say("votes.pred-note", {{"pred", gpu->match_all_pred[first]}}));
    t.legend.push_back(say("votes.pred-legend"));
  }
  s.add(std::move(t));
  a.check(s, "gpu-agrees", op, lanes_detail(a));
  return s;
}

report::Section reduce_part(Run& run, const std::string& op) {
  if (run.ctx.gpu && run.ctx.compute_capability() < 80)
    throw WaivedError(say("reduce.waived-cc80", {{"gpu", run.ctx.device->index}, {"cc", run.ctx.device->cc_string()}}));
  const VoteSpec& spec = run.vote;
  const ReduceLanes m = model_reduce(spec);
  if (run.ctx.gpu && !run.gpu_reduce) run.gpu_reduce = gpu_reduce(spec);
  const std::optional<ReduceLanes>& gpu = run.gpu_reduce;
  const std::string which = op.substr(7);  // add, min, max
  const auto pick = [&](const ReduceLanes& r, std::size_t l) -> std::uint32_t {
    return which == "add" ? r.add[l] : which == "min" ? r.min[l] : r.max[l];
  };

  report::Section s(op, "__reduce_" + which + "_sync(" +
                            report::format_value(std::int64_t{spec.warp.mask}, report::Format::hex32) + ", value)");
  s.paragraph(say(which == "add" ? "reduce.about-add" : which == "min" ? "reduce.about-min" : "reduce.about-max"));
  report::Table t("lanes", say("votes.lanes-title"));
  t.lanes_across = true;
  t.column("thread", "thread").column("value", "value").column("model", "model");
  if (gpu) t.column("gpu", "gpu");
  report::Agreement a(gpu.has_value());
  for (int lane = 0; lane < spec.warp.threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    const bool calls = spec.warp.calls(lane);
    std::vector<std::pair<std::string, Value>> cells{
        {"thread", lane}, {"value", spec.values[l]}, {"model", calls ? Value{pick(m, l)} : Value{Undefined{}}}};
    if (gpu) cells.emplace_back("gpu", calls ? Value{pick(*gpu, l)} : Value{Undefined{}});
    t.row(cells, calls ? a.note(lane, !gpu || pick(*gpu, l) == pick(m, l)) : RowMark::inactive);
  }
  s.add(std::move(t));
  a.check(s, "gpu-agrees", op, lanes_detail(a));
  return s;
}

}  // namespace cudasync::warp_primitives
