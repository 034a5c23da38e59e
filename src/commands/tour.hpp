#pragma once
#include <vector>

#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync tour [--lang zh]`: every lesson's short run in course order, in this process on one
// backend (GPU where there is one, else the model): each headed by the lesson's one-line summary,
// ending with the one sentence to remember (core/course/exercise.hpp, LessonCourse). Section ids
// are the lesson's id, "<lesson>-<section>" for the lesson's own sections, "<lesson>-remember".
cli::Attached attach_tour(CLI::App& sub, const std::vector<cli::Command>& table);
}  // namespace cudasync::commands
