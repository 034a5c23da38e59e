#pragma once
// Device planning, apart from the parts: the grids a run uses and the copies of the input that
// timing rotates through. On a GPU the occupancy API decides; on the model an H100 is assumed.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/run_context.hpp"
#include "techniques/cg_reduce/cg_reduce.hpp"

namespace cudasync::cg_reduce {

// The grids for `block` threads per block; `grid` (--grid) overrides the grid-sync rung's grid.
// `cooperative` says whether the GPU takes cooperative launches (true on the model).
Plan plan_for(int block, std::optional<int> grid, const RunContext& ctx, Dtype dtype, bool& cooperative);

// Device copies of an input of `bytes` to rotate through: enough to span 4 x the L2 cache, at
// most 64, never more than half the free memory.
int rotation_copies(std::int64_t bytes, const RunContext& ctx, std::size_t free_bytes);

// The input plus the largest partial-sum array must fit in device memory: else UsageError,
// naming `what` ("--n 1000", "--bench size 2^28").
void check_device_memory(std::int64_t n, std::size_t elem, const Plan& p, std::size_t free_bytes,
                         const RunContext& ctx, const std::string& what);

}  // namespace cudasync::cg_reduce
