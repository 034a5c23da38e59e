#pragma once
// The GPU side of threadfence: each function launches its kernels, copies back what they recorded,
// and returns it as the plain structs the model and the sections reason about.
#include <vector>

#include "techniques/threadfence/threadfence.hpp"

namespace cudasync::threadfence {

// Runs at least `iterations` instances of `spec` (whole rounds: every thread of the grid takes part
// in each round) as many concurrent pairs as the GPU holds at once, each instance on fresh
// locations. Every wait (the two sides' rendezvous, mp's flag) gives up after `wait_budget_ns`; a
// thread that gave up stops, and its instances count as timed out.
LitmusCounts gpu_litmus(const LitmusSpec& spec, long long iterations, unsigned long long wait_budget_ns);

// The pairs one round runs on this GPU (for sizing; the same grid gpu_litmus uses).
long long gpu_litmus_pairs_per_round(Placement placement);

// ns per iteration of the loop `variant` in `shape`: one sample per launch, `reps` launches.
std::vector<double> gpu_cost_ns(CostVariant variant, CostShape shape, int iterations, int reps);

// spec.runs launches of the lastBlock reduction with guard `variant`.
LastBlockRun gpu_last_block(const LastBlockSpec& spec, LastBlockVariant variant);

// One launch of the WorkQueue (dynamic: items fetched with atomicAdd) or of the a-priori assignment.
QueueRun gpu_queue(const QueueSpec& spec, bool dynamic);

}  // namespace cudasync::threadfence
