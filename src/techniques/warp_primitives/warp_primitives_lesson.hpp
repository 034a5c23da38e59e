#pragma once
// The warp-primitives lesson as core runs it: its options, what one run shares between parts,
// and its part table. Each part function is defined in the file named after it.
#include <optional>
#include <string>
#include <vector>

#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/warp_primitives/warp_primitives_inputs.hpp"
#include "techniques/warp_primitives/warp_primitives_model.hpp"

namespace cudasync::warp_primitives {

// A sentence of this lesson's catalog (lessons/warp-primitives/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("warp-primitives", key, args);
}

inline const std::vector<std::string> kVariants = {"guarded", "registers", "racy"};

struct Options {
  int width = 32;
  int delta = 1;      // Fan's shfl_up / shfl_down
  int lane_mask = 1;  // Fan's shfl_xor
  int src_lane = 2;
  std::string mask = "0xffffffff";
  int threads = 32;
  std::string predicate = "even";
  std::string key = "lane%4";
  std::string values = "tid";
  std::vector<std::string> variants;  // empty: all three
};

struct Inputs {
  WarpSetup warp;
  int width = 32;
  int delta = 1;
  int lane_mask = 1;
  int src_lane = 2;
  Predicate predicate;
  Key key;
  ValueKind value_kind = ValueKind::tid;
  Lanes values{};
  std::vector<SyncwarpVariant> variants;
};

// One run's shared state: the inputs, and the GPU's vote and reduce results, each one launch
// read by several parts.
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Inputs in;
  VoteSpec vote;
  std::optional<VoteLanes> gpu_votes;    // filled by the first vote part on a GPU
  std::optional<ReduceLanes> gpu_reduce;  // filled by the first reduce part on a GPU
};

const parts::Lesson<Options, Run>& lesson();
// --predict: the parts whose outcome a student predicts before the run (warp_primitives_prediction.cpp).
std::vector<parts::Prediction> predictions();

// The parts, one file each (warp_primitives_<file>.cpp).
report::Section shuffle_part(Run& run, ShuffleOp op);           // shuffles
report::Section vote_part(Run& run, const std::string& op);     // votes: ballot, all, any, activemask, match-*
report::Section reduce_part(Run& run, const std::string& op);   // reduce: reduce-add, -min, -max
report::Section syncwarp_part(Run& run);                        // syncwarp
report::Section warp_reduce_part(Run& run);                     // warp_reduce
report::Section cost_part(Run& run);                            // cost
report::Section divergence_part(Run& run);                      // divergence
report::Section cg_tiles_part(Run& run);                        // cg_tiles
report::Section shfl64_part(Run& run);                          // shfl64

const char* variant_name(SyncwarpVariant v);
std::string shuffle_call(ShuffleOp op, const ShuffleSpec& spec);  // "__shfl_down_sync(0xffffffff, v, 2, 8)"
ShuffleSpec shuffle_spec(ShuffleOp op, const Inputs& in);         // the spec a shuffle part runs
report::RowMark lane_mark(LaneOutcome outcome);                   // kept_own, undefined_src, inactive, none

}  // namespace cudasync::warp_primitives
