#pragma once
// The lessons as rows of main's table, in course order, with their places in the course: generated
// from lessons/*/lesson.json by cmake/lessons.cmake, the one place that lists them.
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync {

std::vector<cli::Command> lesson_commands();  // generated

}  // namespace cudasync
