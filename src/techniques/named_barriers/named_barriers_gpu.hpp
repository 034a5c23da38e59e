#pragma once
// The GPU side of named-barriers: each function launches one block, copies what the kernel
// recorded back, and returns it as the plain structs the model reasons about.
#include "core/gpu_entry.hpp"
#include "techniques/named_barriers/named_barriers.hpp"

namespace cudasync::named_barriers {

CUDASYNC_GPU_ENTRY(GroupsTrace, gpu_groups, (const GroupsSpec& spec))
// bar.arrive / bar.sync (inline PTX)
CUDASYNC_GPU_ENTRY(PcResult, gpu_producer_consumer, (const PcSpec& spec))
// cuda::barrier; compute capability 8.0+
CUDASYNC_GPU_ENTRY(PcResult, gpu_producer_consumer_cuda_barrier, (const PcSpec& spec))
CUDASYNC_GPU_ENTRY(RedResult, gpu_red, (const RedSpec& spec))
// One block of spec.warps warps, the last one late, meeting at `barrier` spec.rounds times.
CUDASYNC_GPU_ENTRY(StampResult, gpu_early_stamp, (const StampSpec& spec, StampBarrier barrier))

// Runs one misuse case. Only the misuse part's child process calls this (named_barriers_misuse.cpp):
// a count that is not a multiple of 32 is undefined in the PTX ISA, and whatever the hardware does
// with it must not touch the parent's CUDA context.
CUDASYNC_GPU_ENTRY(MisuseObservation, gpu_misuse, (const MisuseCase& c, int id, const MisuseTiming& timing))

// The cost of one barrier, in ns per iteration of a loop of `iterations` barriers in one block of
// `block_threads` threads (one launch, timed with %globaltimer inside the kernel).
enum class CostVariant : int {
  syncthreads = 0,     // __syncthreads(): bar.sync 0 over the whole block
  named_halves,        // each half of the block on its own barrier: bar.sync 1|2, block/2
  arrive_sync_pair,    // half arrives (bar.arrive 1), half waits (bar.sync 1), then back on barrier 2
  cuda_barrier,        // cuda::barrier<thread_scope_block>::arrive_and_wait(); compute capability 8.0+
};
inline constexpr int kCostVariants = 4;
CUDASYNC_GPU_ENTRY(double, gpu_ns_per_barrier, (CostVariant variant, int block_threads, int iterations))

}  // namespace cudasync::named_barriers
