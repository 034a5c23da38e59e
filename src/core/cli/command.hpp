#pragma once
// One row of main's command table. attach() adds the command's options to its CLI11 subcommand
// and returns the function that runs it once parsing is done (CLI11 `subcom_in_files` habit).
#include <functional>

#include <CLI/CLI.hpp>

#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::cli {

using Runner = std::function<report::Report(const RunContext&)>;

enum class CommandKind {
  lesson,  // runs kernels or the model: chooses a backend
  tool,    // list, devices, explain: no backend
};

struct Command {
  const char* name;
  const char* summary;
  CommandKind kind;
  Runner (*attach)(CLI::App& sub);
};

}  // namespace cudasync::cli
