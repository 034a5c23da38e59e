#pragma once
// The GPU side of threadfence: each function launches its kernels, copies back what they recorded,
// and returns it as the plain structs the model and the parts reason about. One line per entry:
// in a model-only build core/gpu_entry.hpp gives each a body that throws.
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

}  // namespace cudasync::threadfence
