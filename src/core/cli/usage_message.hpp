#pragma once
// One wording for every usage error CLI11 raises while parsing, whatever the option: the option
// as typed, the value given and what is accepted, then which --help to read.
//   "--device 2147483648: out of range 0..1023; accepted: a whole number 0..1023 (see cudasync --help)"
// It walks the app and its subcommands, so a lesson's new option needs nothing of its own: the
// accepted text comes from the option (core/cli/option_checks.hpp: accepted_text).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace cudasync::cli {

// `args` is argv without the program name (to find a hidden option, whose CLI11 name is empty).
std::string usage_message(const CLI::App& app, const CLI::Error& e, const std::vector<std::string>& args);

// After "--" every word is an argument of the command (it fills the command's positionals),
// never an option or a command. CLI11 2.1 hands a word the command has no argument left for back
// to the program, which reads it as an option again (`lock -- --json=out.json` took --json while
// the tool, stopping at "--", wrote no document): this is the usage error for the first such
// word, read from what the parse (whole or ended early) gave the command's positionals; nullopt
// when every word after "--" went to one. `args` is argv without the program name.
std::optional<std::string> after_dashes_problem(const CLI::App& app, const std::vector<std::string>& args);

// The usage error for a value option written "--name=" with nothing after the '=' (before "--"):
// CLI11 2.1 reads it as no value and takes the next word instead ("--seed= --backend model" made
// "--backend" the seed). nullopt when there is none. Flags with an optional value (--json=,
// --html=) have their own message.
std::optional<std::string> empty_inline_value(const CLI::App& app, const std::vector<std::string>& args);

// The usage error for a list option (comma-separated) whose value has an empty item ("1,,2",
// "1,"): CLI11 drops it, and "1,,2" would run as "1,2". nullopt when none has. `args` is argv
// without the program name.
std::optional<std::string> empty_list_item(const CLI::App& app, const std::vector<std::string>& args);

// The usage error for the first option of the program or of the command that was given an empty
// value (--kernel ''): CLI11 keeps it, and a command reading "" as "not given" would run as if it
// had not been typed. nullopt when none was.
std::optional<std::string> empty_value_problem(const CLI::App& app);

// A value as a message shows it: as typed when it is plain; else in single quotes ('' for an
// empty one); control characters and bytes that are not UTF-8 as \xHH (so a message is always
// printable UTF-8); cut after 64 characters, saying how long it was.
std::string shown_value(std::string_view v);

// Free text (a message that may quote a value) made printable the same way: control characters
// and bytes that are not UTF-8 as \xHH, cut after `limit` characters.
std::string printable_text(std::string_view v, std::size_t limit = 400);

// A message for stderr and the error document: printable as printable_text makes it, every word
// longer than 100 bytes (a value the message quotes) cut to its first 64 characters and its
// length, and when the whole is still longer than `limit`, its "accepted: ..." kept at the end.
std::string message_text(std::string_view v, std::size_t limit = 4000);

// True when `s` is valid UTF-8.
bool is_utf8(std::string_view s);

}  // namespace cudasync::cli
