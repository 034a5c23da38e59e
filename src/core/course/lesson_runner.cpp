#include "core/course/lesson_runner.hpp"

#include <algorithm>
#include <stdexcept>

#include <CLI/CLI.hpp>

namespace cudasync::course {

InProcessRunner::InProcessRunner(const std::vector<cli::Command>& commands, const RunContext& ctx)
    : commands_(commands), ctx_(ctx) {
  ctx_.bench = false;  // the lessons' short runs, never their sweeps
}

report::Report InProcessRunner::run(const std::string& lesson, const std::vector<std::string>& args) {
  const cli::Command* c = find_lesson(commands_, lesson);
  if (c == nullptr) throw std::logic_error("course: no lesson '" + lesson + "' in the command table");
  CLI::App app{"", "cudasync"};
  CLI::App* sub = app.add_subcommand(c->name);
  const cli::Attached attached = c->attach(*sub);
  std::vector<std::string> argv = {c->name};
  argv.insert(argv.end(), args.begin(), args.end());
  std::reverse(argv.begin(), argv.end());  // CLI11 takes a vector in reverse order
  try {
    app.parse(argv);
  } catch (const CLI::ParseError& e) {
    std::string line = lesson;
    for (const auto& a : args) line += " " + a;
    throw std::logic_error("course: `cudasync " + line + "` does not parse: " + e.what());
  }
  if (attached.validate) attached.validate(ctx_);
  return attached.run(ctx_);
}

const cli::Command* find_lesson(const std::vector<cli::Command>& commands, const std::string& lesson) {
  for (const auto& c : commands)
    if (c.kind == cli::CommandKind::lesson && c.name == lesson) return &c;
  return nullptr;
}

}  // namespace cudasync::course
