#pragma once
// The GPU side of threadfence: each function launches its kernels, copies back what they recorded,
// and returns it as the plain structs the model and the parts reason about. One line per entry:
// in a model-only build core/gpu_entry.hpp gives each a body that throws.
#include <functional>
#include <vector>

#include "core/gpu_entry.hpp"
#include "techniques/threadfence/threadfence.hpp"

namespace cudasync::threadfence {

// Runs at least `iterations` instances of `spec` (whole rounds: every thread of the grid takes part
// in each round) as many concurrent pairs as the GPU holds at once, each instance on fresh
// locations. Every wait (the two sides' rendezvous, mp's flag) gives up after `wait_budget_ns`; a
// thread that gave up stops, and its instances count as timed out. (threadfence_litmus_kernels.cu)
CUDASYNC_GPU_ENTRY(LitmusCounts, gpu_litmus, (const LitmusSpec& spec, long long iterations,
                                              unsigned long long wait_budget_ns))

// ns per iteration of the loop `variant` in `shape`: one sample per launch, `reps` launches.
// (threadfence_cost_kernels.cu, with the probe kernels the ptx part reads)
CUDASYNC_GPU_ENTRY(std::vector<double>, gpu_cost_ns, (CostVariant variant, CostShape shape, int iterations, int reps))
// The SM clock against %globaltimer: ns per clock64 cycle.
CUDASYNC_GPU_ENTRY(double, gpu_ns_per_cycle, ())

// spec.runs launches of the lastBlock reduction with guard `variant`. (threadfence_patterns_kernels.cu)
CUDASYNC_GPU_ENTRY(LastBlockRun, gpu_last_block, (const LastBlockSpec& spec, LastBlockVariant variant))
// One launch of the WorkQueue (dynamic: items fetched with atomicAdd) or of the a-priori assignment.
CUDASYNC_GPU_ENTRY(QueueRun, gpu_queue, (const QueueSpec& spec, bool dynamic))

// One launch of the WorkQueue loop with or without the __syncthreads() between two fetch() calls.
// No thread waits for another except at __syncthreads(); the work spins on clock64, bounded.
// (threadfence_race_kernels.cu)
CUDASYNC_GPU_ENTRY(RaceRun, gpu_queue_race, (const RaceSpec& spec, RaceVariant variant))
// One launch of lastBlock called every_block or skipping_blocks (never thread_zero_only: that one
// may hang, and runs in a child process through gpu_last_block_divergent).
CUDASYNC_GPU_ENTRY(PartialRun, gpu_last_block_partial, (const PartialSpec& spec, PartialVariant variant))
// Child process only: lastBlock inside if (threadIdx.x == 0). The threads write their stage into
// host-mapped memory as they go and the host watches the kernel for watch_ms. A kernel that has not
// ended by then is hung: on_hang gets what was seen (completed false) and must end the process
// without another CUDA call (every call would wait for the kernel forever).
CUDASYNC_GPU_ENTRY(PartialRun, gpu_last_block_divergent,
                   (const PartialSpec& spec, int watch_ms, const std::function<void(const PartialRun&)>& on_hang))

// The host-observer rounds with `fence` (none, device or system) between the GPU's data and its
// flag. Every GPU wait has spec.device_budget_ns, every host wait spec.host_budget_ms.
// (threadfence_host_kernels.cu)
CUDASYNC_GPU_ENTRY(HostObserverRun, gpu_host_observer, (const HostObserverSpec& spec, Fence fence))

}  // namespace cudasync::threadfence
