#include "techniques/warp_primitives/warp_primitives_judge.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

#include <cstring>

#include "core/kernel_listing.hpp"
#include "core/report/report.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::warp_primitives {

std::string LaneVerdict::detail() const {
  if (passed()) return say("judge.lanes-agree", {{"compared", compared}});
  return say("judge.lanes-differ", {{"lanes", report::list_of(mismatches)}});
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

LaneVerdict judge_paths(SwitchOn on, const BlockMasks& gpu) {
  LaneVerdict v;
  for (int t = 0; t < kDivergenceThreads; ++t) {
    ++v.compared;
    const std::uint32_t got = gpu[static_cast<std::size_t>(t)];
    const bool self = (got >> (t % kWarpSize)) & 1u;
    if (!self || (got & ~path_lanes(on, t)) != 0) v.mismatches.push_back(t);
  }
  return v;
}

LaneVerdict judge_case_results(SwitchOn on, int iterations, const BlockValues& gpu) {
  LaneVerdict v;
  for (int t = 0; t < kDivergenceThreads; ++t) {
    ++v.compared;
    if (gpu[static_cast<std::size_t>(t)] != case_work(divergence_case(on, t), t, iterations)) v.mismatches.push_back(t);
  }
  return v;
}

double divergence_ratio(const std::vector<double>& warp_switch, const std::vector<double>& lane_switch) {
  if (warp_switch.empty() || lane_switch.empty()) return 0.0;
  const double base = report::median(warp_switch);
  return base > 0.0 ? report::median(lane_switch) / base : 0.0;
}

LaneVerdict judge_tiles(const TileLanes& model, const TileLanes& gpu) {
  LaneVerdict v;
  for (std::size_t l = 0; l < kWarpSize; ++l) {
    ++v.compared;
    const bool same = model.g32_rank[l] == gpu.g32_rank[l] && model.g32_size[l] == gpu.g32_size[l] &&
                      model.g4_rank[l] == gpu.g4_rank[l] && model.g4_size[l] == gpu.g4_size[l] &&
                      model.shfl_down[l] == gpu.shfl_down[l] && model.any[l] == gpu.any[l] &&
                      model.all[l] == gpu.all[l] && model.ballot[l] == gpu.ballot[l];
    if (!same) v.mismatches.push_back(static_cast<int>(l));
  }
  return v;
}

namespace {
template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <typename T>
bool poisoned(T v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  for (unsigned char b : bytes)
    if (b != 0xAB) return false;
  return true;
}
}  // namespace

LaneVerdict judge_shuffle64(const std::array<ShuffleLane, kWarpSize>& lanes, const Shuffle64Lanes& model,
                            const Shuffle64Lanes& gpu, int threads) {
  LaneVerdict v;
  for (int lane = 0; lane < threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    bool ok = true;
    if (lanes[l].outcome == LaneOutcome::inactive) ok = poisoned(gpu.ll[l]) && poisoned(gpu.dbl[l]);
    else if (lanes[l].defined()) ok = gpu.ll[l] == model.ll[l] && same_bits(gpu.dbl[l], model.dbl[l]);
    if (lanes[l].outcome != LaneOutcome::undefined_source) ++v.compared;
    if (!ok) v.mismatches.push_back(lane);
  }
  return v;
}

int shfl_count(const std::vector<std::string>& warp_instructions) {
  int n = 0;
  for (const auto& [op, count] : opcode_counts(warp_instructions))
    if (op.rfind("SHFL", 0) == 0) n += count;
  return n;
}

}  // namespace cudasync::warp_primitives
