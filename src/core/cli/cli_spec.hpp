#pragma once
// The command line as data, walked from the CLI11 App at run time: every command (name, summary,
// whether it is a lesson, its parts), every option of the program and of each command (long and
// short names, whether it takes a value, the values or range CLI11 checks, its default, hidden or
// not). `cudasync --cli-spec` prints it; the man page and the bash, zsh and fish completions are
// generated from it at build time (src/clidocs), and tests fuzz the command line with it. A new
// command or option appears there without an edit.
//
// CLI11 2.1 keeps its validators private; what it gives back is each option's type name with the
// validators' descriptions appended ("INT:{2,4,8,16,32}", "INT:INT in [0 - 31]",
// "TEXT:{auto,gpu,model}"), which parse_type_name() reads: IsMember gives "values", Range gives
// "range". A free-form check (a lambda) gives neither.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/run_context.hpp"

namespace cudasync::cli {

inline constexpr int kCliSpecVersion = 1;

// What an option's CLI11 type name says: "INT:{2,4,8,16,32}" -> type INT, values 2 4 8 16 32.
struct TypeName {
  std::string type;                 // "INT", "TEXT", "UINT", ... ("" for a flag)
  std::vector<std::string> values;  // from an IsMember check: the accepted words, as typed
  std::optional<double> min, max;   // from a Range check
};
TypeName parse_type_name(const std::string& type_name);

// The whole command line: the program's own options (accepted after a command too: CLI11
// fallthrough) and each command with its options. `commands` says which commands are lessons
// and what their parts are; commands CLI11 knows but `commands` does not name are walked too.
nlohmann::ordered_json cli_spec(const CLI::App& app, const std::vector<CommandSummary>& commands);

// The hidden --cli-spec flag: ends the parse with CLI::Success; the caller then prints
// cli_spec(app, commands) as JSON on stdout (exit 0). Printing waits for the parse to end, so
// that a --cli-spec the parse should not have taken (after "--") prints nothing. Add it after
// every command.
void add_cli_spec_flag(CLI::App& app);

}  // namespace cudasync::cli
