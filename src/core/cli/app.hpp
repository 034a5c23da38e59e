#pragma once
// The one path every run takes: parse, choose a backend, run, render, exit code.
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync::cli {

int run_app(int argc, char** argv, const std::vector<Command>& commands);

}  // namespace cudasync::cli
