#pragma once
// The threadfence lesson as the CLI sees it: its options and the two entry points.
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync::threadfence {

// The parts, in the order the report shows them. `--part` picks some; without it every part but
// ptx runs (--show-ptx shows that one).
inline const std::vector<std::string> kParts = {"litmus", "scope", "volatile", "ptx", "cost", "last-block", "work-queue"};

inline constexpr long long kDefaultIterations = 200000;    // per litmus row: the default run stays < 1 s
inline constexpr long long kBenchIterations = 1000000;     // per row under --bench
inline constexpr long long kMaxIterations = 100000000;     // per row

struct Options {
  std::vector<std::string> parts;      // empty: see resolved_parts
  bool show_ptx = false;
  std::vector<std::string> tests;      // empty: mp, sb, lb, corr
  std::vector<std::string> fence;      // empty: the matrix; one name (both sides) or two (side 0, side 1)
  std::optional<std::string> access;   // plain (default) or volatile
  std::optional<std::string> placement;  // different-blocks (default) or same-block
  std::optional<long long> iterations;
};

// The parts a run shows: --part (plus ptx with --show-ptx); else only ptx with --show-ptx; else
// only litmus when a litmus option is given; else every part but ptx.
std::vector<std::string> resolved_parts(const Options& o);

// "--iterations 0: ..." for a value out of 1..kMaxIterations or not a whole number.
std::optional<std::string> iterations_error(const std::string& text);

// Checks that need more than one option (CLI11 checks each alone); run at parse time.
std::optional<std::string> combination_error(const Options& o);

cli::Runner attach(CLI::App& sub);
report::Report run(const Options& options, const RunContext& ctx);

}  // namespace cudasync::threadfence
