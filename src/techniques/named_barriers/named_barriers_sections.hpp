#pragma once
// Turns model and GPU results into Report sections. No CUDA here: the GPU results are empty in
// model runs.
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_listing.hpp"
#include "core/report/report.hpp"
#include "techniques/named_barriers/named_barriers_inputs.hpp"
#include "techniques/named_barriers/named_barriers_misuse.hpp"
#include "techniques/named_barriers/named_barriers_model.hpp"

namespace cudasync::named_barriers {

struct Inputs {
  GroupsSpec groups;
  PcSpec pc;
  int red_threads = 256;
  int red_id = 1;
  std::vector<Predicate> predicates;
  std::vector<MisuseCase> misuse;
  int misuse_id = 1;
  bool trace = false;
};

report::Section setup_section(const Inputs& in, bool gpu, const std::string& device);

report::Section groups_section(const GroupsSpec& spec, const std::optional<GroupsTrace>& gpu);

report::Section pc_section(const PcSpec& spec, const std::optional<PcResult>& gpu, bool trace);

struct RedRun {
  Predicate predicate;
  std::vector<std::int32_t> values;  // the predicate per thread
  std::optional<RedResult> gpu;
};
report::Section red_section(int threads, int id, const std::vector<RedRun>& runs);

// `sass` are this kernel's SASS instructions for the arch the run shows (empty: no listing).
report::Section cuda_barrier_section(const PcSpec& spec, const std::optional<PcResult>& gpu, bool trace,
                                     const std::string& arch, const std::vector<std::string>& sass);

// The listing for `arch` ("sm_90": listing_sass_arch in core/kernel_listing.hpp).
report::Section listing_section(const KernelListing& listing, const std::string& arch);
// The instructions of this lesson's kernel `name` ("groups_kernel") for `arch` (SASS) or PTX.
std::vector<std::string> kernel_sass(const KernelListing& listing, const std::string& arch, const std::string& name);

report::Section misuse_section(const std::vector<MisuseCase>& cases, int id, const std::vector<std::optional<MisuseOutcome>>& gpu,
                               bool gpu_run);

struct CostRow {
  std::string name;
  std::string note;
  int block_threads = 0;
  std::vector<double> ns;  // empty: not measured
};
report::Section cost_section(const std::vector<CostRow>& rows, bool gpu_run, int iterations);

// Block sizes the cost part measures.
inline const std::vector<int> kCostBlocks = {64, 128, 256, 512, 1024};

}  // namespace cudasync::named_barriers
