#pragma once
// cudasync-clidocs: the man page and the bash, zsh and fish completions, generated at build time
// from the command line's own definition (`cudasync --cli-spec`, src/core/cli/cli_spec.hpp), so a
// new command or option appears in all four without an edit. A build tool: not installed.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cudasync::clidocs {

struct Option {
  std::vector<std::string> longs, shorts;  // without dashes
  std::string name;                        // a positional's name
  bool positional = false;
  bool takes_value = false;
  bool optional_value = false;  // a flag that also takes =VALUE (--json=FILE)
  bool multiple = false;        // several values, or a flag that counts (-v -v)
  std::string delimiter;        // "," when several values may share one word
  std::string type;             // INT, UINT, TEXT, FLOAT ...
  std::vector<std::string> values;
  std::optional<double> min, max;
  std::string default_value;
  std::string description;
  bool required = false;
  bool hidden = false;

  std::vector<std::string> words() const;        // "-v", "--verbose"
  std::vector<std::string> value_words() const;  // the values, or a small integer range spelled out
  std::string metavar() const;                   // "N", "VALUE", "auto|gpu|model"
};

struct Part {
  std::string id, title, summary;
  bool needs_gpu = false;
  bool by_default = true;
};

struct Command {
  std::string name, summary;
  bool lesson = false;
  bool hidden = false;
  std::vector<Part> parts;
  std::vector<Option> options;  // hidden ones included; generators skip them
  std::vector<Command> commands;

  std::vector<const Option*> visible_options() const;  // named, not hidden
  std::vector<const Option*> positionals() const;      // in order, not hidden
};

struct Spec {
  std::string program, version, description, footer;
  bool options_after_command = false;
  std::vector<Option> options;  // the program's own
  std::vector<Command> commands;

  std::vector<const Option*> visible_options() const;
  std::vector<const Command*> visible_commands() const;
};

Spec parse_spec(const nlohmann::json& j);  // throws std::runtime_error on a spec it cannot read

std::string man_page(const Spec& spec);
std::string bash_completion(const Spec& spec);
std::string zsh_completion(const Spec& spec);
std::string fish_completion(const Spec& spec);

// Helpers the generators share.
std::string join(const std::vector<std::string>& v, const std::string& sep);
std::string first_sentence(const std::string& text);  // up to the first ". " or ";"
std::string single_quoted(const std::string& s);      // 'it'\''s' for sh, bash, zsh and fish

}  // namespace cudasync::clidocs
