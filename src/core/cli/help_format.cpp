#include "core/cli/help_format.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "core/report/text_width.hpp"
#include "core/words/words.hpp"

namespace cudasync::cli {

using report::display_width;
using report::wrap_text;

namespace {

std::string lines_under(const std::vector<std::string>& lines, const std::string& first, std::size_t hang) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += report::trim_right((i ? std::string(hang, ' ') : first) + lines[i]) + "\n";
  return out;
}

// Long option texts ("TEXT:{lock-class,warp-deadlock,...}") may break after their commas.
std::string breakable(std::string s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == ',' || c == '|') out += ' ';
  }
  return out;
}

}  // namespace

HelpFormatter::HelpFormatter(std::size_t width) : width_(std::max<std::size_t>(width, 40)) {
  column_width(std::min<std::size_t>(30, width_ / 3));
}

std::string HelpFormatter::entry(const std::string& left, const std::string& right) const {
  const std::size_t col = get_column_width();
  const std::string name = "  " + left;
  std::string out;
  std::size_t used;
  if (display_width(name) + 2 <= col) {
    used = col;
    out = report::pad_right(name, col);
  } else {  // the name on lines of its own, the description under it at the column
    out = lines_under(wrap_text(display_width(name) > width_ ? breakable(left) : left, width_ - 6), "  ", 6);
    if (right.empty()) return out;
    used = col;
    out += std::string(col, ' ');
  }
  if (right.empty()) return report::trim_right(out) + "\n";
  return out + lines_under(wrap_text(right, width_ - used), "", used);
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  std::string name = make_option_name(opt, is_positional);
  // A flag whose value is optional (--json, --html): CLI11 shows its default as "{-}".
  if (const auto brace = name.find("{-}"); brace != std::string::npos) name.replace(brace, 3, "[=FILE]");
  return entry(name + make_option_opts(opt), make_option_desc(opt));
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  return entry(sub->get_display_name(true), sub->get_description());
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string desc = CLI::Formatter::make_description(app);
  if (desc.empty()) return desc;
  return lines_under(wrap_text(desc, width_), "", 0);
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = app->get_footer();
  if (footer.empty()) return footer;
  std::istringstream in(footer);
  std::string out;
  for (std::string line; std::getline(in, line);) out += wrap_help_line(line, width_);
  return out;
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
  std::ostringstream out;
  std::string groups = make_groups(app, mode);
  while (groups.size() >= 2 && groups.compare(groups.size() - 2, 2, "\n\n") == 0) groups.pop_back();
  out << make_description(app) << make_usage(app, name) << make_positionals(app) << groups;
  if (const CLI::App* parent = app->get_parent()) {
    const auto globals = parent->get_options([parent](const CLI::Option* o) {
      return !o->get_group().empty() && o->nonpositional() && o != parent->get_help_ptr() &&
             o != parent->get_help_all_ptr() && o->get_name() != "--version";
    });
    if (!globals.empty()) out << make_group(words::core("cli.global-options"), false, globals);
  }
  out << make_subcommands(app, mode) << '\n' << make_footer(app);
  return out.str();
}

void use_help_formatter(CLI::App& app, std::size_t width) { app.formatter(std::make_shared<HelpFormatter>(width)); }

std::string wrap_help_line(const std::string& line, std::size_t width) {
  if (display_width(line) <= width) return report::trim_right(line) + "\n";
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  std::size_t hang = indent;
  const std::size_t gap = line.find("  ", indent);
  if (gap != std::string::npos) {
    const std::size_t text = line.find_first_not_of(' ', gap);
    if (text != std::string::npos && text < width / 2) hang = text;
  }
  if (hang == indent) hang = indent + 2;
  const std::string first = line.substr(0, std::min(hang, line.size()));
  return lines_under(wrap_text(line.substr(std::min(hang, line.size())), width - hang), report::pad_right(first, hang), hang);
}

}  // namespace cudasync::cli
