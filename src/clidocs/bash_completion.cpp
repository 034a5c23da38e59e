// The bash completion: commands, each command's options and the program's (accepted after a
// command too), the values of an option or a positional where the spec knows them, several values
// after a delimiter (--part shfl,sh<TAB>). Plain bash: no bash-completion package needed.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "clidocs/clidocs.hpp"

namespace cudasync::clidocs {

namespace {

std::string fn_name(const Spec& s) {
  std::string n = "_" + s.program;
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

// case patterns of the options that take a value, "--device|--backend"
std::string value_option_pattern(const std::vector<const Option*>& options) {
  std::vector<std::string> words;
  for (const Option* o : options)
    if (o->takes_value)
      for (const auto& w : o->words()) words.push_back(w);
  return join(words, "|");
}

std::vector<std::string> option_words(const std::vector<const Option*>& options) {
  std::vector<std::string> words;
  for (const Option* o : options)
    for (const auto& w : o->words()) words.push_back(w);
  return words;
}

// One case arm completing the value of `o`: the values, after the last delimiter for a list.
void value_arm(std::ostringstream& b, const std::string& pattern, const Option& o) {
  const std::vector<std::string> values = o.value_words();
  b << "    " << pattern << ")\n";
  if (values.empty()) {
    b << "      COMPREPLY=()\n      return ;;\n";
    return;
  }
  const std::string list = single_quoted(join(values, " "));
  if (!o.delimiter.empty()) {
    const std::string d = o.delimiter;
    b << "      if [[ $cur == *" << d << "* ]]; then\n"
      << "        COMPREPLY=($(compgen -P \"${cur%" << d << "*}" << d << "\" -W " << list << " -- \"${cur##*" << d
      << "}\"))\n"
      << "      else\n"
      << "        COMPREPLY=($(compgen -W " << list << " -- \"$cur\"))\n"
      << "      fi\n"
      << "      return ;;\n";
    return;
  }
  b << "      COMPREPLY=($(compgen -W " << list << " -- \"$cur\"))\n      return ;;\n";
}

}  // namespace

std::string bash_completion(const Spec& s) {
  std::ostringstream b;
  const std::string fn = fn_name(s);
  const auto global = s.visible_options();
  std::vector<std::string> command_names;
  for (const Command* c : s.visible_commands()) command_names.push_back(c->name);

  b << "# bash completion for " << s.program << ", generated from `" << s.program
    << " --cli-spec` by cudasync-clidocs (src/clidocs). Do not edit.\n";
  b << fn << "() {\n"
    << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    << "  local cmd= i w nargs=0\n";
  // Find the command: the first word that is neither an option nor an option's value.
  const std::string global_values = value_option_pattern(global);
  b << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
    << "    w=${COMP_WORDS[i]}\n"
    << "    case $w in\n";
  if (!global_values.empty()) b << "      " << global_values << ") ((i++)) ;;\n";
  b << "      -*) ;;\n"
    << "      *) cmd=$w; break ;;\n"
    << "    esac\n"
    << "  done\n";
  // Count the command's positional arguments given so far.
  b << "  if [[ -n $cmd ]]; then\n"
    << "    for ((i++; i < COMP_CWORD; i++)); do\n"
    << "      w=${COMP_WORDS[i]}\n"
    << "      case \"$cmd $w\" in\n";
  for (const Command* c : s.visible_commands()) {
    std::vector<std::string> pats;
    for (const Option* o : c->visible_options())
      if (o->takes_value)
        for (const auto& w : o->words()) pats.push_back(single_quoted(c->name + " " + w));
    if (!pats.empty()) b << "        " << join(pats, "|") << ") ((i++)) ;;\n";
  }
  if (!global_values.empty()) {
    std::vector<std::string> pats;
    for (const Option* o : global)
      if (o->takes_value)
        for (const auto& w : o->words()) pats.push_back("*\" " + w + "\"");
    b << "        " << join(pats, "|") << ") ((i++)) ;;\n";
  }
  b << "        *\" -\"*) ;;\n"
    << "        *) ((nargs++)) ;;\n"
    << "      esac\n"
    << "    done\n"
    << "  fi\n";

  // The value of the option before the cursor.
  b << "  case \"$cmd $prev\" in\n";
  for (const Command* c : s.visible_commands())
    for (const Option* o : c->visible_options())
      if (o->takes_value) {
        std::vector<std::string> pats;
        for (const auto& w : o->words()) pats.push_back(single_quoted(c->name + " " + w));
        value_arm(b, join(pats, "|"), *o);
      }
  for (const Option* o : global)
    if (o->takes_value) {
      std::vector<std::string> pats;
      for (const auto& w : o->words()) pats.push_back("*\" " + w + "\"");
      value_arm(b, join(pats, "|"), *o);
    }
  b << "  esac\n";

  // Options, commands, positionals.
  b << "  if [[ $cur == -* ]]; then\n"
    << "    case $cmd in\n";
  for (const Command* c : s.visible_commands()) {
    std::vector<std::string> words = option_words(c->visible_options());
    if (s.options_after_command)
      for (const auto& w : option_words(global))
        if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
    b << "      " << single_quoted(c->name) << ") COMPREPLY=($(compgen -W " << single_quoted(join(words, " "))
      << " -- \"$cur\")) ;;\n";
  }
  b << "      *) COMPREPLY=($(compgen -W " << single_quoted(join(option_words(global), " ")) << " -- \"$cur\")) ;;\n"
    << "    esac\n"
    << "    return\n"
    << "  fi\n";
  b << "  if [[ -z $cmd ]]; then\n"
    << "    COMPREPLY=($(compgen -W " << single_quoted(join(command_names, " ")) << " -- \"$cur\"))\n"
    << "    return\n"
    << "  fi\n";
  b << "  case \"$cmd $nargs\" in\n";
  for (const Command* c : s.visible_commands()) {
    const auto pos = c->positionals();
    for (std::size_t i = 0; i < pos.size(); ++i) {
      const auto values = pos[i]->value_words();
      if (values.empty()) continue;
      b << "    " << single_quoted(c->name + " " + std::to_string(i)) << ") COMPREPLY=($(compgen -W "
        << single_quoted(join(values, " ")) << " -- \"$cur\")) ;;\n";
    }
  }
  b << "    *) COMPREPLY=() ;;\n"
    << "  esac\n"
    << "}\n"
    << "complete -F " << fn << " " << s.program << "\n";
  return b.str();
}

}  // namespace cudasync::clidocs
