#pragma once
#include <CLI/CLI.hpp>

#include "core/cli/command.hpp"

namespace cudasync::commands {

// `cudasync help [COMMAND]`: the same text as `cudasync COMMAND --help` (or `cudasync --help`),
// as a command, so that it pages, and so that `help lock` is not an error.
cli::Runner attach_help(CLI::App& sub);

}  // namespace cudasync::commands
