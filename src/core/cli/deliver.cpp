#include "core/cli/deliver.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "core/cli/pager.hpp"
#include "core/cli/terminal.hpp"
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

std::optional<std::string> stdout_conflict(const OutputOptions& o, const std::string& json_target) {
  std::vector<std::string> on_stdout;
  if (json_target == "-") on_stdout.emplace_back("--json");
  if (o.html == "-") on_stdout.emplace_back("--html");
  if (o.markdown == "-") on_stdout.emplace_back("--markdown");
  if (o.csv == "-") on_stdout.emplace_back("--csv");
  if (on_stdout.size() < 2) return std::nullopt;
  return on_stdout[0] + " and " + on_stdout[1] + " both ask for stdout; accepted: one of them alone, the other with "
         "=FILE (" + on_stdout[1] + "=FILE)";
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
        throw UsageError(option + "=" + path + ": cannot open the file for writing (" + std::strerror(errno) +
                         "); accepted: a writable path, or " + option + " alone for stdout");
    }
    targets_.push_back(std::move(t));
  }
}

bool Exports::on_stdout() const {
  for (const auto& t : targets_)
    if (t.path == "-") return true;
  return false;
}

void Exports::write(const report::Report& r, const report::RunMeta& meta) {
  for (auto& t : targets_) {
    std::ostringstream text;
    if (t.option == "--html") report::render_html(r, meta, text);
    else if (t.option == "--markdown") report::render_markdown(r, text);
    else report::render_csv(r, text);
    std::ostream& out = t.file ? static_cast<std::ostream&>(*t.file) : std::cout;
    out << text.str();
    out.flush();
    if (!out) throw UsageError(t.option + "=" + t.path + ": writing failed (" + std::strerror(errno) + ")");
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
