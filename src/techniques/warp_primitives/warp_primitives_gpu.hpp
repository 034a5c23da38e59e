#pragma once
// The GPU side of warp-primitives: each function launches one warp (<<<1, threads>>>), copies the
// per-lane results back and returns them as the same plain structs the model fills.
#include "core/gpu_entry.hpp"
#include "techniques/warp_primitives/warp_primitives.hpp"

namespace cudasync::warp_primitives {

// Lanes that did not call keep kPoison.
CUDASYNC_GPU_ENTRY(Lanes, gpu_shuffle, (const ShuffleSpec& spec))
CUDASYNC_GPU_ENTRY(VoteLanes, gpu_votes, (const VoteSpec& spec))
// Needs compute capability 8.0+: the caller waives below.
CUDASYNC_GPU_ENTRY(ReduceLanes, gpu_reduce, (const VoteSpec& spec))
CUDASYNC_GPU_ENTRY(SharedWords, gpu_syncwarp, (const Lanes& values, SyncwarpVariant variant))
// Full warp, width 32.
CUDASYNC_GPU_ENTRY(ReductionTrace, gpu_reduction_trace, (const Lanes& values, ShuffleOp op))

// Fan 10.1: one block of kDivergenceThreads runs the 32-case switch on the warp or on the lane;
// each case does `iterations` dependent steps.
CUDASYNC_GPU_ENTRY(DivergenceRun, gpu_divergence, (SwitchOn on, int iterations))
// Fan 10.4: one warp; ranks and sizes of the thread_group partitions, a thread_block_tile<4>'s
// shfl_down(v, 1), any, all and ballot of `predicate`.
CUDASYNC_GPU_ENTRY(TileLanes, gpu_tiles, (const Lanes& values, const Lanes& predicate))
// Fan 10.3: __shfl_down_sync(spec.warp.mask, v, spec.param, spec.width) on the long long and the
// double of each lane's value (wide_long_long, wide_double); lanes that did not call keep 0xAB bytes.
CUDASYNC_GPU_ENTRY(Shuffle64Lanes, gpu_shuffle64, (const ShuffleSpec& spec))

// Latency of one operation in a dependent chain in one warp, in SM cycles (clock64).
enum class CostProbe : int {
  shfl_xor = 0,
  ballot,
  match_any,
  sum_shared_syncwarp,  // Fan 10.2: the guarded shared-memory loop, 5 steps
  sum_shfl_down,        // Fan 10.3.2: five __shfl_down_sync
  sum_shfl_xor,
  sum_cg_reduce,        // cooperative_groups::reduce on a thread_block_tile<32>
  sum_reduce_add,       // __reduce_add_sync: one instruction (REDUX) on 8.0+
};
inline constexpr int kCostProbes = 8;
CUDASYNC_GPU_ENTRY(double, gpu_cycles_per_op, (CostProbe probe, int iterations))

}  // namespace cudasync::warp_primitives
