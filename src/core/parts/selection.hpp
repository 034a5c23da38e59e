#pragma once
// The rules core applies to every lesson's part table, written once: which parts a run selects,
// which options apply to them, the help listing the parts, and the shared setup section.
// Non-template: core/parts/attach.hpp hands each lesson's table here as PartRule rows.
#include <optional>
#include <string>
#include <vector>

#include "core/parts/lesson.hpp"

namespace cudasync::parts {

// What the rules need of one part (or of the bench, id "--bench").
struct PartRule {
  std::string id;
  std::vector<std::string> reads;
  bool by_default = true;
};

// The parts `asked` names (--part, already checked against the ids), in table order, or every
// default part when `asked` is empty. With `bench` (--bench and a lesson sweep) no part runs.
Selection select(const std::vector<PartRule>& parts, const std::vector<std::string>& asked, bool bench);

// The usage error for the first option in `given` (as typed: "--width") that no selected part
// reads, or nullopt. An option no part (and no bench) declares reads applies to every part.
//   "--delta applies only to the parts shfl-up, shfl-down; add one of them with --part, or leave
//    --delta out"
std::optional<std::string> applicability_error(const std::vector<PartRule>& parts,
                                               const std::optional<PartRule>& bench, const Selection& selection,
                                               const std::vector<std::string>& given);

// The --part help: "Which parts to run, comma-separated (default: every part)".
std::string part_option_help(const std::vector<PartSummary>& parts);
// The subcommand's footer: one line per part, id and summary, marking GPU-only parts.
std::string parts_footer(const std::vector<PartSummary>& parts, bool has_bench, const std::string& bench_summary);

// Core's lines in the setup section, after the lesson's own: the parts that run and the backend.
void add_run_facts(report::Section& setup, const RunContext& ctx, const Selection& selection);

}  // namespace cudasync::parts
