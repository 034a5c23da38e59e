#pragma once
// The warp-primitives lesson as the CLI sees it: its options and the two entry points.
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync::warp_primitives {

// The parts of the lesson, in the order the report shows them. `--op` picks some; none picks all.
// Each is named after its intrinsic (`all` is __all_sync), so there is no "all" keyword.
inline const std::vector<std::string> kOps = {
    "shfl",       "shfl_up",    "shfl_down",  "shfl_xor",   "ballot",   "all",         "any", "activemask",
    "match_any",  "match_all",  "reduce_add", "reduce_min", "reduce_max", "syncwarp", "warp_reduce", "cost"};
inline const std::vector<std::string> kVariants = {"guarded", "registers", "racy"};

struct Options {
  std::vector<std::string> ops;       // empty: every part
  int width = 32;
  std::optional<int> delta;      // default min(2, width/2)
  std::optional<int> lane_mask;  // default min(2, width/2)
  int src_lane = 2;
  std::string mask = "0xffffffff";
  int threads = 32;
  std::string predicate = "even";
  std::string key = "lane%4";
  std::string values = "tid";
  std::vector<std::string> variants;  // empty: all three
};

cli::Runner attach(CLI::App& sub);
report::Report run(const Options& options, const RunContext& ctx);

}  // namespace cudasync::warp_primitives
