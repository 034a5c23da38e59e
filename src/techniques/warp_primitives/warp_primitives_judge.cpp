#include "techniques/warp_primitives/warp_primitives_judge.hpp"

#include "core/report/text_format.hpp"

namespace cudasync::warp_primitives {

std::string LaneVerdict::detail() const {
  if (passed()) return std::to_string(compared) + " of " + std::to_string(compared) + " compared lanes agree";
  return "lanes " + report::list_of(mismatches) + " differ";
}

bool shuffle_lane_agrees(const ShuffleLane& model, std::int32_t gpu) {
  if (model.outcome == LaneOutcome::inactive) return gpu == kPoison;
  return model.defined() ? gpu == model.value : true;
}

LaneVerdict judge_shuffle(const std::array<ShuffleLane, kWarpSize>& model, const Lanes& gpu, int threads) {
  LaneVerdict v;
  for (int lane = 0; lane < threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    if (model[l].outcome != LaneOutcome::undefined_source) ++v.compared;
    if (!shuffle_lane_agrees(model[l], gpu[l])) v.mismatches.push_back(lane);
  }
  return v;
}

std::int64_t vote_result(const VoteLanes& v, const std::string& op, std::size_t lane) {
  if (op == "ballot") return v.ballot[lane];
  if (op == "all") return v.all[lane];
  if (op == "any") return v.any[lane];
  if (op == "activemask") return v.activemask[lane];
  if (op == "match-any") return v.match_any[lane];
  return v.match_all[lane];
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

std::vector<int> differing_words(const SharedWords& a, const SharedWords& b) {
  std::vector<int> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace cudasync::warp_primitives
