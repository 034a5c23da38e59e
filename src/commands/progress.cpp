#include "commands/progress.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <iostream>
#include <memory>
#include <string>

#include "commands/course_common.hpp"
#include "core/course/progress_export.hpp"
#include "core/device_info.hpp"
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
    const course::Changed cleared = course::reset_progress(where.file);
    if (!cleared.saved) {
      std::string why;
      for (const auto& w : cleared.warnings) why += (why.empty() ? "" : "; ") + w;
      throw UsageError("progress --reset: " + why + "; accepted: a progress state you may write");
    }
    for (const auto& w : cleared.warnings) log::warn(w);
    s.fact("state", words::core("progress.removed"), where.file);
  }
  s.paragraph(words::core("progress.starts-again"));
  r.sections.push_back(std::move(s));
  return r;
}

std::string login_name() {
  if (const char* u = std::getenv("USER"); u != nullptr && *u != '\0') return u;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return "unknown";
}

report::Report export_progress(const std::vector<cli::Command>& table, const std::string& file, const std::string& name) {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  const GpuProbe probe = probe_gpus();
  const std::string gpu = probe.devices.empty() ? std::string("none") : probe.devices.front().name;
  const std::string who = name.empty() ? login_name() : name;
  const std::string text =
      course::export_json(course::course_of(table), load_student_progress(), who, host, gpu, course::utc_now());
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw UsageError("progress --export " + file + ": cannot be written; accepted: a path you may write");
  }
  report::Report r;
  r.command = "progress";
  r.title = "cudasync progress --export";
  report::Section s("export", words::core("progress.exported"));
  s.fact("file", words::core("progress.export-file"), file);
  s.fact("student", words::core("progress.student"), who);
  s.note(words::core("progress.export-next", {{"file", file}}));
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
  auto export_file = std::make_shared<std::string>();
  auto student = std::make_shared<std::string>();
  sub.add_flag("--reset", *reset_flag, words::core("help.progress.reset"));
  sub.add_flag("--yes", *yes, words::core("help.progress.yes"));
  sub.add_option("--export", *export_file, words::core("help.progress.export"));
  sub.add_option("--student", *student, words::core("help.progress.student"));
  sub.footer(words::core("help.progress.footer"));
  cli::Validator validate = [reset_flag, yes, export_file, student](const RunContext&) {
    if (*yes && !*reset_flag) throw UsageError("--yes goes with --reset; accepted: cudasync progress --reset --yes");
    if (!student->empty() && export_file->empty())
      throw UsageError("--student goes with --export; accepted: cudasync progress --export FILE --student NAME");
    if (!export_file->empty() && *reset_flag)
      throw UsageError("--export and --reset: one at a time; accepted: cudasync progress --export FILE");
  };
  cli::Runner run = [reset_flag, yes, export_file, student, &table](const RunContext&) {
    if (!export_file->empty()) return export_progress(table, *export_file, *student);
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
