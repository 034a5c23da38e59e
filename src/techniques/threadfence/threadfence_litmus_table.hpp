#pragma once
// What the three litmus parts (litmus, scope, volatile) share: running their rows on the GPU, the
// table of outcomes, its legend, the grid facts and the two checks.
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "techniques/threadfence/threadfence_judge.hpp"

namespace cudasync::threadfence {

inline constexpr unsigned long long kWaitBudgetNs = 20000000ull;      // 20 ms: every wait of a litmus instance
inline constexpr unsigned long long kPlainWaitBudgetNs = 1000000ull;  // 1 ms: the wait on a plain load

// A wait budget in ms, whole when it is: 20000000 ns -> 20 (Format::ms).
report::Value budget_ms(unsigned long long ns);

// Runs every row on the GPU (gpu_litmus) when the run has one; leaves them as the model made them
// otherwise.
void run_rows(std::vector<LitmusRow>& rows, bool gpu);

struct TableOptions {
  bool label = false;      // a "case" column first
  bool access = false;     // an access column
  bool placement = false;  // a "sides in" column
};
// The table "outcomes": per row the test, its fences, (on a GPU) the instances and their outcomes,
// what the model allows and the verdict; a row that saw a forbidden outcome is marked.
report::Table litmus_table(const std::string& title, const std::vector<LitmusRow>& rows, bool gpu_run,
                           const TableOptions& opt);

// The grid of the first row the GPU ran (blocks, threads, pairs at once, instances, wait budget).
void add_grid_facts(report::Section& s, const std::vector<LitmusRow>& rows);
// "pairs with both sides on one SM": a count fact, of how many pairs were checked.
void add_same_sm_fact(report::Section& s, const std::string& id, const std::string& title, const LitmusCounts& c);
// On a GPU: the checks "no-forbidden-outcome" and "no-wait-timed-out", and a FINDING note per
// forbidden outcome seen. Without one: `no_gpu_note`.
void add_litmus_checks(report::Section& s, const std::vector<LitmusRow>& rows, bool gpu_run,
                       const std::string& no_gpu_note);

}  // namespace cudasync::threadfence
