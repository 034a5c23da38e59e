#pragma once
// A run of core's SIMT machine (core/simt/simt.hpp) as deadlock-demo reads it: per lane a record
// like the ones the GPU's lanes write (finished, or stuck on what, having read what), and at a
// deadlock the wait-for graph: a lane spinning on a lock waits for the lane holding it (the word
// holds the holder's index + 1), a lane spinning on a flag waits for the lane that sets it, and in
// lockstep a lane parked at a reconvergence point waits for the lanes its warp is running.
#include <string>
#include <vector>

#include "core/simt/simt.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_graph.hpp"

namespace cudasync::deadlock_demo {

struct ModelRun {
  simt::Result result;
  std::string noun = "lane";        // "block" where each lane is a block of one thread
  // Per lane: finished, or (deadlock) gave_up with `on` = the waited word's id and `seen` = the
  // value it last read; a lane parked at a reconvergence point has on = -1 and seen = that pc.
  std::vector<Record> records;
  WaitGraph graph;                  // lane level, at the deadlock
  std::vector<std::string> waits;   // the graph folded: "lanes 1-31 wait for lane 0: lock, which it holds (read 1)"

  bool completed() const { return result.completed(); }
  bool deadlock() const { return result.deadlock(); }
  long long word(const std::string& name) const { return result.word(name); }
};

// Runs `m`, tracing lanes 0..trace_lanes-1 for `trace_rows` steps (0: no trace).
ModelRun run_model(const simt::Machine& m, int trace_lanes = 0, int trace_rows = 0);

// "lane 0", "lanes 1-3, 5": the lanes of a set, with the run's noun.
std::string lanes_text(const std::string& noun, const std::vector<int>& lanes);

}  // namespace cudasync::deadlock_demo
