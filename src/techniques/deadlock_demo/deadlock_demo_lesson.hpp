#pragma once
// The deadlock-demo lesson as the CLI sees it: its options and the two entry points.
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"

namespace cudasync::deadlock_demo {

struct Options {
  std::vector<std::string> scenarios;  // names, or "all"; empty: every scenario
  std::optional<int> blocks;           // grid-oversubscribed, producer-before-consumer
  int deadline_ms = kDefaultDeadlineMs;
  std::optional<std::string> model;    // lockstep | independent: warp-spinlock's trace
  bool sanitize = false;               // run compute-sanitizer synccheck on the divergent-syncthreads child
  bool backend_gpu_asked = false;      // set at parse time: --backend gpu
  bool backend_model_asked = false;    // set at parse time: --backend model
  std::string child;                   // hidden: run this barrier scenario as the child process
  std::string child_out;               // hidden: where the child writes what it saw
  int child_grace_ms = 500;            // hidden: the child's watchdog, past the deadline
};

// The scenarios asked for, in the lesson's order.
std::vector<Scenario> selected_scenarios(const Options& o);

// Checks that need more than one option (CLI11 checks each option alone). Runs at parse time, so a
// bad combination exits 2 before any backend is chosen, and again in run().
std::optional<std::string> combination_error(const Options& o);

cli::Runner attach(CLI::App& sub);
report::Report run(const Options& options, const RunContext& ctx);

}  // namespace cudasync::deadlock_demo
