#pragma once
// Verdicts on what a GPU did, against the reference model: pure functions, tested directly
// (tests/techniques/threadfence/threadfence_judge_test.cpp). The parts only show them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "techniques/threadfence/threadfence_model.hpp"
#include "techniques/threadfence/threadfence_ptx_model.hpp"

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

// ---- PTX ------------------------------------------------------------------------------------------
// The opcode prefixes of `must` that no instruction of `code` begins with.
std::vector<std::string> missing_opcodes(const std::vector<std::string>& code, const std::vector<std::string>& must);

}  // namespace cudasync::threadfence
