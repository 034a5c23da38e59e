#include "commands/help.hpp"

#include <memory>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

report::Report run_help(const CLI::App& app, const std::string& name) {
  report::Report r;
  r.command = "help";
  if (name.empty()) {
    r.document = app.get_formatter()->make_help(&app, "cudasync", CLI::AppFormatMode::Normal);
    return r;
  }
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) {
      r.document = sub->get_formatter()->make_help(sub, "cudasync " + name, CLI::AppFormatMode::Normal);
      return r;
    }
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  throw UsageError("help " + name + ": no such command; accepted: " + names);
}

}  // namespace

cli::Runner attach_help(CLI::App& sub) {
  auto name = std::make_shared<std::string>();
  const CLI::App* app = sub.get_parent();
  // The commands attached before this one (main.cpp attaches help last): a checked positional,
  // so that --cli-spec lists them and the completions offer them.
  std::vector<std::string> names;
  for (const CLI::App* s : app->get_subcommands([&sub](const CLI::App* s) { return s != &sub; }))
    names.push_back(s->get_name());
  sub.add_option("command", *name, words::core("help.help.command"))
      ->check(CLI::IsMember(names));
  return [name, app](const RunContext&) { return run_help(*app, *name); };
}

}  // namespace cudasync::commands
