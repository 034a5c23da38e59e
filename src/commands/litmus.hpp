#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync litmus list | show NAME | NAME | FILE`: a litmus test judged by the PTX memory model
// (core/litmus/ptx_axioms.hpp): allowed or forbidden, with the axiom and the cycle, or a witness.
cli::Runner attach_litmus(CLI::App& sub);
}  // namespace cudasync::commands
