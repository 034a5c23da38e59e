#pragma once
// The reference model of lockfree-barrier: (1) the multi-phase kernel's final values, computed on
// the CPU phase by phase, which any correct barrier must reproduce bit for bit; (2) the words each
// protocol leaves behind (the counter, Arrayin / Arrayout, the own barrier's counters). The step
// simulation of each protocol is lockfree_barrier_step_model.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier.hpp"

namespace cudasync::lockfree_barrier {

const char* barrier_key(Barrier b);    // the part id: "xf-lockfree"
std::string barrier_title(Barrier b);  // "Xiao & Feng lock-free (Arrayin / Arrayout)": the part table's, in English
std::string barrier_heading(Barrier b);  // the same in the run's language (lessons/lockfree-barrier/words.json)
std::optional<Barrier> barrier_from_key(const std::string& key);
// In the order the report shows them.
const std::vector<Barrier>& all_barriers();

// How many counters own and own-cluster spread their arrivals over for a grid of `blocks`: one up
// to 192 blocks, two up to 1056, then one per 528 blocks (the arrivals per counter of the best
// measured point), at most 32. Measured (docs/measurements.md): one counter polled by thread 0 is
// best at 132 blocks; at 528 and 1056 blocks two counters beat one, four, eight, sixteen and 32.
int own_counters_for(int blocks);
// own-stagger's pollers per block: 4 x SMs pollers in all (so that the loads on the counters stay
// those of 4 blocks per SM), 1 to kMaxOwnPollers, at most one per warp of a block of `threads`.
// 132 blocks on 132 SMs: 4; 264: 2; 528 and 1056: 1.
int own_pollers_for(int blocks, int sm_count, int threads);
// Blocks that add to counter l of C: b = l, l + C, l + 2C, ... < blocks.
int own_share(int blocks, int counters, int l);

// The co-residency a model run assumes: an H100 (132 SMs, 32 blocks and 2048 threads per SM, 64K
// registers), for kernels of at most 32 registers per thread (ptxas -v gives the lesson's kernels
// 5 to 31 on sm_75 and sm_90; a GPU run asks the occupancy API instead).
Coresidency model_coresidency(int threads);
// The same in clusters of `cluster_size` blocks (assumed to fit wherever their blocks do).
Coresidency model_cluster_coresidency(int threads, int cluster_size);

// The cluster size own-cluster launches a grid of `blocks` with: the largest of kClusterSizes that
// divides the grid (a grid is whole clusters) and at which the grid is co-resident; when none is,
// the dividing size that fits the most blocks (its refusal then quotes the best the GPU can do).
// `by_size[i]`: the co-residency in clusters of kClusterSizes[i]. 132 blocks: 4 (132 = 33 x 4);
// 1056 blocks on a 132-SM Hopper: 2, because clusters of 4 or 8 fit only 992 (H200 measured).
int own_cluster_size(int blocks, const std::vector<Coresidency>& by_size);

// (1) the data
std::vector<std::uint32_t> initial_values(int blocks, int threads, std::uint64_t seed);
std::vector<std::uint32_t> model_values(int blocks, int threads, int phases, std::uint64_t seed);

// (2) what the protocol's words hold after phases - 1 barriers (empty for relaunch, graph and
// grid-sync, whose state the tool cannot read): xf-lock: {counter}; xf-lockfree: Arrayin[0..N-1]
// then Arrayout[0..N-1]; own: its counters.
std::vector<std::uint32_t> final_words(Barrier b, int blocks, int phases, int own_counters);

// "0-3, 5, 7-9"; at most `max_ranges` ranges, then ", ..." and the count.
std::string block_ranges(const std::vector<int>& blocks, std::size_t max_ranges = 6);

}  // namespace cudasync::lockfree_barrier
