#pragma once
// The reference model of threadfence, apart from the memory model (threadfence_ptx_model.hpp):
// the names of tests, fences and placements; lastBlock's exact sum; the WorkQueue's per-block
// load of the a-priori assignment and of a greedy queue, in cost units.
#include <optional>
#include <string>
#include <vector>

#include "techniques/threadfence/threadfence.hpp"

namespace cudasync::threadfence {

// ---- names ---------------------------------------------------------------------------------------
inline const std::vector<std::string> kTestNames = {"mp", "sb", "lb", "corr"};
inline const std::vector<std::string> kFenceNames = {"none", "block", "device", "system", "rel-acq"};
const char* to_string(Test t);
const char* to_string(Fence f);
const char* to_string(Access a);      // "plain", "volatile"
const char* to_string(Placement p);   // "different-blocks", "same-block"
std::optional<Test> parse_test(const std::string& s);
std::optional<Fence> parse_fence(const std::string& s);
std::string test_title(Test t);       // "message passing", in the run's language

// "device" when both sides have the same fence, else "device,none" (side 0, side 1).
std::string fences_text(const LitmusSpec& s);
// "r0=1 r1=0", and what r0 and r1 are for the test.
std::string outcome_text(int index);
std::string registers_meaning(Test t);  // in the run's language
// The weak outcome of each test: mp 10, sb 00, lb 11, corr 10.
int weak_outcome(Test t);

// Side 0 of corr is a single store: a fence before it has nothing to order. Such a spec is refused.
bool meaningful(const LitmusSpec& s);

// ---- lastBlock ------------------------------------------------------------------------------------
std::vector<std::uint32_t> make_last_block_input(long long n, std::uint64_t seed);
std::uint64_t exact_sum(const std::vector<std::uint32_t>& v);
std::string to_string(LastBlockVariant v);       // "guard 1 (SO Docs): __syncthreads_or", ... (the run's language)
const char* guard_id(LastBlockVariant v);        // "syncthreads-or", ...: kebab-case, for check ids
bool guard_is_correct(LastBlockVariant v);       // the model: is the guard's result guaranteed?

// ---- WorkQueue ------------------------------------------------------------------------------------
// Costs in units: 1, 2, 4, ... 32 (log-uniform), seeded.
std::vector<std::uint32_t> make_costs(int items, std::uint64_t seed);

struct Schedule {
  std::vector<std::uint64_t> block_units;        // per block: units of work it did
  std::vector<std::int32_t> block_items;         // per block: items it did
  std::vector<std::int32_t> item_block;          // per item: the block that did it
  std::uint64_t makespan() const;                // the largest block_units
};
// Block b does items b, b + blocks, b + 2 blocks, ... (decided before the launch).
Schedule static_schedule(const std::vector<std::uint32_t>& costs, int blocks);
// Each block takes the next item the moment it is free (ties: the lower block), as the queue does
// when fetching costs nothing. The GPU's order may differ where two blocks are free at once.
Schedule queue_schedule(const std::vector<std::uint32_t>& costs, int blocks);
std::uint64_t checksum_of_all(int items);

}  // namespace cudasync::threadfence
