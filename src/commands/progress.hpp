#pragma once
#include <vector>

#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync progress [--reset]`: the student's progress through the course (core/course/progress.hpp:
// $XDG_STATE_HOME/cudasync/progress.db), lesson by lesson; --reset clears it.
cli::Attached attach_progress(CLI::App& sub, const std::vector<cli::Command>& table);
}  // namespace cudasync::commands
