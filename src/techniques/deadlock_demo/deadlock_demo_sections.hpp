#pragma once
// Turns the model's predictions and the GPU's records into Report sections, one per scenario. No
// CUDA here: in a model run the GPU results are empty and what only a GPU can say reads "needs a
// GPU". Wherever the schedule is deterministic, the GPU's stuck set is checked against the model's.
#include <optional>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "core/report/report.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_child.hpp"
#include "techniques/deadlock_demo/deadlock_demo_model.hpp"

namespace cudasync::deadlock_demo {

struct Setup {
  bool gpu = false;
  std::string device;  // "GPU 0, NVIDIA H100 80GB HBM3, 132 SMs, cc 9.0"
  std::vector<Scenario> scenarios;
  int deadline_ms = kDefaultDeadlineMs;
  std::optional<int> blocks;  // --blocks as given
  std::vector<simt::Regime> regimes;
};
report::Section setup_section(const Setup& s);

struct GridPart {
  int blocks = 0;
  int deadline_ms = 0;
  Coresidency c;
  ScenarioModel model;
  std::optional<GridRun> broken, fix;  // fix: the grid sized from the occupancy API
  std::optional<CoopRun> coop;
  bool coop_supported = true;
  std::optional<Health> health;
};
report::Section grid_section(const GridPart& p);

struct ChainPart {
  int blocks = 0;
  int deadline_ms = 0;
  Coresidency c;
  ScenarioModel model;
  std::optional<GridRun> broken, fix;
  std::optional<Health> health;
};
report::Section chain_section(const ChainPart& p);

struct WarpPart {
  int deadline_ms = 0;
  WarpModel model;
  std::optional<LaneRun> lock, ring;
  std::optional<Health> health;
};
report::Section warp_section(const WarpPart& p);

struct LockOrderPart {
  int deadline_ms = 0;
  LockOrderModel model;
  std::optional<LockOrderRun> gpu;
  std::optional<Health> health;
};
report::Section lock_order_section(const LockOrderPart& p);

struct BarrierCase {
  int present = 0;  // threads (lanes) that reach the barrier
  BarrierVariant variant = BarrierVariant::rescue;
  ScenarioModel model;
};
struct BarrierPart {
  bool syncwarp = false;
  int deadline_ms = 0;
  std::vector<BarrierCase> cases;  // divergent-syncthreads: whole warps, if / else, inside a warp
  bool gpu = false;
  std::optional<ChildOutcome> child;
  std::optional<Health> health;  // this process, after the child
  bool sanitize = false;         // --sanitize asked (divergent-syncthreads)
  std::optional<SanitizerRun> sanitizer;
  std::string sanitizer_missing;  // --sanitize, but no compute-sanitizer: where it looked
};
report::Section barrier_section(const BarrierPart& p);

}  // namespace cudasync::deadlock_demo
