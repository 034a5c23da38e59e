// The fish completion: `complete` lines for the commands (with their summaries), the program's
// options everywhere, each command's options after it, values, delimited lists
// (__fish_complete_list), positionals.
#include <algorithm>
#include <sstream>

#include "clidocs/clidocs.hpp"

namespace cudasync::clidocs {

namespace {

// "-s v -l verbose" plus how the value completes and the description.
std::string option_line(const Option& o) {
  std::string line;
  for (const auto& s : o.shorts) line += " -s " + s;
  for (const auto& l : o.longs) line += " -l " + l;
  if (o.takes_value) {
    const auto values = o.value_words();
    line += " -x";
    if (!values.empty() && !o.delimiter.empty())
      line += " -a " + single_quoted("(__fish_complete_list " + o.delimiter + " \"printf '%s\\n' " + join(values, " ") + "\")");
    else if (!values.empty())
      line += " -a " + single_quoted(join(values, " "));
  }
  return line + " -d " + single_quoted(first_sentence(o.description));
}

}  // namespace

std::string fish_completion(const Spec& s) {
  std::ostringstream f;
  const std::string& p = s.program;
  std::vector<std::string> names;
  for (const Command* c : s.visible_commands()) names.push_back(c->name);
  const std::string no_command = single_quoted("not __fish_seen_subcommand_from " + join(names, " "));

  f << "# fish completion for " << p << ", generated from `" << p
    << " --cli-spec` by cudasync-clidocs (src/clidocs). Do not edit.\n"
    << "complete -c " << p << " -f\n";
  for (const Command* c : s.visible_commands())
    f << "complete -c " << p << " -n " << no_command << " -a " << single_quoted(c->name) << " -d "
      << single_quoted(first_sentence(c->summary)) << "\n";

  std::vector<std::string> global_words;
  for (const Option* o : s.visible_options()) {
    const std::string condition = s.options_after_command ? "" : " -n " + no_command;
    f << "complete -c " << p << condition << option_line(*o) << "\n";
    for (const auto& w : o->words()) global_words.push_back(w);
  }
  for (const Command* c : s.visible_commands()) {
    const std::string seen = single_quoted("__fish_seen_subcommand_from " + c->name);
    for (const Option* o : c->visible_options()) {
      bool global = false;
      for (const auto& w : o->words())
        global = global || (s.options_after_command &&
                            std::find(global_words.begin(), global_words.end(), w) != global_words.end());
      if (!global) f << "complete -c " << p << " -n " << seen << option_line(*o) << "\n";
    }
    for (const Option* o : c->positionals()) {
      const auto values = o->value_words();
      if (!values.empty())
        f << "complete -c " << p << " -n " << seen << " -a " << single_quoted(join(values, " ")) << " -d "
          << single_quoted(first_sentence(o->description)) << "\n";
    }
  }
  return f.str();
}

}  // namespace cudasync::clidocs
