#pragma once
#include <vector>

#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync list` (and `cudasync` alone): the course in order (main.cpp's order), numbered, each
// lesson with its parts and the student's progress through its exercises, and whether the lessons
// run here on a GPU or on the model.
cli::Runner attach_list(CLI::App& sub, const std::vector<cli::Command>& table);
}  // namespace cudasync::commands
