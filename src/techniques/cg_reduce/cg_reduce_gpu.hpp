#pragma once
// The GPU side of cg-reduce: the rungs' kernels behind plain C++ entry points (no CUDA types),
// defined in cg_reduce_kernels.cu. Sums come back as double: a float converts exactly.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/gpu_entry.hpp"
#include "techniques/cg_reduce/cg_reduce.hpp"

namespace cudasync::cg_reduce {

// Grids from the occupancy API on the current device, for `block` threads per block.
struct GpuGrids {
  int occupancy_grid = 0;   // reduce_cp: blocks per SM x SMs
  int vector_grid = 0;      // the vector kernel
  int grid_sync_limit = 0;  // the grid-sync kernel: the largest grid a cooperative launch accepts
  int one_pass_grid = 0;    // the bench's one-pass candidate, in blocks of kOnePassBlock
  bool cooperative_launch = false;  // cudaDevAttrCooperativeLaunch
};
CUDASYNC_GPU_ENTRY(GpuGrids, gpu_grids, (Dtype dtype, int block, int device))
CUDASYNC_GPU_ENTRY(std::size_t, gpu_free_bytes, ())  // cudaMemGetInfo

// One input on the device, uploaded once and kept in `copies` device copies: timing rotates
// through them, so that a problem smaller than the L2 cache is still read from device memory.
class GpuInput;
CUDASYNC_GPU_ENTRY(std::shared_ptr<GpuInput>, gpu_upload, (const std::vector<float>& x, int copies))
CUDASYNC_GPU_ENTRY(std::shared_ptr<GpuInput>, gpu_upload, (const std::vector<double>& x, int copies))

// One call of kernel k on copy 0: its sum, copied back. The grid-sync rung throws WaivedError
// (exit 77) when the cooperative launch is refused; the message carries CUDA's error.
CUDASYNC_GPU_ENTRY(double, gpu_sum, (GpuInput& in, Kernel k, const Plan& plan))
// Device-event time of one call (both launches where there are two; the memset of the atomic
// target included), `reps` times after `warmup`: milliseconds per call.
CUDASYNC_GPU_ENTRY(std::vector<double>, gpu_time_ms, (GpuInput& in, Kernel k, const Plan& plan, int reps, int warmup))
// Host wall time of the book's whole reduce() wrapper, result copied back: microseconds per call.
// two_pass_fixed_grid: cudaMalloc + 2 launches + cudaMemcpy + cudaFree (10.5.1); static_buffer:
// cudaGetSymbolAddress + 2 launches + cudaMemcpy (10.5.2).
CUDASYNC_GPU_ENTRY(std::vector<double>, gpu_wrapper_us, (GpuInput& in, Kernel k, const Plan& plan, int reps))
// The cost model's "bytes" (core/cost/stream_read.cuh): one plain streaming read of the input per
// call, rotating through the copies as the timing does; ns per call, `reps` after `warmup`.
CUDASYNC_GPU_ENTRY(std::vector<double>, gpu_read_ns, (GpuInput& in, int reps, int warmup))
// cub::DeviceReduce::Reduce with cuda::std::plus<> and init 0 (CCCL 3 removed cub::Sum()).
CUDASYNC_GPU_ENTRY(double, gpu_cub_reduce_plus, (GpuInput& in))
// The traced launches of rungs 2, 3 and 5 (see Trace); `out` has the input's type.
CUDASYNC_GPU_ENTRY(void, gpu_trace, (GpuInput& in, const Plan& plan, int block_index, int warp, Trace<float>& out))
CUDASYNC_GPU_ENTRY(void, gpu_trace, (GpuInput& in, const Plan& plan, int block_index, int warp, Trace<double>& out))

}  // namespace cudasync::cg_reduce
