#pragma once
// cg-reduce: the sum-reduction ladder of Fan, ch. 10 (sections 10.2-10.5), one kernel per rung, run
// on the GPU and replayed by the reference model in the same float order. This header holds the
// plain types both backends use and the GPU's entry points (ladder.cu; sums come back as double: a
// float converts exactly); nvcc compiles it too, so it includes only the standard library and
// core/gpu_entry.hpp.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/gpu_entry.hpp"

namespace cudasync::cg_reduce {

enum class Dtype : int { f32 = 0, f64 = 1 };

// One kernel (a row of the ladder). Rungs group them: rung 3 has a shfl_down and a shfl_xor kernel.
enum class Kernel : int {
  shared_atomic = 0,      // rung 1: shared-memory tree, __syncthreads at every step, atomicAdd
  syncwarp_atomic,        // rung 2: the same tree, __syncwarp for offsets <= 16 (Fan 10.2)
  shfl_down_atomic,       // rung 3: __shfl_down_sync for offsets <= 16 (Fan 10.3.2)
  shfl_xor_atomic,        //         __shfl_xor_sync instead
  tile_shfl_down_atomic,  // rung 4: thread_block_tile<32>::shfl_down (Fan 10.4.2)
  cg_reduce_atomic,       //         cooperative_groups::reduce on the tile
  two_pass_fixed_grid,    // rung 5: grid-stride in registers, grid 10240, two launches (Fan 10.5.1)
  two_pass_occupancy,     //         the same kernel, grid from the occupancy API
  two_pass_vector,        //         float4 / double2 loads, 4 in flight, occupancy grid, warp-first
  static_buffer,          // rung 6: two_pass_fixed_grid with a static __device__ buffer (Fan 10.5.2)
  grid_sync,              // rung 7: one cooperative launch, block sums, grid.sync(), block 0 ends
  cub_sum,                // rung 8: cub::DeviceReduce::Sum, the reference for speed
  // --bench's candidate beside the ladder (not a rung): the vector kernel's first pass in blocks of
  // kOnePassBlock, whose last block to finish (it draws the last ticket: atomicInc) adds the
  // partial sums. One launch a call, no memset: the ticket wraps back to 0 by itself.
  one_pass_vector,
};
inline constexpr int kKernelCount = 12;  // the ladder's kernels; the bench's candidates come after
inline constexpr Kernel kBenchCandidates[] = {Kernel::one_pass_vector};
inline constexpr int kOnePassBlock = 512;

// Every kernel in ladder order: the ladder's rows, the bench's rows.
inline constexpr std::array<Kernel, kKernelCount> kLadder = {
    Kernel::shared_atomic,         Kernel::syncwarp_atomic,  Kernel::shfl_down_atomic, Kernel::shfl_xor_atomic,
    Kernel::tile_shfl_down_atomic, Kernel::cg_reduce_atomic, Kernel::two_pass_fixed_grid,    Kernel::two_pass_occupancy,
    Kernel::two_pass_vector,       Kernel::static_buffer,    Kernel::grid_sync,        Kernel::cub_sum};

inline constexpr int kSeedGrid = 10240;         // the book's grid_size (10.5.1)
inline constexpr int kSecondPassBlock = 1024;   // the book's second launch: <<<1, 1024>>>
inline constexpr int kUnroll = 4;               // vectors each thread loads before adding (two_pass_vector)
inline constexpr int kWarpSize = 32;

// The grids a run uses. The model replays exactly these, so a GPU run fills them from the
// occupancy API first and the model follows; a model run assumes an H100 (see default_plan).
struct Plan {
  int block = 128;
  int seed_grid = kSeedGrid;
  int occupancy_grid = 0;  // reduce_cp at `block`: blocks per SM x SMs
  int vector_grid = 0;     // the vector kernel at `block`
  int grid_sync_grid = 0;  // the grid-sync rung's grid (--grid, else its occupancy limit)
  int grid_sync_limit = 0; // most blocks of the grid-sync kernel resident at once (0: unknown)
  int one_pass_grid = 0;   // the bench's one-pass candidate: blocks of kOnePassBlock resident at once
};

// What the trace part records for one block `block_index` and one warp `warp` of it.
template <typename T>
struct Trace {
  int block_index = 0;
  int warp = 0;
  int block = 128;
  // Rungs 1-2: the shared array s_y[0..block-1] before the first step and after each step
  // (offsets block/2 ... 1): (1 + log2(block)) rows of `block` words.
  std::vector<T> shared_tree;
  // Rung 3: y of the warp's 32 lanes at the start of the shuffles and after offsets 16 ... 1.
  std::vector<T> shuffle;  // 6 x 32
  // Rung 5 (Fan's grid, first launch): y after the grid-stride loop, y = s_y[tid] after the shared
  // steps, then after offsets 16 ... 1: 7 x 32. Empty when block_index >= the book's grid (10240 blocks).
  std::vector<T> grid_stride;
};

inline constexpr int kShuffleSteps = 6;
inline constexpr int kGridStrideSteps = 7;

// ---------------------------------------------------------------- the GPU side

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
