// cudasync: one table of commands: the lessons in course order (core/lesson_registry.hpp, from
// lessons/*/lesson.json: a new lesson is found there, not listed here), then the tools.
#include "commands/bench.hpp"
#include "commands/check.hpp"
#include "commands/class_report.hpp"
#include "commands/devices.hpp"
#include "commands/doctor.hpp"
#include "commands/exercise.hpp"
#include "commands/explain.hpp"
#include "commands/help.hpp"
#include "commands/list.hpp"
#include "commands/litmus.hpp"
#include "commands/progress.hpp"
#include "commands/sources.hpp"
#include "commands/tour.hpp"
#include "core/cli/app.hpp"
#include "core/lesson_registry.hpp"

int main(int argc, char** argv) {
  using cudasync::cli::CommandKind;
  namespace commands = cudasync::commands;
  // The course commands run the lessons of this same table, which outlives them. A command's
  // summary is core's catalog's command.<name> (a lesson's, its own lesson.summary).
  std::vector<cudasync::cli::Command> table;
  table = cudasync::lesson_commands();
  table.insert(table.end(), {
      {"list", CommandKind::tool, [&table](CLI::App& s) { return commands::attach_list(s, table); }, {}},
      {"tour", CommandKind::course, [&table](CLI::App& s) { return commands::attach_tour(s, table); }, {}},
      {"exercise", CommandKind::course, [&table](CLI::App& s) { return commands::attach_exercise(s, table); }, {}},
      {"check", CommandKind::course, [&table](CLI::App& s) { return commands::attach_check(s, table); }, {}},
      {"progress", CommandKind::tool, [&table](CLI::App& s) { return commands::attach_progress(s, table); }, {}},
      {"class", CommandKind::tool, [&table](CLI::App& s) { return commands::attach_class(s, table); }, {}},
      {"devices", CommandKind::tool, commands::attach_devices, {}},
      {"explain", CommandKind::tool, [&table](CLI::App& s) { return commands::attach_explain(s, table); }, {}},
      {"sources", CommandKind::tool, commands::attach_sources, {}},
      {"litmus", CommandKind::course, commands::attach_litmus, {}},
      {"doctor", CommandKind::tool, commands::attach_doctor, {}},
      {"bench", CommandKind::tool, commands::attach_bench, {}},
      // Last: help's checked argument names the commands attached before it.
      {"help", CommandKind::tool, commands::attach_help, {}},
  });
  return cudasync::cli::run_app(argc, argv, table);
}
