#pragma once
// Verdicts on what a GPU did, against the reference model: pure functions, tested directly
// (tests/techniques/threadfence/threadfence_judge_test.cpp). The parts only show them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "techniques/threadfence/threadfence_model.hpp"
#include "techniques/threadfence/threadfence_ptx_model.hpp"
#include "techniques/threadfence/threadfence_race_model.hpp"

namespace cudasync::threadfence {

// ---- litmus -------------------------------------------------------------------------------------
// One litmus configuration: what the model allows and, on a GPU, what was seen.
struct LitmusRow {
  std::string label;               // the volatile part names its rows ("" elsewhere)
  LitmusSpec spec;
  long long iterations = 0;        // asked for
  unsigned long long budget_ns = 0;
  bool timeouts_expected = false;  // the volatile part's wait on a plain load
  ModelVerdict model;
  std::optional<LitmusCounts> gpu;
};
// A row the model has judged: model = ptx_model(spec).
LitmusRow make_row(const LitmusSpec& spec, long long iterations, unsigned long long budget_ns);

// The outcomes (outcome_index) the GPU saw that the model forbids: a finding each.
std::vector<int> forbidden_seen(const LitmusRow& r);
// The verdict of a row. Without GPU counts: "allowed" or "forbidden (causality)". With them:
// "allowed, seen", "allowed, not seen", "forbidden, not seen", "FORBIDDEN, SEEN"; a row whose wait
// may give up by design says how many did ("80 of 100 waits gave up", "every wait saw y = 1").
std::string litmus_verdict(const LitmusRow& r);
// The weak outcome's share of the completed instances (0..1); nullopt when none completed.
std::optional<double> weak_share(const LitmusCounts& c, Test test);

// What the checks of a litmus table say, over its rows.
struct LitmusSummary {
  int rows = 0;
  std::uint64_t completed = 0;       // instances completed, over the rows with GPU counts
  std::uint64_t bounded_waits = 0;   // instances of the rows whose waits must all end
  std::vector<std::string> findings;  // one per row that saw a forbidden outcome, naming it
  std::vector<std::string> timeouts;  // one per row with waits that gave up unexpectedly
};
LitmusSummary summarize(const std::vector<LitmusRow>& rows);

// ---- lastBlock ------------------------------------------------------------------------------------
struct GuardTally {
  std::size_t runs = 0;
  std::size_t right = 0;  // the model's sum, written by a last block
  std::size_t reset = 0;  // the counter back at 0 after the kernel
  std::size_t wrong() const { return runs - right; }
};
GuardTally tally_guard(const LastBlockRun& r, std::uint64_t model_sum);

// ---- WorkQueue ------------------------------------------------------------------------------------
struct QueueTally {
  std::size_t items = 0;
  std::size_t once = 0;  // items processed exactly once
  bool checksum_equal = false;
  bool passed() const { return once == items && checksum_equal; }
};
QueueTally tally_queue(const QueueRun& r);
// The a-priori assignment: every item done by the block the model assigns it.
bool assignment_agrees(const QueueRun& r, const Schedule& model);
// Each block's time, clock64 cycles converted with the run's ns per cycle.
std::vector<double> block_ns(const QueueRun& r);

// ---- WorkQueue race ---------------------------------------------------------------------------------
// Each block's fetched items from the GPU's log: up to its kNoItem, or to where the log ends.
std::vector<std::vector<std::int32_t>> fetched_sequences(const RaceSpec& spec, const RaceRun& r);

struct RaceTally {
  std::vector<std::uint32_t> counts;  // per (item, warp): how often the warp's lane 0 filed under the item
  RaceSummary gpu;
  std::size_t lanes_disagree = 0;  // portions whose 32 lanes filed a different number of times
  std::size_t gpu_misfiled = 0;    // (turn, warp) of the log whose result went under another item, or none
  RaceCounts model;                // the model, given the GPU's own fetch order
  RaceSummary model_summary;
  std::size_t predicted = 0;       // portions whose GPU count is the model's
  bool log_complete = true;        // every block's log reached its kNoItem
};
RaceTally tally_race(const RaceSpec& spec, RaceVariant v, const RaceRun& r);

// ---- lastBlock called by only some threads -----------------------------------------------------------
struct PartialVerdict {
  bool as_predicted = false;  // the run is what the model predicts (every_block, skipping_blocks)
  std::string detail;
};
PartialVerdict judge_partial(const PartialSpec& spec, PartialVariant v, const PartialRun& r);
// Where the threads of the divergent kernel were last seen: "thread 0 in the guard's
// __syncthreads_or: 16 of 16 blocks; the other threads at the __syncthreads() after it: 2032 of 2032".
std::string stage_text(const PartialSpec& spec, const PartialRun& r);

// ---- host observer --------------------------------------------------------------------------------
// Stale reads seen where the model forbids them (the weak outcome of host_observer_program).
bool host_forbidden_seen(const ModelVerdict& model, const HostObserverRun& r);

// ---- PTX ------------------------------------------------------------------------------------------
// The opcode prefixes of `must` that no instruction of `code` begins with.
std::vector<std::string> missing_opcodes(const std::vector<std::string>& code, const std::vector<std::string>& must);

}  // namespace cudasync::threadfence
