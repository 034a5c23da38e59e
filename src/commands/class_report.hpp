#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync class report FILE...|DIR`: the exports of a class (cudasync progress --export), side
// by side: each student's totals and where they are stuck, each exercise's solves, attempts, hints
// and answers shown, hardest first. --csv, --html and --json as every command.
cli::Runner attach_class(CLI::App& sub, const std::vector<cli::Command>& table);
}  // namespace cudasync::commands
