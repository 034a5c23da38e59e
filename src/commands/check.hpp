#pragma once
#include <vector>

#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync check LESSON N ANSWER [--lang zh]`: the student's answer against what the tool computes
// now by running the lesson (GPU where there is one, else the model), recorded in their progress.
// A wrong answer exits 1 with the reason; a bad lesson, number or answer format exits 2 saying what
// is accepted.
cli::Attached attach_check(CLI::App& sub, const std::vector<cli::Command>& table);
}  // namespace cudasync::commands
