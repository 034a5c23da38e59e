#pragma once
// Turns model and GPU results into Report sections. No CUDA here: the GPU results are empty in
// model runs, and every figure only a GPU can give says so.
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_listing.hpp"
#include "core/report/report.hpp"
#include "techniques/threadfence/threadfence_model.hpp"

namespace cudasync::threadfence {

// One litmus configuration: what the model allows and, on a GPU, what was seen.
struct LitmusRow {
  std::string label;             // the volatile part names its rows ("" elsewhere)
  LitmusSpec spec;
  long long iterations = 0;      // asked for
  unsigned long long budget_ns = 0;
  bool timeouts_expected = false;  // the volatile part's wait on a plain load
  ModelVerdict model;
  std::optional<LitmusCounts> gpu;
};
LitmusRow make_row(const LitmusSpec& spec, long long iterations, unsigned long long budget_ns);

struct SetupInfo {
  bool gpu = false;
  std::string device;            // "GPU 0, NVIDIA H100 80GB HBM3, 132 SMs, cc 9.0"
  std::uint64_t seed = 1;
  long long iterations = 0;
  std::vector<std::string> parts;
};
report::Section setup_section(const SetupInfo& s);

// The test x fence matrix (or what --test / --fence chose).
report::Section litmus_section(const std::vector<LitmusRow>& rows, bool gpu_run);
// mp with and without fences, producer and consumer in one block or in two.
report::Section scope_section(const std::vector<LitmusRow>& rows, bool gpu_run);
// volatile orders nothing; a plain load may never see the flag.
report::Section volatile_section(const std::vector<LitmusRow>& rows, bool gpu_run);

// What each fence and atomic compiled to (the probe kernels), beside seed 004's membar table.
report::Section ptx_section(const KernelListing& listing, const std::string& arch);

struct CostRow {
  CostVariant variant = CostVariant::none;
  CostShape shape = CostShape::one_thread;
  std::vector<double> ns;  // empty: not measured
};
const char* to_string(CostVariant v);
const char* to_string(CostShape s);
report::Section cost_section(const std::vector<CostRow>& rows, bool gpu_run, int iterations, bool bench);

struct LastBlockOutcome {
  LastBlockVariant variant = LastBlockVariant::syncthreads_or;
  std::optional<LastBlockRun> gpu;
};
report::Section last_block_section(const LastBlockSpec& spec, std::uint64_t model_sum,
                                   const std::vector<LastBlockOutcome>& runs, bool gpu_run);

struct QueueOutcome {
  std::optional<QueueRun> a_priori;  // the static assignment
  std::optional<QueueRun> queue;     // the WorkQueue
};
report::Section queue_section(const QueueSpec& spec, const QueueOutcome& gpu, bool gpu_run);

// The SASS / PTX of this lesson's kernel `name` for `arch` (SASS) or the newest PTX target.
std::vector<std::string> kernel_code(const KernelListing& listing, bool sass, const std::string& arch,
                                     const std::string& name, bool with_memory);

}  // namespace cudasync::threadfence
