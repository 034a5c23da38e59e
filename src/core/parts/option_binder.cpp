#include "core/parts/option_binder.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <type_traits>

#include <CLI/CLI.hpp>

#include "core/cli/option_checks.hpp"
#include "core/number_list.hpp"
#include "core/words/words.hpp"

namespace cudasync::parts {

namespace {

template <class T>
struct Unwrapped {
  using type = T;
  static constexpr bool list = false;
};
template <class T>
struct Unwrapped<std::optional<T>> {
  using type = typename Unwrapped<T>::type;
  static constexpr bool list = Unwrapped<T>::list;
};
template <class T>
struct Unwrapped<std::vector<T>> {
  using type = T;
  static constexpr bool list = true;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

}  // namespace

OptionBinder::OptionBinder(CLI::App& app, std::string lesson, const std::vector<course::OptionSpec>& specs)
    : app_(app), lesson_(std::move(lesson)), specs_(specs) {}

template <class T>
void OptionBinder::add(const std::string& name, T& field, TextCheck check, const words::Args& help_args) {
  using Item = typename Unwrapped<T>::type;
  using Kind = course::OptionSpec::Kind;
  const course::OptionSpec& s = take(name);
  constexpr bool flag = std::is_same_v<T, bool>;
  if (flag != (s.kind == Kind::flag)) mismatch(s, flag ? "a bool field is for kind flag" : "kind flag needs a bool field");
  if (Unwrapped<T>::list != s.list)
    mismatch(s, s.list ? "a list needs a std::vector field" : "a std::vector field needs \"list\"");
  if constexpr (std::is_integral_v<Item> && !flag) {
    if (s.kind == Kind::count) {
      if (s.max > static_cast<std::uint64_t>(std::numeric_limits<Item>::max())) mismatch(s, "its max does not fit the field");
    } else if (s.kind != Kind::choice) {
      mismatch(s, "a number field is for kind count or choice");
    }
  } else if constexpr (!flag) {
    if (s.kind == Kind::count) mismatch(s, "kind count needs a number field");
  }
  // A default the help states is the field's own: the code starts from it when the option is not
  // given. An optional field has none (each part chooses), so the manifest may not state one.
  if (s.default_value) {
    if constexpr (IsOptional<T>::value || Unwrapped<T>::list || flag) {
      mismatch(s, "states a default, which an optional or list field does not hold");
    } else {
      std::ostringstream held;
      held << field;
      if (held.str() != *s.default_value) mismatch(s, "states the default " + *s.default_value + "; the code's is " + held.str());
    }
  }
  CLI::Option* o = nullptr;
  if constexpr (flag) {
    o = app_.add_flag(s.name, field, help(s, help_args));
  } else {
    o = app_.add_option(s.name, field, help(s, help_args));
  }
  shape(*o, s, std::move(check), help_args);
}

void OptionBinder::bind(const std::string& name, bool& field) { add(name, field, {}, {}); }
void OptionBinder::bind(const std::string& name, int& field, TextCheck check, const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::optional<int>& field, TextCheck check, const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::optional<long>& field, TextCheck check, const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::optional<long long>& field, TextCheck check,
                        const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::vector<int>& field, TextCheck check, const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::optional<std::vector<int>>& field, TextCheck check,
                        const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::string& field, TextCheck check, const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::optional<std::string>& field, TextCheck check,
                        const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}
void OptionBinder::bind(const std::string& name, std::vector<std::string>& field, TextCheck check,
                        const words::Args& help_args) {
  add(name, field, std::move(check), help_args);
}

const course::OptionSpec& OptionBinder::take(const std::string& name) {
  const auto it = std::find_if(specs_.begin(), specs_.end(), [&](const course::OptionSpec& s) { return s.name == name; });
  if (it == specs_.end())
    throw std::logic_error(lesson_ + ": option " + name + " is not declared in lessons/" + lesson_ + "/lesson.json");
  if (!bound_.insert(name).second) throw std::logic_error(lesson_ + ": option " + name + " is bound twice");
  return *it;
}

void OptionBinder::mismatch(const course::OptionSpec& s, const std::string& what) const {
  throw std::logic_error("lessons/" + lesson_ + "/lesson.json:" + std::to_string(s.line) + ": " + s.name + " (kind " +
                         course::to_string(s.kind) + "): " + what);
}

bool OptionBinder::names_placeholder(const std::string& key, const course::OptionSpec& s, std::string_view name) const {
  const auto& entry = words::catalog(lesson_).find(key);
  if (entry == words::catalog(lesson_).end())
    throw std::logic_error(lesson_ + ": " + s.name + ": '" + key + "' is no key of its catalog");
  const std::vector<std::string> named = words::placeholders(entry->second.en);
  return std::find(named.begin(), named.end(), name) != named.end();
}

std::string OptionBinder::say_filled(const std::string& key, const course::OptionSpec& s, const words::Args& extra,
                                     bool english) const {
  // The catalog's sentence names the values it shows; only those are filled in (an unused one
  // would be a programming error in words::fill).
  const auto names = [&](std::string_view n) { return names_placeholder(key, s, n); };
  words::Args args;
  if (names("min")) args.emplace_back("min", s.min);
  if (names("max")) args.emplace_back("max", s.max);
  if (names("default") && s.default_value) args.emplace_back("default", *s.default_value);
  if (names("choices")) args.emplace_back("choices", course::comma_list(s.choices));
  for (const auto& [n, v] : s.help_args)
    if (names(n)) args.emplace_back(n, v);
  for (const auto& a : extra)
    if (names(a.name)) args.push_back(a);
  return english ? words::say_in(words::Lang::en, lesson_, key, args) : words::say(lesson_, key, args);
}

std::string OptionBinder::help(const course::OptionSpec& s, const words::Args& extra) const {
  if (s.hidden) return "";
  std::string text = say_filled(s.help, s, extra, false);
  // Every count's help states its range: the sentence's own {max}, else "(min..max)" after it.
  if (s.kind == course::OptionSpec::Kind::count && !names_placeholder(s.help, s, "max"))
    text += " (" + std::to_string(s.min) + ".." + std::to_string(s.max) + ")";
  return text;
}

void OptionBinder::shape(CLI::Option& o, const course::OptionSpec& s, TextCheck check, const words::Args& extra) const {
  using Kind = course::OptionSpec::Kind;
  if (s.hidden) o.group("");
  if (s.list) {
    o.delimiter(',');
    if (s.most > 0) o.expected(static_cast<int>(s.least), static_cast<int>(s.most));
  }
  switch (s.kind) {
    case Kind::count:
      if (check) o.check(cli::ranged_check(s.min, s.max, std::move(check)));
      else o.check(cli::whole_range(s.min, s.max));
      break;
    case Kind::choice:
      if (check) mismatch(s, "a choice is checked by its choices, not by the code");
      o.check(CLI::IsMember(s.choices));
      break;
    case Kind::mask:
      if (check) mismatch(s, "a mask is checked by core");
      o.check(cli::text_check(
          [](const std::string& v) { return parse_mask(v) ? std::string() : std::string("not a 32-bit mask"); },
          "a 32-bit mask, hex (0xffff0000) or decimal, 0..4294967295"));
      break;
    case Kind::flag:
      if (check) mismatch(s, "a flag has no value to check");
      break;
    case Kind::text:
      if (!check) mismatch(s, "a text option needs the code's check");
      // Usage errors are said in English in every language (core/words/words.hpp).
      o.check(cli::text_check(std::move(check), say_filled(s.accepted, s, extra, true)));
      break;
  }
}

void OptionBinder::done() const {
  std::string missing;
  for (const auto& s : specs_)
    if (!bound_.count(s.name)) missing += (missing.empty() ? "" : ", ") + s.name;
  if (!missing.empty())
    throw std::logic_error("lessons/" + lesson_ + "/lesson.json declares " + missing + ", which the code binds to nothing");
}

}  // namespace cudasync::parts
