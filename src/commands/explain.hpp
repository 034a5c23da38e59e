#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync explain <lesson> [--lang en|zh]`: the lesson text, embedded in the binary.
cli::Runner attach_explain(CLI::App& sub);
}  // namespace cudasync::commands
