#pragma once
// The named-barriers lesson as the CLI sees it: its options and the two entry points.
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync::named_barriers {

// The parts, in the order the report shows them. `--part` picks some; none picks all.
inline const std::vector<std::string> kParts = {"bar-sync", "producer-consumer", "bar-red", "cuda-barrier",
                                                "listing",  "misuse",            "cost"};

struct Options {
  std::vector<std::string> parts;      // empty: every part
  std::vector<int> barrier_ids = {1, 2};
  std::vector<int> groups = {64, 128};
  int phases = 4;
  int producers = 32;
  int consumers = 32;
  int rounds = 4;
  bool trace = false;
  std::vector<std::string> predicates;  // empty: kDefaultPredicates
  int threads = 256;                    // the bar-red block
  std::optional<int> count;             // misuse: the bad count (default: two cases)
  std::optional<int> arrive;            // misuse: threads that arrive
  std::string misuse_child;             // hidden: run one misuse case and write the result here
};

// Checks that need more than one option (CLI11 checks each option alone); run at parse time.
std::optional<std::string> combination_error(const Options& o);

cli::Runner attach(CLI::App& sub);
report::Report run(const Options& options, const RunContext& ctx);

}  // namespace cudasync::named_barriers
