#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync devices`: each visible GPU with the facts later lessons rely on (co-residency limits).
cli::Runner attach_devices(CLI::App& sub);
}  // namespace cudasync::commands
