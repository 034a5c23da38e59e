#pragma once
// --bench's cost model and target (cg_reduce_cost.cpp), beside the sweep of cg_reduce_bench.cpp.
#include <vector>

#include "core/cost/reduce_model.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/cg_reduce/cg_reduce.hpp"

namespace cudasync::cg_reduce {

// The bench's rows: the ladder, then its candidates.
std::vector<Kernel> bench_kernels();
// The primitives the model needs for every kernel at every size (log2); the streaming reads
// (read_key) are the bench's to measure, size by size, on its own input.
std::vector<cost::Need> cost_needs(const std::vector<Kernel>& kernels, const Plan& p, Dtype d,
                                   const std::vector<int>& sizes);
cost::Key read_key(const Plan& p, Dtype d, int log2_n);
// The model's tables beside the sweep's medians, and the target table.
void add_cost_model(report::Section& s, const std::vector<Kernel>& kernels, const Plan& p, Dtype d,
                    const std::vector<int>& sizes, const sweep::Sweep& sw, const cost::Primitives& prims, bool gpu);

}  // namespace cudasync::cg_reduce
