#pragma once
// Verdicts on what a GPU recorded, against the reference model and the barrier rules: pure
// functions, tested directly (tests/techniques/named_barriers/named_barriers_judge_test.cpp).
// The parts only show them.
#include <optional>
#include <string>
#include <vector>

#include "techniques/named_barriers/named_barriers_model.hpp"

namespace cudasync::named_barriers {

// "8 phases complete; no warp is left waiting", the first hazard, or the first stuck warp.
std::string simulation_detail(const Simulation& sim);

// ---- bar-sync ---------------------------------------------------------------------------------
// One row of the model's phase table as the GPU saw it. Cycles count from the first arrival.
struct GroupsPhase {
  int gpu_warps = 0;          // warps the GPU counted arriving (atomicAdd before bar.sync)
  long long last_in = 0;      // the last warp of the group arriving
  long long first_out = 0;    // the first warp of the group released
  bool agrees = true;         // gpu_warps equals the model's and first_out >= last_in
};
struct GroupsVerdict {
  long long origin = 0;              // the first arrival, the zero of every cycle below
  std::vector<GroupsPhase> phases;   // one per sim.phases row
  std::vector<int> bad_counts;       // rows whose arrivals differ from the model's
  std::vector<int> bad_order;        // rows where a warp left before the last one arrived
  std::vector<int> short_passed;     // warps that passed fewer barriers than there are phases
  long long group0_done = 0;         // group 0 left its last phase
  long long group1_first = 0;        // group 1 arrived at its first barrier
  bool independent = false;          // group 0 was done before group 1 arrived, and the hold never gave up
  bool agrees() const { return bad_counts.empty() && short_passed.empty(); }
};
GroupsVerdict judge_groups(const GroupsSpec& spec, const Simulation& sim, const GroupsTrace& gpu);

// ---- producer-consumer, cuda-barrier ----------------------------------------------------------
// Per round, how many consumed values equal the produced ones.
struct RoundsVerdict {
  std::vector<int> equal;      // per round
  std::vector<int> bad_rounds;
  int equal_total = 0;
  bool passed() const { return bad_rounds.empty(); }
};
RoundsVerdict judge_rounds(const PcSpec& spec, const std::vector<std::int32_t>& consumed);

// What the stamps of a producer/consumer run show.
struct PcTiming {
  std::vector<int> bad_full_rounds;   // a consumer left `full` before the last producer arrived
  std::vector<int> bad_empty_rounds;  // a producer left `empty` before the last consumer read
  long long arrive_cycles = 0;        // median: producer signal, t1 - t0
  long long full_wait_cycles = 0;     // median: consumer wait on full, t1 - t0
  long long empty_wait_cycles = 0;    // median: producer wait on empty, t3 - t2
  bool consumers_waited() const { return bad_full_rounds.empty(); }
  bool producers_waited() const { return bad_empty_rounds.empty(); }
};
// Stamp k of `warp` in `round` (layout in named_barriers.hpp).
long long pc_stamp(const PcSpec& spec, const PcResult& r, int warp, int round, int k);
PcTiming pc_timing(const PcSpec& spec, const PcResult& r);

// ---- bar-red ----------------------------------------------------------------------------------
// Per RedColumn, the value every thread received (nullopt: threads disagree); the columns that do
// not match the model. __syncthreads_and/or promise only non-zero for true: compared as truth values.
struct RedVerdict {
  std::vector<std::optional<std::int32_t>> values;
  std::vector<int> bad_columns;
  bool passed() const { return bad_columns.empty(); }
};
RedVerdict judge_red(int threads, const RedTotals& model, const RedResult& gpu);

// ---- listing ----------------------------------------------------------------------------------
// The opcodes (prefixes) a kernel must compile to on SASS arch sm_<sm>.
struct OpcodeExpectation {
  std::string kernel;
  std::vector<std::string> opcodes;
};
std::vector<OpcodeExpectation> listing_expectations(int sm);
std::vector<std::string> missing_opcodes(const std::vector<std::string>& instructions,
                                         const std::vector<std::string>& opcodes);

// ---- early-stamp ------------------------------------------------------------------------------
// The stamps of the warps that waited (every warp but the last to arrive, each round), in cycles
// after the last arrival of their round: negative means before it, so before the barrier completed.
struct StampVerdict {
  int samples = 0;
  int naive_before = 0;        // naive stamps taken before the last warp arrived
  int guarded_before = 0;      // guarded stamps before it: what the PTX ISA rules out
  long long naive_median = 0, naive_earliest = 0, guarded_median = 0;
  std::vector<int> bad_rounds;  // rounds with a guarded stamp before the last arrival
  bool guarded_waited() const { return samples > 0 && guarded_before == 0; }
};
StampVerdict judge_stamps(const StampSpec& spec, const StampResult& r);
// What the naive stamps show: "came back before the barrier completed in 48 of 48 waits, a median of
// 9,871 cycles early", or that they waited.
std::string stamp_finding(const StampVerdict& v);

// ---- misuse -----------------------------------------------------------------------------------
// Warps released together, in the order they arrived (warp indices), from the observed times: a
// warp joins the group of the warp before it when it arrived before that warp left.
std::vector<std::vector<int>> observed_phases(const MisuseObservation& o);
// What released `warp`: 0 for its own phase completing, k for rescue arrival k (1-based).
int released_by(const MisuseObservation& o, std::size_t warp);
// The prediction the observation matches (phase sizes and rescue arrivals), or nullopt.
std::optional<MisusePrediction> matched_prediction(const std::vector<MisusePrediction>& predictions,
                                                   const MisuseObservation& o);

}  // namespace cudasync::named_barriers
