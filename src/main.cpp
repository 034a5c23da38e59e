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
  // The course commands run the lessons of this same table, which outlives them.
  std::vector<cudasync::cli::Command> table;
  table = cudasync::lesson_commands();
  table.insert(table.end(), {
      {"list", "the course: lessons in order, their parts, your progress", CommandKind::tool,
       [&table](CLI::App& s) { return commands::attach_list(s, table); }, {}},
      {"tour", "every lesson's short run in course order, with the one thing to remember", CommandKind::course,
       [&table](CLI::App& s) { return commands::attach_tour(s, table); }, {}},
      {"exercise", "a lesson's exercises: the question, a hint, the answer computed now", CommandKind::course,
       [&table](CLI::App& s) { return commands::attach_exercise(s, table); }, {}},
      {"check", "check your answer to an exercise against the lesson's run, and record it", CommandKind::course,
       [&table](CLI::App& s) { return commands::attach_check(s, table); }, {}},
      {"progress", "your progress through the course (--reset clears it)", CommandKind::tool,
       [&table](CLI::App& s) { return commands::attach_progress(s, table); }, {}},
      {"class", "a teacher's view: cudasync class report FILE... reads the class's progress exports", CommandKind::tool,
       [&table](CLI::App& s) { return commands::attach_class(s, table); }, {}},
      {"devices", "the GPUs this process can see, with their co-residency limits", CommandKind::tool,
       commands::attach_devices, {}},
      {"explain", "a lesson's text: concept, the source's code and its bugs, what to run", CommandKind::tool,
       [&table](CLI::App& s) { return commands::attach_explain(s, table); }, {}},
      {"sources", "the books, papers and manuals the lessons cite, in full", CommandKind::tool,
       commands::attach_sources, {}},
      {"litmus", "a litmus test judged by the PTX memory model, and run on the GPU", CommandKind::course,
       commands::attach_litmus, {}},
      {"doctor", "what this machine has and lacks for each lesson, and what to install", CommandKind::tool,
       commands::attach_doctor, {}},
      {"bench", "every lesson's --bench in one run, each technique beside its NVIDIA peer", CommandKind::tool,
       commands::attach_bench, {}},
      // Last: help's checked argument names the commands attached before it.
      {"help", "a command's options and parts: cudasync help lock (the same as cudasync lock --help)",
       CommandKind::tool, commands::attach_help, {}},
  });
  return cudasync::cli::run_app(argc, argv, table);
}
