#pragma once
// Turns the model's and the GPU's results into Report sections. No CUDA here; a model run leaves
// every GPU field empty and says "needs a GPU" for every time.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "core/report/report.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"

namespace cudasync::lockfree_barrier {

struct Setup {
  int blocks = 132;
  int threads = 256;
  int phases = 16;
  std::uint64_t seed = 1;
  bool gpu = false;
  std::string device;        // "GPU 0, NVIDIA H100 80GB HBM3, 132 SMs, cc 9.0"; empty in a model run
  Coresidency software;      // what a software barrier may use
  Coresidency cooperative;   // what cudaLaunchCooperativeKernel accepts
  Coresidency cluster;       // own-cluster: what fits at once in clusters of cluster_size
  int cluster_size = 1;
  std::string cluster_unsupported;  // non-empty: own-cluster cannot run on this GPU, and why
  int own_counters = 1;
  int deadline_ms = 100;
  bool allow_unsafe = false;
  bool trace = false;
  double timer_step_ns = 0;  // %globaltimer's step on this GPU (0: unknown)
  int reps = 0;              // timing samples per barrier
  bool beyond() const { return blocks > software.limit(); }
  // The resident slots barrier b's model simulates, and whether the grid is past them.
  int limit_of(Barrier b) const {
    return b == Barrier::grid_sync ? cooperative.limit() : uses_clusters(b) ? cluster.limit() : software.limit();
  }
  bool beyond(Barrier b) const {
    return needs_coresidency(b) && blocks > (uses_clusters(b) ? cluster.limit() : software.limit());
  }
};

// One barrier of a run.
struct BarrierResult {
  Barrier barrier = Barrier::relaunch;
  SimResult sim;                          // the model's step simulation
  std::vector<std::uint32_t> model_words; // final_words(): empty where the tool cannot read them
  std::optional<GpuRun> gpu;              // a GPU run
  std::optional<std::string> waived;      // cooperative launch unsupported: why
};

report::Section setup_section(const Setup& s);
// `model_values`: what the multi-phase kernel must leave (empty when the grid is past co-residency
// and only relaunch / graph are compared).
report::Section barrier_section(const BarrierResult& r, const Setup& s, const std::vector<std::uint32_t>& model_values);
report::Section summary_section(const std::vector<BarrierResult>& results, const Setup& s);

// --bench
struct BenchCell {
  int blocks = 0;
  std::vector<double> ns;  // empty: not measured (model run, waived, or past co-residency)
  bool deadline_hit = false;
  std::string note;
};
struct BenchRow {
  Barrier barrier = Barrier::relaunch;
  std::vector<BenchCell> cells;  // one per block count
};
struct BenchSetup {
  std::vector<int> blocks;     // the sweep, ascending; blocks[0] is one per SM, the last full co-residency
  int sm_count = 0;
  int threads = 256;
  int reps = 0;
  int k1 = 0, k2 = 0;          // barriers per timed launch (relaunch: launches)
  bool gpu = false;
  std::string device;
  Coresidency software, cooperative;
  std::string cluster_unsupported;  // non-empty: own-cluster is waived here
  std::vector<double> floor_ns;  // one dependent L2 atomic round trip
  int floor_chain = 0;
};
report::Section bench_setup_section(const BenchSetup& b);
report::Section bench_section(const BenchSetup& b, const std::vector<BenchRow>& rows);

// Helpers shared with the tests.
std::string timeline(std::int64_t arrive, std::int64_t release, std::int64_t t0, std::int64_t t1, int width);

}  // namespace cudasync::lockfree_barrier
