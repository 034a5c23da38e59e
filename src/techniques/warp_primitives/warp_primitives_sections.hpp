#pragma once
// Turns model and GPU results into Report sections. No CUDA here: `gpu` is empty in model runs.
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "techniques/warp_primitives/warp_primitives_inputs.hpp"
#include "techniques/warp_primitives/warp_primitives_model.hpp"

namespace cudasync::warp_primitives {

struct Inputs {
  WarpSetup warp;
  int width = 32;
  int delta = 2;
  int lane_mask = 2;
  int src_lane = 2;
  Predicate predicate;
  Key key;
  ValueKind value_kind = ValueKind::tid;
  Lanes values{};
  std::vector<SyncwarpVariant> variants;
};

report::Section setup_section(const Inputs& in, bool gpu);
report::Section shuffle_section(const std::string& op, const ShuffleSpec& spec, const std::optional<Lanes>& gpu);
report::Section vote_section(const std::string& op, const VoteSpec& spec, const Predicate& pred, const Key& key,
                             const std::optional<VoteLanes>& gpu);
report::Section reduce_section(const std::string& op, const VoteSpec& spec, const std::optional<ReduceLanes>& gpu);

struct SyncwarpOutcome {
  SyncwarpVariant variant;
  std::optional<SharedWords> gpu;
};
report::Section syncwarp_section(const Lanes& values, const std::vector<SyncwarpOutcome>& outcomes, bool gpu_run);

report::Section warp_reduce_section(const Lanes& values, const std::optional<ReductionTrace>& gpu_down,
                                    const std::optional<ReductionTrace>& gpu_xor);

struct CostRow {
  std::string name;
  std::string note;
  std::vector<double> cycles;  // empty: not measured (needs_gpu or waived)
  bool waived = false;
};
report::Section cost_section(const std::vector<CostRow>& rows, bool gpu_run, int iterations);

const char* variant_name(SyncwarpVariant v);
std::string shuffle_call(const std::string& op, const ShuffleSpec& spec);  // "__shfl_down_sync(0xffffffff, v, 2, 8)"

}  // namespace cudasync::warp_primitives
