#include "techniques/cg_reduce/cg_reduce_plan.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "techniques/cg_reduce/cg_reduce_gpu.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

namespace {

std::string mib(double bytes) {
  return std::to_string(static_cast<long long>(bytes / (1024.0 * 1024.0) + 0.5)) + " MiB";
}

}  // namespace

Plan plan_for(int block, std::optional<int> grid, const RunContext& ctx, Dtype dtype, bool& cooperative) {
  Plan p = default_plan(block);
  cooperative = true;
  if (ctx.gpu) {
    const GpuGrids g = gpu_grids(dtype, block, ctx.device->index);
    const int fallback = ctx.device->sm_count;  // never 0, even if the occupancy API says so
    p.occupancy_grid = g.occupancy_grid > 0 ? g.occupancy_grid : fallback;
    p.vector_grid = g.vector_grid > 0 ? g.vector_grid : fallback;
    p.grid_sync_limit = g.grid_sync_limit;
    p.grid_sync_grid = g.grid_sync_limit > 0 ? g.grid_sync_limit : fallback;
    cooperative = g.cooperative_launch;
  }
  if (grid) p.grid_sync_grid = *grid;
  return p;
}

int rotation_copies(std::int64_t bytes, const RunContext& ctx, std::size_t free_bytes) {
  if (!ctx.device || ctx.device->l2_bytes <= 0) return 1;
  const double want = 4.0 * ctx.device->l2_bytes / static_cast<double>(bytes);
  int copies = std::clamp(static_cast<int>(want + 0.999), 1, 64);
  while (copies > 1 && static_cast<double>(copies) * static_cast<double>(bytes) > 0.5 * static_cast<double>(free_bytes))
    --copies;
  return copies;
}

void check_device_memory(std::int64_t n, std::size_t elem, const Plan& p, std::size_t free_bytes,
                         const RunContext& ctx, const std::string& what) {
  const double input = static_cast<double>(n) * static_cast<double>(elem);
  const int sync_grid = p.grid_sync_limit > 0 ? std::min(p.grid_sync_grid, p.grid_sync_limit) : p.grid_sync_grid;
  const int grid = std::max({p.seed_grid, p.occupancy_grid, p.vector_grid, sync_grid});
  const double partials = static_cast<double>(grid) * static_cast<double>(elem);
  if (input + partials > 0.9 * static_cast<double>(free_bytes))
    throw UsageError(what + " needs " + mib(input) + " of device memory for the input and " + mib(partials) +
                     " for the partial sums; GPU " + std::to_string(ctx.device ? ctx.device->index : 0) + " has " +
                     mib(static_cast<double>(free_bytes)) + " free. Give a smaller --n");
}

}  // namespace cudasync::cg_reduce
