#pragma once
// Help that fits the terminal (CLI11 2.1's Formatter, wrapped): option descriptions wrap beside
// their names (under them when a name is long), long choice lists break after their commas,
// footers (parts, exit codes) wrap with hanging indents. A subcommand's help also lists the global
// options, which every command accepts before or after its name.
#include <cstddef>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace cudasync::cli {

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::size_t width);

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

 private:
  std::string entry(const std::string& left, const std::string& right) const;
  std::size_t width_;
};

// Sets the formatter on `app`; subcommands added afterwards inherit it.
void use_help_formatter(CLI::App& app, std::size_t width);

// A line of preformatted text wrapped to `width`, continuing lines under the text that follows the
// first run of two spaces ("  lock-class   the seed's ..." wraps under "the").
std::string wrap_help_line(const std::string& line, std::size_t width);

}  // namespace cudasync::cli
