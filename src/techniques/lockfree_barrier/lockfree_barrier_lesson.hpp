#pragma once
// The lockfree-barrier lesson as the CLI sees it: its options and the two entry points.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync::lockfree_barrier {

inline constexpr int kDefaultThreads = 256;
inline constexpr int kDefaultPhases = 16;
inline constexpr int kMaxPhases = 100000;
inline constexpr int kMaxBlocks = 65536;
inline constexpr std::int64_t kMaxValues = std::int64_t{1} << 24;  // blocks x threads: the model replays every value
inline constexpr int kTraceDefaultBlocks = 16;
inline constexpr int kTraceMaxBlocks = 64;  // one timeline row per block
inline constexpr int kDefaultDeadlineMs = 100;
inline constexpr int kMaxDeadlineMs = 10000;

struct Options {
  std::vector<std::string> barriers;  // --barrier names; empty: all
  std::optional<int> blocks;          // default: one per SM (16 with --trace)
  int threads = kDefaultThreads;
  std::optional<int> phases;          // default kDefaultPhases
  bool trace = false;
  bool allow_unsafe = false;
  int deadline_ms = kDefaultDeadlineMs;
};

// Checks that need more than one option (CLI11 checks each alone). Runs at parse time, so a bad
// combination exits 2 before any backend is chosen, and again in run() with the --bench flag known.
std::optional<std::string> combination_error(const Options& o, bool bench);

cli::Runner attach(CLI::App& sub);
report::Report run(const Options& options, const RunContext& ctx);

}  // namespace cudasync::lockfree_barrier
