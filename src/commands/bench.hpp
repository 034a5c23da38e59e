#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync bench`: every lesson's --bench in one run (each a child process of this binary,
// `<lesson> --bench --json=FILE`), their results collected into one table, each technique beside
// its NVIDIA peer as a ratio measured in the same run (commands/bench_results.hpp). Writes
// <gpu-name>.md and .json only into the directory --out names, and never over an existing file
// without --force. Without a GPU the lessons run on the reference model: the table has its shape,
// every figure says "needs a GPU", and the exit code is 0 (as a lesson's own --bench); --backend gpu
// without a GPU exits 3; a lesson that fails, crashes or times out makes it exit 1.
cli::Attached attach_bench(CLI::App& sub);
}  // namespace cudasync::commands
