#pragma once
// One wording for every usage error CLI11 raises while parsing, whatever the option: the option
// as typed, the value given and what is accepted, then which --help to read.
//   "--device 2147483648: out of range 0..1023; accepted: a whole number 0..1023 (see cudasync --help)"
// It walks the app and its subcommands, so a lesson's new option needs nothing of its own: the
// accepted text comes from the option (core/cli/option_checks.hpp: accepted_text).
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace cudasync::cli {

// `args` is argv without the program name (to find a hidden option, whose CLI11 name is empty).
std::string usage_message(const CLI::App& app, const CLI::Error& e, const std::vector<std::string>& args);

// A value as a message shows it: as typed when it is plain; else in single quotes ('' for an
// empty one); control characters and bytes that are not UTF-8 as \xHH (so a message is always
// printable UTF-8); cut after 64 characters, saying how long it was.
std::string shown_value(std::string_view v);

// Free text (a message that may quote a value) made printable the same way: control characters
// and bytes that are not UTF-8 as \xHH, cut after `limit` characters.
std::string printable_text(std::string_view v, std::size_t limit = 400);

// True when `s` is valid UTF-8.
bool is_utf8(std::string_view s);

}  // namespace cudasync::cli
