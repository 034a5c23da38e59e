// Parts ballot, all, any, activemask, match-any, match-all: one launch of the vote kernel on a
// GPU answers all six; each part shows its own function per lane.
#include "core/report/text_format.hpp"
#include "techniques/warp_primitives/warp_primitives_gpu.hpp"
#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

namespace cudasync::warp_primitives {

namespace {

using report::Format;
using report::RowMark;
using report::Undefined;
using report::Value;
using I = std::int64_t;

std::string hex(std::uint32_t v) { return report::format_value(I{v}, Format::hex32); }

void describe(report::Section& s, const std::string& op, const VoteSpec& spec, const Inputs& in) {
  const std::string mask = hex(spec.warp.mask);
  if (op == "ballot") {
    s.title = "__ballot_sync(" + mask + ", " + in.predicate.text + ")";
    s.paragraph(say("votes.ballot-about"));
  } else if (op == "all" || op == "any") {
    s.title = "__" + op + "_sync(" + mask + ", " + in.predicate.text + ")";
    s.paragraph(op == "all" ? say("votes.all-about") : say("votes.any-about"));
  } else if (op == "activemask") {
    s.title = "__activemask()";
    s.paragraph(say("votes.activemask-about"));
  } else if (op == "match-any") {
    s.title = "__match_any_sync(" + mask + ", " + in.key.text + ")";
    s.paragraph(say("votes.match-any-about"));
  } else {
    s.title = "__match_all_sync(" + mask + ", " + in.key.text + ", &pred)";
    s.paragraph(say("votes.match-all-about"));
  }
}

std::size_t first_calling(const WarpSetup& warp) {
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (warp.calls(lane)) return static_cast<std::size_t>(lane);
  return 0;
}

}  // namespace

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
    if (gpu && calls && !vote_lane_agrees(op, m, *gpu, spec.warp, lane)) mark = RowMark::mismatch;
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
  if (gpu) {
    LaneVerdict v;
    for (int lane = 0; lane < spec.warp.threads; ++lane) {
      if (!spec.warp.calls(lane)) continue;
      ++v.compared;
      if (!vote_lane_agrees(op, m, *gpu, spec.warp, lane)) v.mismatches.push_back(lane);
    }
    s.agreement("gpu-agrees", op, v.passed(), v.detail());
  }
  return s;
}

}  // namespace cudasync::warp_primitives
