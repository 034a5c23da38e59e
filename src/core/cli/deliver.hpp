#pragma once
// The report for a person and the other renderings a run may ask for, beside --json:
//   the text on stdout, through the pager on a terminal (core/cli/pager.hpp; --no-pager);
//   --html[=FILE]      one self-contained page (inline CSS and SVG pictures, no network);
//   --markdown[=FILE]  every table as a Markdown table (nvbench's --markdown);
//   --csv[=FILE]       every cell, fact, measurement and check as one CSV row (long format).
// Alone, each goes to stdout in place of the text; =FILE writes a file and the text stays. Like
// --json, FILE attaches with '=': in `--html lock` the word could be a file or the lesson.
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/report/json_renderer.hpp"
#include "core/report/report.hpp"

namespace cudasync::cli {

struct OutputOptions {
  bool no_pager = false;
  std::string html;      // "" none, "-" stdout, else a file
  std::string markdown;  // idem
  std::string csv;       // idem
};

void add_output_options(CLI::App& app, OutputOptions& o);

// The usage error when two renderings ask for stdout (--json and --html alone, say) or name one
// file (--html=run.out --csv=run.out).
std::optional<std::string> output_conflict(const OutputOptions& o, const std::string& json_target);

// The usage error for a last "--html=", "--markdown=" or "--csv=" that names no file (CLI11 would
// read it as the option alone, stdout). `args` is argv without the program; nothing after "--".
std::optional<std::string> empty_export_file(const std::vector<std::string>& args);

class Exports {
 public:
  // Opens the files (throws UsageError naming the option when one cannot be written).
  explicit Exports(const OutputOptions& o);
  // One of the renderings goes to stdout: no text report, no pager.
  bool on_stdout() const;
  // Every rendering, made before anything is written (a failure leaves no half file behind).
  std::vector<std::string> render(const report::Report& r, const report::RunMeta& meta) const;
  // Writes what render made; throws UsageError naming the option when a write fails.
  void write(const std::vector<std::string>& rendered);

 private:
  struct Target {
    std::string option;  // "--html"
    std::string path;    // "-" stdout
    std::unique_ptr<std::ofstream> file;
  };
  std::vector<Target> targets_;
};

// The text report: rendered to the terminal's width, through the pager when stdout is a terminal,
// the text is taller than it and no --no-pager.
void print_text(const report::Report& r, bool color, const OutputOptions& o);

}  // namespace cudasync::cli
