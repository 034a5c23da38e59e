#pragma once
// The deadlock-demo lesson as core runs it: its options, what one run shares between parts (the
// barrier children, started first so that they run while this process does the other parts), and
// its part table. Each part is defined in the file named after it.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/child_process.hpp"
#include "core/coresidency.hpp"
#include "core/parts/lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_child.hpp"
#include "techniques/deadlock_demo/deadlock_demo_model.hpp"
#include "techniques/deadlock_demo/deadlock_demo_simt.hpp"

namespace cudasync::deadlock_demo {

inline constexpr const char* kLessonId = "deadlock-demo";

struct Options {
  std::optional<int> blocks;         // grid-oversubscribed, producer-before-consumer
  int deadline_ms = kDefaultDeadlineMs;
  std::optional<std::string> model;  // lockstep | independent: warp-spinlock's trace
  bool sanitize = false;             // run compute-sanitizer synccheck on the divergent-syncthreads child
  int child_grace_ms = kChildGraceMs;  // hidden: a barrier child's watchdog, past the deadline
};

// A barrier child started by the parent: the process, or why it could not be started.
struct StartedChild {
  std::unique_ptr<ChildProcess> process;
  std::string error;
};

// One run's shared state.
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Options options;
  std::string child_out;                // a child's answer file (the child mode only)
  std::vector<simt::Scheduling> traces;  // warp-spinlock's traces; empty when it does not run
  StartedChild sync_child, warp_child;  // divergent-syncthreads, syncwarp-mask (GPU runs)
  std::unique_ptr<SanitizerChild> sanitizer;  // --sanitize, when compute-sanitizer was found and started
  std::string sanitizer_missing;        // --sanitize without it: where it looked, or why it did not start

  unsigned long long deadline_ns() const;
};

const parts::Lesson<Options, Run>& lesson();
// --predict: the parts whose outcome a student predicts before the run (deadlock_demo_prediction.cpp).
std::vector<parts::Prediction> predictions();

// The parts, one file each (deadlock_demo_<file>.cpp).
report::Section grid_part(Run& run);        // grid-oversubscribed (grid)
report::Section chain_part(Run& run);       // producer-before-consumer (chain)
report::Section warp_part(Run& run);        // warp-spinlock (warp)
report::Section lock_order_part(Run& run);  // lock-order (lock_order)
report::Section barrier_part(Run& run, bool syncwarp);  // divergent-syncthreads, syncwarp-mask (barrier)
// Shared by the grid parts (grid): the co-residency of a grid kernel (the occupancy API's on a GPU,
// an H100's in the model) and the grid (--blocks, or twice what fits); the launch's facts; the
// blocks the model finds without a slot; the
// broken launch on this GPU (what every block did, and its checks against the deadline or the
// result, and against the model: `completes` names the check of a grid that fits).
struct Grid {
  Coresidency c;
  int blocks = 0;
  bool too_many() const { return blocks > c.limit(); }
};
Grid grid_of(const Run& run, GridKernel kernel);
void add_grid_launch(report::Section& s, const Run& run, const Grid& g, const std::string& what);
// The model's count of blocks that never get a slot ("model-no-slot"): the cycle's words as a number.
void add_no_slot(report::Section& s, const ScenarioModel& m);
void add_gpu_grid(report::Section& s, const Run& run, const Grid& g, const GridRun& gpu, const ScenarioModel& model,
                  const Describe& describe, const std::string& completes);
// The barrier children's side (barrier): runs the cases on the GPU and returns the answer.
std::string barrier_child(Run& run, bool syncwarp);

}  // namespace cudasync::deadlock_demo
