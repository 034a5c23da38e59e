#pragma once
// The cg-reduce lesson as the CLI sees it: its options and the two entry points.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync::cg_reduce {

// The rungs, in ladder order; `--variant` picks some, none picks all.
inline const std::vector<std::string> kVariants = {"shared", "syncwarp", "shfl",      "cg",
                                                   "two-pass", "static", "grid-sync", "cub"};

inline constexpr std::int64_t kDefaultN = std::int64_t{1} << 24;  // 64 MiB of floats: more than an H100's L2
inline constexpr std::int64_t kMaxN = std::int64_t{1} << 30;      // the seed's kernels index with int
inline constexpr std::int64_t kTraceMaxN = std::int64_t{1} << 24;  // the model replays every rung too
inline constexpr int kTraceMaxBlock = 256;  // the shared-tree table has one row per word
inline constexpr int kMinLog2Size = 10, kMaxLog2Size = 30;

struct Options {
  std::optional<std::int64_t> n;
  int block = 128;
  std::vector<std::string> variants;  // empty: every rung
  std::optional<std::string> dtype;   // default float; --bench without it sweeps both
  bool trace = false;
  std::optional<int> trace_block;
  std::optional<int> trace_warp;
  std::optional<int> grid;            // the grid-sync rung's grid
  std::vector<int> sizes;             // --bench: log2 of the sizes (default 20 ... 28)
};

// Checks that need more than one option (CLI11 checks each alone). Runs at parse time, so a bad
// combination exits 2 before any backend is chosen, and again in run().
std::optional<std::string> combination_error(const Options& o);

cli::Runner attach(CLI::App& sub);
report::Report run(const Options& options, const RunContext& ctx);

}  // namespace cudasync::cg_reduce
