#pragma once
// --bench's pieces beside the sweep (lockfree_barrier_bench.cpp): the cost model, the own
// candidates' data check and the target (lockfree_barrier_cost.cpp).
#include <vector>

#include "core/sweep/sweep.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"

namespace cudasync::lockfree_barrier {

// The sweep's rows and columns.
struct BenchGrid {
  std::vector<Barrier> barriers;  // rows
  std::vector<int> blocks;        // columns: grid sizes, ascending
};

// Runs each own candidate once at every grid size it fits and checks its values against the
// model's: check candidates-agree (GPU only).
void check_candidates(Run& run, report::Section& sec, const BenchGrid& g);
// The model's tables beside the sweep's medians, and the target table (core/cost/compare.hpp).
void add_cost_model(Run& run, report::Section& sec, const BenchGrid& g, const sweep::Sweep& sw);

}  // namespace cudasync::lockfree_barrier
