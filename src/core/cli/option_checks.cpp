#include "core/cli/option_checks.hpp"

#include <cctype>
#include <cstdio>
#include <vector>

#include "core/report/text_format.hpp"

namespace cudasync::cli {

namespace {

// The accepted text rides in the check's name: CLI11 keeps a Validator's name and description,
// and core needs no table of its own beside the option.
constexpr std::string_view kAcceptsPrefix = "accepts: ";

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "INT:{2,4}:INT in [0 - 31]" at the colons outside braces and brackets.
std::vector<std::string> split_type(const std::string& s) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (const char c : s) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ':' && depth == 0) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::string number_words(const std::string& type) {
  if (type == "INT") return "a whole number";
  if (type == "UINT") return "a whole number 0 or more";
  if (type == "FLOAT") return "a number";
  return "";
}

// One CLI11 validator description in words: "{2,4,8}" -> "one of 2, 4, 8";
// "INT in [1 - 32]" -> "a whole number 1..32".
std::string description_words(const std::string& d) {
  if (d.size() >= 2 && d.front() == '{' && d.back() == '}') {
    std::string out = "one of ";
    int depth = 0;
    for (std::size_t i = 1; i + 1 < d.size(); ++i) {
      const char c = d[i];
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      out += (c == ',' && depth == 0) ? std::string(", ") : std::string(1, c);
    }
    return out;
  }
  const auto in = d.find(" in [");
  if (in != std::string::npos && d.back() == ']') {
    std::string range = d.substr(in + 5, d.size() - in - 6);
    const auto dash = range.find(" - ");
    if (dash != std::string::npos) range = range.substr(0, dash) + ".." + range.substr(dash + 3);
    const std::string words = number_words(d.substr(0, in));
    return (words.empty() ? std::string("a value") : words) + " " + range;
  }
  return d;
}

}  // namespace

std::optional<std::uint64_t> parse_whole(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    if (__builtin_mul_overflow(v, std::uint64_t{10}, &v) ||
        __builtin_add_overflow(v, static_cast<std::uint64_t>(c - '0'), &v))
      return std::nullopt;
  }
  return v;
}

std::optional<std::uint64_t> parse_size(std::string_view s) {
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  const auto number = parse_whole(s.substr(0, digits));
  if (!number) return std::nullopt;
  std::string unit = lower(s.substr(digits));
  if (unit.size() >= 2 && unit.compare(unit.size() - 2, 2, "ib") == 0) unit.resize(unit.size() - 2);
  else if (unit.size() >= 2 && unit.back() == 'b') unit.pop_back();
  else if (unit == "b") unit.clear();
  int shift = 0;
  if (unit == "k") shift = 10;
  else if (unit == "m") shift = 20;
  else if (unit == "g") shift = 30;
  else if (unit == "t") shift = 40;
  else if (!unit.empty()) return std::nullopt;
  if (shift > 0 && *number > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return *number << shift;
}

std::string size_text(std::uint64_t bytes) {
  if (bytes < 1024) return report::grouped(bytes) + " bytes";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return std::string(buf) + " " + units[u] + " (" + report::grouped(bytes) + " bytes)";
}

CLI::Validator whole_range(std::uint64_t min, std::uint64_t max) {
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& input) -> std::string {
        const auto v = parse_whole(input);
        if (!v) return "not a whole number";
        if (*v < min || *v > max) return "out of range " + range;
        return std::string();
      },
      "UINT in [" + std::to_string(min) + " - " + std::to_string(max) + "]",
      std::string(kAcceptsPrefix) + "a whole number " + range);
}

CLI::Validator ranged_check(std::uint64_t min, std::uint64_t max, std::function<std::string(const std::string&)> check,
                            const std::string& accepted) {
  const std::string words = accepted.empty() ? "a whole number " + std::to_string(min) + ".." + std::to_string(max)
                                             : accepted;
  return CLI::Validator([check](std::string& input) { return check(input); },
                        "UINT in [" + std::to_string(min) + " - " + std::to_string(max) + "]",
                        std::string(kAcceptsPrefix) + words);
}

CLI::Validator non_empty(const std::string& accepted) {
  return CLI::Validator([](std::string& input) { return input.empty() ? std::string("an empty value") : std::string(); },
                        "", std::string(kAcceptsPrefix) + accepted);
}

CLI::Validator text_check(std::function<std::string(const std::string&)> check, const std::string& accepted) {
  return CLI::Validator([check](std::string& input) { return check(input); }, "",
                        std::string(kAcceptsPrefix) + accepted);
}

CLI::Validator size_check(std::uint64_t min) {
  return CLI::Validator(
      [min](std::string& input) -> std::string {
        const auto v = parse_size(input);
        if (!v) return "not a size";
        if (*v < min) return "below the smallest, " + size_text(min);
        return std::string();
      },
      "SIZE",
      std::string(kAcceptsPrefix) + "a size of at least " + size_text(min) +
          ": bytes, or a whole number with K, M, G or T (powers of 1024), as in 512M or 4G");
}

std::vector<CLI::Validator> validators_of(const CLI::Option& o) {
  // get_validator(int) is not const in CLI11 2.1; it only reads here.
  auto& opt = const_cast<CLI::Option&>(o);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  std::vector<CLI::Validator> out;
  for (int i = 0;; ++i) {
    try {
      out.push_back(*opt.get_validator(i));
    } catch (const CLI::OptionNotFound&) {
      return out;
    }
  }
}

std::string accepted_text(const CLI::Option& o) {
  for (const CLI::Validator& v : validators_of(o)) {
    const std::string& name = v.get_name();
    if (name.rfind(kAcceptsPrefix, 0) == 0) return name.substr(kAcceptsPrefix.size());
  }
  const auto parts = split_type(o.get_type_name());
  std::string words;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string w = description_words(parts[i]);
    if (w.empty()) continue;
    words += (words.empty() ? "" : " and ") + w;
  }
  if (!words.empty()) return words;
  const std::string type_words = parts.empty() ? std::string() : number_words(parts[0]);
  if (!type_words.empty()) return type_words;
  if (!o.get_description().empty()) return "see its help: " + o.get_description();
  return "see --help";
}

}  // namespace cudasync::cli
