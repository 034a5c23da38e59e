#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync list` (and `cudasync` alone): the lessons in course order (main.cpp's order), numbered, one
// line each, and whether each can run here.
cli::Runner attach_list(CLI::App& sub);
}  // namespace cudasync::commands
