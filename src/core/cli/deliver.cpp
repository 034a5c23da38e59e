#include "core/cli/deliver.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

#include "core/cli/pager.hpp"
#include "core/cli/terminal.hpp"
#include "core/cli/usage_message.hpp"
#include "core/errors.hpp"
#include "core/report/html_renderer.hpp"
#include "core/report/table_export.hpp"
#include "core/report/text_renderer.hpp"

namespace cudasync::cli {

void add_output_options(CLI::App& app, OutputOptions& o) {
  app.add_flag("--no-pager", o.no_pager,
               "Never page the text (on a terminal, long output goes through $CUDASYNC_PAGER, $PAGER or less -FRX)");
  app.add_flag("--html{-}", o.html,
               "Write the run as one self-contained HTML page with pictures: --html to stdout, --html=FILE to FILE");
  app.add_flag("--markdown{-}", o.markdown,
               "Write every table as Markdown: --markdown to stdout, --markdown=FILE to FILE");
  app.add_flag("--csv{-}", o.csv,
               "Write every cell, fact, measurement and check as a CSV row: --csv to stdout, --csv=FILE to FILE");
}

std::optional<std::string> output_conflict(const OutputOptions& o, const std::string& json_target) {
  const std::vector<std::pair<std::string, std::string>> targets{
      {"--json", json_target}, {"--html", o.html}, {"--markdown", o.markdown}, {"--csv", o.csv}};
  for (std::size_t i = 0; i < targets.size(); ++i)
    for (std::size_t j = i + 1; j < targets.size(); ++j) {
      const auto& [a, path] = targets[i];
      const auto& b = targets[j].first;
      if (path.empty() || path != targets[j].second) continue;
      if (path == "-")
        return a + " and " + b + " both ask for stdout; accepted: one of them alone, the other with =FILE (" + b +
               "=FILE)";
      return a + "=" + shown_value(path) + " and " + b + "=" + shown_value(path) +
             " name one file; accepted: a file of its own for each";
    }
  return std::nullopt;
}

std::optional<std::string> empty_export_file(const std::vector<std::string>& args) {
  std::map<std::string, bool> empty;  // option -> its last occurrence was "OPTION="
  for (const std::string& a : args) {
    if (a == "--") break;
    for (const char* option : {"--html", "--markdown", "--csv"}) {
      const std::string name(option);
      if (a == name || a.rfind(name + "=", 0) == 0) empty[name] = a.size() == name.size() + 1;
    }
  }
  for (const auto& [option, is_empty] : empty)
    if (is_empty)
      return option + "= names no file; accepted: " + option + "=FILE to write to FILE, or " + option +
             " alone for stdout";
  return std::nullopt;
}

Exports::Exports(const OutputOptions& o) {
  for (const auto& [option, path] : {std::pair<std::string, std::string>{"--html", o.html},
                                     {"--markdown", o.markdown},
                                     {"--csv", o.csv}}) {
    if (path.empty()) continue;
    Target t{option, path, nullptr};
    if (path != "-") {
      t.file = std::make_unique<std::ofstream>(path, std::ios::binary);
      if (!*t.file)
        throw UsageError(option + "=" + shown_value(path) + ": cannot open the file for writing (" +
                         std::strerror(errno) + "); accepted: a writable path, or " + option + " alone for stdout");
    }
    targets_.push_back(std::move(t));
  }
}

bool Exports::on_stdout() const {
  for (const auto& t : targets_)
    if (t.path == "-") return true;
  return false;
}

std::vector<std::string> Exports::render(const report::Report& r, const report::RunMeta& meta) const {
  std::vector<std::string> out;
  for (const auto& t : targets_) {
    std::ostringstream text;
    if (t.option == "--html") report::render_html(r, meta, text);
    else if (t.option == "--markdown") report::render_markdown(r, text);
    else report::render_csv(r, text);
    out.push_back(text.str());
  }
  return out;
}

void Exports::write(const std::vector<std::string>& rendered) {
  for (std::size_t i = 0; i < targets_.size() && i < rendered.size(); ++i) {
    auto& t = targets_[i];
    if (!t.file) {  // stdout: its failures are found when the run finishes (core/cli/output.hpp)
      std::cout << rendered[i];
      continue;
    }
    errno = 0;
    *t.file << rendered[i];
    t.file->flush();
    const int err = errno;
    const bool written = static_cast<bool>(*t.file);
    t.file->close();
    if (!written || t.file->fail())
      throw UsageError(t.option + "=" + shown_value(t.path) + ": writing failed (" +
                       (err ? std::strerror(err) : "write error") + "); accepted: a writable path with room for it");
  }
}

void print_text(const report::Report& r, bool color, const OutputOptions& o) {
  report::TextStyle style;
  style.color = color;
  style.width = terminal_width();
  std::ostringstream text;
  report::render_text(r, style, text);
  print_paged(text.str(), pager_command(isatty(STDOUT_FILENO) != 0, o.no_pager, std::getenv("CUDASYNC_PAGER"),
                                        std::getenv("PAGER"), std::getenv("TERM")));
}

}  // namespace cudasync::cli
