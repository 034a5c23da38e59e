#pragma once
// Options whose values are checked before they are used: whole numbers parsed in 64-bit against
// a range, sizes with units, and the words that say what an option accepts. The help states the
// range of every count option, and every usage error repeats what is accepted
// (core/cli/usage_message.hpp reads it back from the option).
//
//   // a count option: 1..1024 in the help, "--blocks 0: ...; accepted: a whole number 1..1024"
//   cli::add_count(sub, "--blocks", o.blocks, 1024, "Blocks in the grid");
//   // a count that may be 0
//   cli::add_count(sub, "--delay", o.delay, 1000, "Spin iterations before the store", 0);
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

namespace cudasync::cli {

// Decimal digits only, 0..2^64-1: "42" -> 42. A sign, a space, "", "1e3", "0x10" or a value past
// 2^64-1 -> nullopt (never wrapped, never clamped).
std::optional<std::uint64_t> parse_whole(std::string_view s);

// A size in bytes: "1073741824", "512M", "4G", "4GiB", "64k" (K, M, G, T are powers of 1024, with
// or without "iB" / "B", any case). nullopt when it is not a size or does not fit in 64 bits.
std::optional<std::uint64_t> parse_size(std::string_view s);

// "4 GiB (4,294,967,296 bytes)"; plain "512 bytes" below 1 KiB.
std::string size_text(std::uint64_t bytes);

// A CLI11 check: a whole number min..max. Its description ("UINT in [1 - 32]") is CLI11's Range
// form, so the help and --cli-spec read it as a range; its name carries what it accepts in words.
CLI::Validator whole_range(std::uint64_t min, std::uint64_t max);

// A CLI11 check for a free-form value (a file, a folder): refuses an empty one, which a command
// could not tell from none given; `accepted` says what the option takes, for usage errors.
CLI::Validator non_empty(const std::string& accepted);

// An option's own check of whole numbers (its wording kept) with the range min..max stated where
// CLI11 shows a check: --help and --cli-spec read "UINT in [min - max]" as the range (of each item,
// for a list), and usage errors say "accepted: " + `accepted` ("a whole number min..max" when empty).
CLI::Validator ranged_check(std::uint64_t min, std::uint64_t max, std::function<std::string(const std::string&)> check,
                            const std::string& accepted = "");

// A CLI11 check of a free-form value by `check` ("" when accepted, else why not); usage errors
// say "accepted: " + `accepted`.
CLI::Validator text_check(std::function<std::string(const std::string&)> check, const std::string& accepted);

// A CLI11 check: a size (parse_size) of at least `min` bytes.
CLI::Validator size_check(std::uint64_t min);

// Copies of an option's CLI11 checks, in CLI11's order (2.1 has no const accessor).
std::vector<CLI::Validator> validators_of(const CLI::Option& o);

// What an option accepts, in words: "a whole number 1..32", "one of auto, gpu, model". The text a
// core check recorded, else read from CLI11's validators and the option's type; else the help.
std::string accepted_text(const CLI::Option& o);

// A count option: refused outside min..max (checked in 64-bit before it reaches `value`, so it
// cannot wrap or overflow), and its help ends with "(min..max)". `value` is an integer or a
// std::optional of one; max must fit in it.
template <class T>
CLI::Option* add_count(CLI::App& app, const std::string& name, T& value, std::uint64_t max, const std::string& help,
                       std::uint64_t min = 1) {
  if constexpr (std::is_integral_v<T>) {
    static_assert(!std::is_same_v<T, bool>, "a count is not a flag");
    if (max > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      throw std::logic_error(name + ": maximum " + std::to_string(max) + " does not fit the option's type");
  }
  return app.add_option(name, value, help + " (" + std::to_string(min) + ".." + std::to_string(max) + ")")
      ->check(whole_range(min, max));
}

}  // namespace cudasync::cli
