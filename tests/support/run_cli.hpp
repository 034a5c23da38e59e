#pragma once
// Runs the built cudasync binary as a user would and captures what it printed.
#include <string>
#include <vector>

namespace cudasync::test {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// `args` is a shell fragment appended to the binary's path, e.g. "warp-primitives --json".
CliResult run_cli(const std::string& args);
// Runs a shell command line under bash -o pipefail (pipes allowed).
CliResult run_shell(const std::string& command_line);
// A command as a lesson text shows it ("cudasync warp-primitives --json | jq .report"), with the
// leading `cudasync` replaced by the built binary's path.
std::string with_binary(const std::string& shown_command);

std::string binary_path();
std::string source_dir();
std::string read_file(const std::string& path);

}  // namespace cudasync::test
