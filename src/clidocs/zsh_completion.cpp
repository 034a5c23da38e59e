// The zsh completion (#compdef, _arguments): commands with their summaries, each command's options
// and the program's, values, several values after a delimiter (_values -s), positionals.
#include <algorithm>
#include <sstream>

#include "clidocs/clidocs.hpp"

namespace cudasync::clidocs {

namespace {

// A description inside _arguments' [...]: brackets, colons and backslashes escaped.
std::string bracketed(const std::string& text) {
  std::string out;
  for (const char c : first_sentence(text)) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string message(const Option& o) {
  std::string m = o.positional ? o.name : o.longs.empty() ? "value" : o.longs.front();
  std::replace(m.begin(), m.end(), ':', '-');
  return m;
}

// The action after ":message:": a list, _values for a delimited list, else nothing to offer.
std::string action(const Option& o) {
  const auto values = o.value_words();
  if (values.empty()) return " ";
  if (!o.delimiter.empty()) return "_values -s " + o.delimiter + " " + message(o) + " " + join(values, " ");
  return "(" + join(values, " ") + ")";
}

// The _arguments specs of one option, one per name: '(-v --verbose)-v[More log lines]'.
std::vector<std::string> specs(const Option& o) {
  std::vector<std::string> out;
  const auto words = o.words();
  std::string prefix;
  if (o.multiple && !o.delimiter.empty()) prefix = "";
  else if (o.multiple) prefix = "*";
  else if (words.size() > 1) prefix = "(" + join(words, " ") + ")";
  for (const auto& w : words) {
    std::string s = prefix + w;
    if (o.takes_value) s += "=[" + bracketed(o.description) + "]:" + message(o) + ":" + action(o);
    else if (o.optional_value) s += "=-[" + bracketed(o.description) + "]::" + message(o) + ":_default";
    else s += "[" + bracketed(o.description) + "]";
    out.push_back(single_quoted(s));
  }
  return out;
}

std::vector<std::string> all_specs(const std::vector<const Option*>& options, std::vector<std::string>* seen) {
  std::vector<std::string> out;
  for (const Option* o : options) {
    bool dup = false;
    for (const auto& w : o->words()) dup = dup || std::find(seen->begin(), seen->end(), w) != seen->end();
    if (dup) continue;
    for (const auto& w : o->words()) seen->push_back(w);
    for (auto& s : specs(*o)) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::string zsh_completion(const Spec& s) {
  std::ostringstream z;
  const std::string fn = "_" + s.program;
  z << "#compdef " << s.program << "\n"
    << "# zsh completion for " << s.program << ", generated from `" << s.program
    << " --cli-spec` by cudasync-clidocs (src/clidocs). Do not edit.\n\n"
    << fn << "() {\n"
    << "  local curcontext=$curcontext state line ret=1\n"
    << "  local -a program_options commands\n"
    << "  program_options=(\n";
  std::vector<std::string> seen;
  for (const auto& spec : all_specs(s.visible_options(), &seen)) z << "    " << spec << "\n";
  z << "  )\n  commands=(\n";
  for (const Command* c : s.visible_commands())
    z << "    " << single_quoted(c->name + ":" + first_sentence(c->summary)) << "\n";
  z << "  )\n"
    << "  _arguments -C -S $program_options ': :->command' '*:: :->args' && ret=0\n"
    << "  case $state in\n"
    << "    command) _describe -t commands '" << s.program << " command' commands && ret=0 ;;\n"
    << "    args)\n"
    << "      curcontext=${curcontext%:*:*}:" << s.program << "-$words[1]:\n"
    << "      case $words[1] in\n";
  for (const Command* c : s.visible_commands()) {
    std::vector<std::string> own_seen;
    std::vector<std::string> args = all_specs(c->visible_options(), &own_seen);
    if (s.options_after_command)
      for (auto& spec : all_specs(s.visible_options(), &own_seen)) args.push_back(std::move(spec));
    const auto pos = c->positionals();
    for (std::size_t i = 0; i < pos.size(); ++i)
      args.push_back(single_quoted(std::to_string(i + 1) + ":" + message(*pos[i]) + ":" + action(*pos[i])));
    z << "        " << single_quoted(c->name) << ")\n"
      << "          _arguments -S \\\n";
    for (const auto& a : args) z << "            " << a << " \\\n";
    z << "            && ret=0 ;;\n";
  }
  z << "      esac ;;\n"
    << "  esac\n"
    << "  return ret\n"
    << "}\n\n"
    << fn << " \"$@\"\n";
  return z.str();
}

}  // namespace cudasync::clidocs
