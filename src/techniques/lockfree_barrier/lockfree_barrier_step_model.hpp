#pragma once
// The step simulation of each protocol over B blocks and S resident slots: it prints the counter or
// the arrays step by step and ends in a deadlock when B > S (or, for the transcription's code, when a block
// runs ahead). It steps blocks of a grid, not lanes: core/simt's machine starts every lane at step 1,
// where this one starts a block only when a resident slot (or room for its whole cluster) is free,
// and it has no launch boundary (relaunch), no cluster barrier and no block that runs ahead.
#include <string>
#include <vector>

#include "techniques/lockfree_barrier/lockfree_barrier.hpp"

namespace cudasync::lockfree_barrier {

struct SimSpec {
  Barrier barrier = Barrier::xf_lock;
  int blocks = 4;
  int slots = 4;       // blocks that can be resident at once
  int threads = 256;   // the lock-free master checks one slot per thread in the transcription's code
  int barriers = 2;    // barriers to run through (phases - 1)
  int own_counters = 1;
  int shown_barriers = 2;  // steps are recorded for barriers 1 .. shown_barriers (and the end)
  int cluster_size = 1;    // own-cluster: blocks per cluster; a cluster starts only when all of it fits
};

struct SimStep {
  int step = 0;
  std::string blocks;  // "0-3, 5"
  std::string event;   // "arrive at barrier 1: atomicAdd(&g_mutex, 1)"
  std::string state;   // the protocol's words after the step: "g_mutex 4, goalVal 6"
};

struct SimResult {
  std::vector<SimStep> steps;
  bool completed = false;      // every block finished every phase
  bool deadlock = false;       // a step in which nothing could move, before the end
  int early_barrier = 0;       // > 0: a block passed this barrier before every block had arrived
  int early_block = -1;        // the first such block
  std::vector<int> spinning;   // at a deadlock: blocks that hold a slot and spin
  std::vector<int> waiting;    // at a deadlock: blocks that never got a slot
  std::vector<int> arrived;    // per block: barriers it arrived at
  std::vector<int> arrive_step, release_step;  // per block: the steps it arrived at and left barrier 1 (0: never)
  int total_steps = 0;
  std::string schedule;        // how the simulation orders the blocks' actions
};

SimResult simulate(const SimSpec& s);

}  // namespace cudasync::lockfree_barrier
