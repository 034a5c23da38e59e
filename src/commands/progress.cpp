#include "commands/progress.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>

#include "commands/course_common.hpp"
#include "core/words/words.hpp"
#include "core/errors.hpp"
#include "core/log.hpp"

namespace cudasync::commands {

namespace {

using report::Format;

report::Report show(const std::vector<cli::Command>& table) {
  const course::StatePath where = course::progress_path();
  report::Report r;
  r.command = "progress";
  r.title = words::core("progress.title");
  report::Section s = progress_section("progress", words::core("progress.heading"), table);
  s.fact("state", words::core("progress.kept-in"), where.file.empty() ? std::string("nowhere") : where.file,
         Format::plain, where.file.empty() ? where.problem : words::core("progress.yours-alone"));
  s.note(words::core("progress.reset-note"));
  r.sections.push_back(std::move(s));
  return r;
}

report::Report reset() {
  const course::StatePath where = course::progress_path();
  report::Report r;
  r.command = "progress";
  r.title = "cudasync progress --reset";
  report::Section s("reset", words::core("progress.cleared"));
  if (where.file.empty()) {
    log::warn(where.problem);
    s.fact("state", words::core("progress.kept-in"), std::string("nowhere"), Format::plain, where.problem);
  } else {
    if (const auto failed = course::reset_progress(where.file))
      throw UsageError("progress --reset: " + *failed + "; accepted: a state file you may remove");
    s.fact("state", words::core("progress.removed"), where.file);
  }
  s.paragraph(words::core("progress.starts-again"));
  r.sections.push_back(std::move(s));
  return r;
}

// On a terminal --reset asks first; off one (a script, a pipe) it needs --yes, so that no state is
// lost to a command typed in the wrong window or run by a script by mistake.
bool confirmed_on_terminal() {
  if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) return false;
  std::cerr << words::core("progress.reset-ask") << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes" || answer == "是";
}

}  // namespace

cli::Attached attach_progress(CLI::App& sub, const std::vector<cli::Command>& table) {
  auto reset_flag = std::make_shared<bool>(false);
  auto yes = std::make_shared<bool>(false);
  sub.add_flag("--reset", *reset_flag, "Clear your progress: every exercise unsolved again (asks first)");
  sub.add_flag("--yes", *yes, "With --reset: do not ask (a script, a pipe)");
  sub.footer("Your progress is yours alone: $XDG_STATE_HOME/cudasync/progress.json (default\n"
             "~/.local/state/cudasync/), never the working directory. A state it cannot read is set aside with a\n"
             "warning, and the course starts again; one it cannot write costs no run.");
  cli::Validator validate = [reset_flag, yes](const RunContext&) {
    if (*yes && !*reset_flag) throw UsageError("--yes goes with --reset; accepted: cudasync progress --reset --yes");
  };
  cli::Runner run = [reset_flag, yes, &table](const RunContext&) {
    if (!*reset_flag) return show(table);
    if (!*yes && !isatty(STDIN_FILENO))
      throw UsageError("progress --reset removes your progress, and off a terminal it does not ask; accepted: "
                       "cudasync progress --reset --yes");
    if (!*yes && !confirmed_on_terminal()) {
      report::Report r;
      r.command = "progress";
      r.title = "cudasync progress --reset";
      report::Section s("reset", words::core("progress.kept"));
      s.paragraph(words::core("progress.kept-why"));
      r.sections.push_back(std::move(s));
      return r;
    }
    return reset();
  };
  return {run, validate};
}

}  // namespace cudasync::commands
