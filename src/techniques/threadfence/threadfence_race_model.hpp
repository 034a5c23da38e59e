#pragma once
// The reference model of the two ways the SO Docs patterns break when a rule of theirs is ignored:
// the WorkQueue with no __syncthreads() between two fetch() calls (work-queue-race), and lastBlock
// called by only some threads (last-block-partial).
#include <cstdint>
#include <string>
#include <vector>

#include "techniques/threadfence/threadfence.hpp"

namespace cudasync::threadfence {

// ---- WorkQueue race ---------------------------------------------------------------------------------
// 64 items of 1..4 units; warp 0's share of each item 2, every other warp's 1 or 3 (seeded).
RaceSpec make_race_spec(std::uint64_t seed);
std::string to_string(RaceVariant v);  // "no __syncthreads()", "__syncthreads()": between two fetches (the run's language)
const char* race_id(RaceVariant v);    // "no-barrier", "barrier"

// What warp `warp` files in one turn: the item it worked on, or, without the barrier, for a warp
// slower than warp 0, the `next` item thread 0 stored in the same __shared__ word meanwhile (kNoItem:
// nothing is filed; kNoTurn: unknown, the log ended).
std::int32_t filed_under(const RaceSpec& spec, RaceVariant v, std::int32_t item, std::int32_t next, int warp);

// Per block, the items thread 0 fetched in order (the last kNoItem), when fetching costs nothing:
// the earliest fetch gets the next index (ties: the lower block). no_barrier: thread 0 fetches as
// soon as warp 0 is done; barrier: when the whole block is.
std::vector<std::vector<std::int32_t>> race_schedule(const RaceSpec& spec, RaceVariant v);

// Given each block's fetched items (the model's schedule or the GPU's log): how many times each
// warp's share of each item was filed, counts[item * warps + warp], and in how many (turn, warp) a
// result went under another item than the one worked on.
struct RaceCounts {
  std::vector<std::uint32_t> counts;
  std::size_t misfiled = 0;
  std::size_t unknown = 0;  // (turn, warp) the log does not cover
};
RaceCounts race_counts(const RaceSpec& spec, RaceVariant v, const std::vector<std::vector<std::int32_t>>& fetched);

struct RaceSummary {
  std::size_t portions = 0;  // items x warps
  std::size_t once = 0, lost = 0, twice = 0;
};
RaceSummary summarize_counts(const std::vector<std::uint32_t>& counts);

// ---- lastBlock called by only some threads -----------------------------------------------------------
PartialSpec make_partial_spec(std::uint64_t seed);
std::string to_string(PartialVariant v);  // "every thread of every block", ... (the run's language)
const char* partial_id(PartialVariant v);  // "every-block", "skipping-blocks", "thread-zero-only"
std::uint64_t partial_sum(const PartialSpec& spec);

struct PartialPrediction {
  bool defined = true;        // false: the PTX ISA leaves the outcome undefined
  std::uint32_t tickets = 0;  // tickets drawn
  bool merged = false;        // a block drew the last ticket and wrote the sum
  std::string why;            // in the run's language
};
PartialPrediction partial_model(const PartialSpec& spec, PartialVariant v);

}  // namespace cudasync::threadfence
