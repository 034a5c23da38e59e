#pragma once
// cg-reduce: the sum-reduction ladder of Fan, ch. 10 (sections 10.2-10.5), one kernel per rung, run
// on the GPU and replayed by the reference model in the same float order. This header holds the
// plain types both backends use; nvcc compiles it too, so it includes only the standard library.
#include <array>
#include <cstdint>
#include <vector>

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

}  // namespace cudasync::cg_reduce
