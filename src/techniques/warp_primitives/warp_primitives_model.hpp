#pragma once
// The reference model: what CUDA's documentation says each warp function returns, lane by lane
// (CUDA C++ Programming Guide, "Warp Shuffle Functions", "Warp Vote Functions", "Warp Match
// Functions", "Warp Reduce Functions"; PTX ISA, shfl.sync). The GPU is checked against it.
#include <vector>

#include "techniques/warp_primitives/warp_primitives.hpp"

namespace cudasync::warp_primitives {

enum class LaneOutcome {
  received,          // got the source lane's value
  kept_own,          // source outside the lane's width segment: returns its own var
  inactive,          // did not call: no value
  undefined_source,  // source lane did not take part: CUDA leaves the value undefined
};

struct ShuffleLane {
  int segment_lane = 0;  // lane index within its width segment (Fan's lane_id = tid % w)
  int source = 0;        // the lane read from (the lane itself when kept_own)
  LaneOutcome outcome = LaneOutcome::inactive;
  std::int32_t value = 0;  // meaningful for received and kept_own
  bool defined() const { return outcome == LaneOutcome::received || outcome == LaneOutcome::kept_own; }
};

// Worked example (Fan's setup, 10.3): width 8, shfl_down delta 1, values = lane: lanes 0-6 of each
// segment receive lanes 1-7, lane 7 keeps its own value; lane 5 receives 6.
std::array<ShuffleLane, kWarpSize> model_shuffle(const ShuffleSpec& spec);

// The GPU may legitimately return a subset of the converged lanes for __activemask (the guide
// promises only "currently active" threads); the model gives the lanes that took the branch.
VoteLanes model_votes(const VoteSpec& spec);
ReduceLanes model_reduce(const VoteSpec& spec);

SharedWords syncwarp_input(const Lanes& values);  // s[0..31] = values, s[32..63] = 0
// The guarded and register variants have one outcome; so does the racy one if a warp runs in
// lockstep (every lane reads before any lane writes, as a converged warp does).
SharedWords model_syncwarp(const Lanes& values, SyncwarpVariant variant);
// The racy variant when lanes run one at a time from lane 31 down to lane 0, an order independent
// thread scheduling allows: lane 8 adds s[16] into s[8] before lane 0 reads s[8].
SharedWords model_syncwarp_racy_descending(const Lanes& values);

ReductionTrace model_reduction_trace(const Lanes& values, ShuffleOp op);  // op: down or bfly

// Fan 10.1: the case thread `thread` of the block takes: its warp (threadIdx.x / 32) or its lane
// (threadIdx.x % 32).
int divergence_case(SwitchOn on, int thread);
// What case `c` computes for `thread`: x = thread, then `iterations` times x = 3x + c (mod 2^32).
std::uint32_t case_work(int c, int thread, int iterations);
// One step of a warp: the lanes that run case `case_id` together, while the others wait.
struct PathStep {
  int warp = 0;
  int case_id = 0;
  std::uint32_t lanes = 0;
};
// Every warp's steps, warp by warp, each warp's cases in case order (the hardware may take them
// in another order; each step's lanes are what the model promises):
//   model_paths(SwitchOn::warp): 4 steps, warp w runs case w with lanes 0xffffffff;
//   model_paths(SwitchOn::lane): 128 steps, warp w runs case k with lane k alone (1 << k).
std::vector<PathStep> model_paths(SwitchOn on);
// The lanes of thread `thread`'s warp that take its case (its step's lanes).
std::uint32_t path_lanes(SwitchOn on, int thread);

// Fan 10.4: ranks and sizes of g32 = tiled_partition(block, 32) and g4 = tiled_partition(g32, 4),
// and a thread_block_tile<4>'s shfl_down(v, 1), any, all and ballot. A tile's ballot numbers its
// bits by rank in the tile: lanes 4-7 with predicates 1, 0, 1, 1 give 0b1101 = 13 in each of them.
TileLanes model_tiles(const Lanes& values, const Lanes& predicate);

// Fan 10.3: the long long and double each lane receives from __shfl_down_sync (see wide_long_long
// and wide_double); lanes without a defined value hold 0 (the judge compares only defined lanes).
Shuffle64Lanes model_shuffle64(const ShuffleSpec& spec);

}  // namespace cudasync::warp_primitives
