#pragma once
// Verdicts on a GPU's lanes against the reference model: pure functions, tested directly
// (tests/techniques/warp_primitives/warp_primitives_judge_test.cpp). Sections only show them.
#include <cstdint>
#include <string>
#include <vector>

#include "techniques/warp_primitives/warp_primitives_model.hpp"

namespace cudasync::warp_primitives {

// Which lanes were compared and which of them differ.
struct LaneVerdict {
  int compared = 0;
  std::vector<int> mismatches;
  bool passed() const { return mismatches.empty(); }
  // "32 of 32 compared lanes agree" or "lanes 3, 5 differ".
  std::string detail() const;
};

// A lane that did not call must not have been written (it keeps kPoison); one with a defined value
// must hold it; one whose source lane did not call may hold anything (CUDA leaves it undefined).
//   shuffle_lane_agrees(kept_own lane holding 5, 5) == true
bool shuffle_lane_agrees(const ShuffleLane& model, std::int32_t gpu);
LaneVerdict judge_shuffle(const std::array<ShuffleLane, kWarpSize>& model, const Lanes& gpu, int threads);

// The value a vote or match op ("ballot", "all", "any", "activemask", "match-any", "match-all")
// returns in lane `lane`.
std::int64_t vote_result(const VoteLanes& v, const std::string& op, std::size_t lane);
// __activemask may return any subset of the calling lanes that holds the lane itself (the guide
// promises only the "currently active" threads); every other op must equal the model exactly,
// match-all's pred included.
bool vote_lane_agrees(const std::string& op, const VoteLanes& model, const VoteLanes& gpu, const WarpSetup& warp,
                      int lane);

// The indices where two shared-memory images differ.
std::vector<int> differing_words(const SharedWords& a, const SharedWords& b);

// Fan 10.1. Each thread's __activemask() inside its case must hold the thread itself and only
// lanes of its warp that take the same case (the hardware may run fewer together, never others).
LaneVerdict judge_paths(SwitchOn on, const BlockMasks& gpu);
// Each thread computed its own case's work: case_work(its case, thread, iterations).
LaneVerdict judge_case_results(SwitchOn on, int iterations, const BlockValues& gpu);
// The median cycles of the per-lane switch over those of the per-warp switch; 0 when either has no
// samples. 32 paths of the same length: near 32 when nothing else dominates.
double divergence_ratio(const std::vector<double>& warp_switch, const std::vector<double>& lane_switch);
// What the check asks: the lane switch costs at least this many times the warp switch.
inline constexpr double kSerialisedAtLeast = 8.0;

// Fan 10.4: every field of every lane equal (ranks, sizes, shfl_down, any, all, ballot).
LaneVerdict judge_tiles(const TileLanes& model, const TileLanes& gpu);

// Fan 10.3: as judge_shuffle, for the long long and the double (compared bit for bit) of each lane;
// a lane that did not call must keep the 0xAB poison bytes in both.
LaneVerdict judge_shuffle64(const std::array<ShuffleLane, kWarpSize>& lanes, const Shuffle64Lanes& model,
                            const Shuffle64Lanes& gpu, int threads);

// How many SHFL instructions a kernel's warp-level SASS holds (core/kernel_listing: KernelCode::warp).
int shfl_count(const std::vector<std::string>& warp_instructions);

}  // namespace cudasync::warp_primitives
