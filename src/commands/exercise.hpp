#pragma once
#include <vector>

#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync exercise [LESSON [N]] [--hint] [--answer] [--kernel FILE] [--lang zh]`: the course's
// exercises. Without a lesson, how many each lesson has and how many are solved; with one, its
// exercises; with N, the question only (--hint a hint, --answer the answer, computed now by running
// the lesson); a kernel exercise takes the student's file with --kernel (core/course/kernel_exercise.hpp).
cli::Attached attach_exercise(CLI::App& sub, const std::vector<cli::Command>& table);
}  // namespace cudasync::commands
