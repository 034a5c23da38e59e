#pragma once
// A lesson's own options come from its manifest ("options" in lessons/<lesson>/lesson.json:
// name, kind, bounds, choices, help; core/course/manifest.hpp); the lesson's code only says which
// field of its Options each one fills, and for a text option how its value is checked:
//
//   void bind_options(parts::OptionBinder& b, Options& o) {
//     b.bind("--blocks", o.blocks);                 // kind count: 1..max, checked in 64-bit
//     b.bind("--model", o.model);                   // kind choice
//     b.bind("--key", o.key, key_error);            // kind text: key_error(s) is "" or the refusal
//   }
//
// Core builds the CLI11 option from the row: the check for its kind (the same usage error for every
// count, choice and mask), a list's delimiter and number of items, the help from the lesson's
// catalog filled with {min}, {max}, {default} and the row's help_args. A field whose type cannot
// hold the row's values, an option the manifest does not declare, and one it declares that no bind()
// names are programming errors (std::logic_error), which every test that builds the command line
// meets.
//
// Plain C++ for the lessons: CLI11 stays in core (core/parts/option_binder.cpp).
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/course/manifest.hpp"
#include "core/words/catalog.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace cudasync::parts {

// "" when the value is accepted, else the usage error (the option, the value, what is accepted).
using TextCheck = std::function<std::string(const std::string&)>;

class OptionBinder {
 public:
  OptionBinder(CLI::App& app, std::string lesson, const std::vector<course::OptionSpec>& specs);

  // Adds option `name` of the manifest, filling `field`. `check`: a text option's check (required),
  // or a count's own check in place of core's range check: its own wording of a refusal, or (where
  // the lesson's validate judges the value with another option's) only "is it a whole number";
  // either way the help and --cli-spec state min..max, and the lesson refuses what lies outside. `help_args`: what only the code knows that the help (or
  // a text option's accepted words) names.
  void bind(const std::string& name, bool& field);
  void bind(const std::string& name, int& field, TextCheck check = {}, const words::Args& help_args = {});
  void bind(const std::string& name, std::optional<int>& field, TextCheck check = {}, const words::Args& help_args = {});
  void bind(const std::string& name, std::optional<long>& field, TextCheck check = {}, const words::Args& help_args = {});
  void bind(const std::string& name, std::optional<long long>& field, TextCheck check = {},
            const words::Args& help_args = {});
  void bind(const std::string& name, std::vector<int>& field, TextCheck check = {}, const words::Args& help_args = {});
  void bind(const std::string& name, std::optional<std::vector<int>>& field, TextCheck check = {},
            const words::Args& help_args = {});
  void bind(const std::string& name, std::string& field, TextCheck check = {}, const words::Args& help_args = {});
  void bind(const std::string& name, std::optional<std::string>& field, TextCheck check = {},
            const words::Args& help_args = {});
  void bind(const std::string& name, std::vector<std::string>& field, TextCheck check = {},
            const words::Args& help_args = {});

  // Throws std::logic_error naming the options the manifest declares that no bind() named.
  void done() const;

 private:
  template <class T>
  void add(const std::string& name, T& field, TextCheck check, const words::Args& help_args);
  const course::OptionSpec& take(const std::string& name);
  [[noreturn]] void mismatch(const course::OptionSpec& s, const std::string& what) const;
  // Whether the sentence under `key` of the lesson's catalog has the placeholder {name}.
  bool names_placeholder(const std::string& key, const course::OptionSpec& s, std::string_view name) const;
  std::string say_filled(const std::string& key, const course::OptionSpec& s, const words::Args& extra, bool english) const;
  std::string help(const course::OptionSpec& s, const words::Args& extra) const;
  void shape(CLI::Option& o, const course::OptionSpec& s, TextCheck check, const words::Args& extra) const;

  CLI::App& app_;
  std::string lesson_;
  const std::vector<course::OptionSpec>& specs_;
  std::set<std::string> bound_;
};

}  // namespace cudasync::parts
