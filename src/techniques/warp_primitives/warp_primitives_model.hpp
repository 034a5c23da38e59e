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
  int segment_lane = 0;  // lane index within its width segment (the seed's lane_id = tid % w)
  int source = 0;        // the lane read from (the lane itself when kept_own)
  LaneOutcome outcome = LaneOutcome::inactive;
  std::int32_t value = 0;  // meaningful for received and kept_own
  bool defined() const { return outcome == LaneOutcome::received || outcome == LaneOutcome::kept_own; }
};

// Worked example (the seed's): width 8, shfl_down delta 2, values = lane: lanes 0-5 of each
// segment receive lanes 2-7, lanes 6-7 keep their own value; lane 5 receives 7.
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

}  // namespace cudasync::warp_primitives
