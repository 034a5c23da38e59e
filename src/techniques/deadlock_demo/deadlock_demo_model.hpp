#pragma once
// The reference model of deadlock-demo: for each scenario, the schedule that leads to the deadlock,
// step by step; the wait-for graph at that point (who waits for whom, on what) and its cycle; the
// blocks or lanes predicted stuck, as records the GPU's records are folded beside; and the fix
// run to completion. The grid scenarios are modelled block range by block range against the
// co-residency limit (the occupancy API's on a GPU, an H100's without one); the lane scenarios run
// their programs (deadlock_demo_simt.hpp) on core's SIMT machine. Host-only code, no CUDA.
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_graph.hpp"
#include "techniques/deadlock_demo/deadlock_demo_simt.hpp"
#include "techniques/deadlock_demo/deadlock_demo_waits.hpp"

namespace cudasync::deadlock_demo {

struct Step {
  std::string who;
  std::string what;
};

struct ScenarioModel {
  std::vector<Step> steps;         // the schedule that leads to the deadlock (or to completion)
  bool deadlock = false;
  WaitGraph graph;                 // at the deadlock
  std::vector<std::string> waits;  // the graph in words, one line per group of waiters
  std::vector<Record> records;     // predicted, one per block / lane / thread
  std::vector<Step> fix_steps;     // the fix, run to completion
  bool fix_completes = false;
  std::string fix_result;
};

// The co-residency a model run assumes: an H100 (132 SMs), a kernel of 256 threads and at most 32
// registers per thread (what the grid kernels need): 8 blocks per SM, 1056 at once.
Coresidency model_coresidency();

// grid-oversubscribed: the counter barrier over `blocks` blocks with `c` resident at once.
ScenarioModel grid_barrier_model(int blocks, const Coresidency& c);
Describe barrier_describe(int blocks);

// producer-before-consumer: block b waits for block b + 1's flag; the fix orders by ticket.
ScenarioModel chain_model(int blocks, const Coresidency& c);
Describe chain_describe();

// warp-spinlock: the lock in one warp under both schedulers (32 lanes), the cycle between lanes
// (32 lanes), and 4-lane traces for the report.
struct WarpModel {
  ModelRun lock_lockstep, lock_independent;  // 32 lanes
  ModelRun ring_lockstep, ring_independent;  // 32 lanes
  std::vector<ModelRun> lock_traces;         // 4 lanes, the schedulings asked for
  ModelRun ring_trace;                       // 4 lanes, independent
};
WarpModel warp_model(const std::vector<simt::Scheduling>& traces);
Describe spinlock_describe();
Describe ring_describe();

// lock-order: the AB/BA run and the fix (2 iterations) on the SIMT machine, blocks as lanes.
struct LockOrderModel {
  ModelRun broken, fixed;
  ScenarioModel m;  // steps from the broken run, its graph, records; the fix
};
LockOrderModel lock_order_model();
Describe lock_order_describe();

// divergent-syncthreads and syncwarp-mask: the barrier as the programming guide specifies it (it
// completes when every thread it names has arrived), and the rescue. `present` threads of the
// block (lanes of the warp) reach it.
// BarrierVariant::if_else: the others call a second __syncthreads() at once; nobody waits for a
// thread that is not coming, but one barrier has two instructions, which the guide does not allow.
ScenarioModel barrier_model(bool syncwarp, int present, BarrierVariant variant = BarrierVariant::rescue);
// The child's observation as records (`seen` says which of these it was):
//   present, finished: 1 left only after the others began their barrier call, 0 left before
//   present, gave up:  3 arrived and never left (the kernel hung)
//   absent, finished:  2 saw the flag instead (the others got through without them);
//                      7 (if / else) called the else branch's barrier and left it
//   absent, gave up:   0 gave up at the deadline and rescued; 5 rescued and never left the rescue;
//                      4 stopped running before the deadline (last seen spinning at end_ns)
std::vector<Record> barrier_records(const BarrierObservation& o);
Describe barrier_child_describe(bool syncwarp, BarrierVariant variant = BarrierVariant::rescue);

}  // namespace cudasync::deadlock_demo
