#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync sources [KEY...]`: the works the lessons cite, in full (core/sources.hpp).
cli::Runner attach_sources(CLI::App& sub);
}  // namespace cudasync::commands
