#include "commands/progress.hpp"

#include <memory>

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

}  // namespace

cli::Attached attach_progress(CLI::App& sub, const std::vector<cli::Command>& table) {
  auto reset_flag = std::make_shared<bool>(false);
  sub.add_flag("--reset", *reset_flag, "Clear your progress: every exercise unsolved again");
  sub.footer("Your progress is yours alone: $XDG_STATE_HOME/cudasync/progress.json (default\n"
             "~/.local/state/cudasync/), never the working directory. A state it cannot read is set aside with a\n"
             "warning, and the course starts again; one it cannot write costs no run.");
  return cli::Runner([reset_flag, &table](const RunContext&) { return *reset_flag ? reset() : show(table); });
}

}  // namespace cudasync::commands
