#include "core/course/answer_format.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace cudasync::course {

namespace {

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A whole number, decimal (with an optional sign) or 0x hex, within long long; nothing else.
std::optional<long long> whole(std::string_view typed) {
  std::string s = lower(trimmed(typed));
  if (s.empty()) return std::nullopt;
  const bool negative = s[0] == '-';
  std::string digits = (s[0] == '-' || s[0] == '+') ? s.substr(1) : s;
  int base = 10;
  if (digits.size() > 2 && digits.compare(0, 2, "0x") == 0) {
    base = 16;
    digits = digits.substr(2);
  }
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  for (char c : digits)
    if (base == 10 ? !std::isdigit(static_cast<unsigned char>(c)) : !std::isxdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
  errno = 0;
  const long long v = std::strtoll(digits.c_str(), nullptr, base);
  if (errno != 0) return std::nullopt;
  return negative ? -v : v;
}

std::optional<std::vector<long long>> lanes_of(std::string_view typed) {
  std::vector<long long> out;
  std::string s = trimmed(typed);
  if (lower(s) == "none") return out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    const std::string item = trimmed(std::string_view(s).substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    const std::size_t dash = item.find('-', 1);
    if (dash == std::string::npos) {
      const auto v = whole(item);
      if (!v || *v < 0) return std::nullopt;
      out.push_back(*v);
    } else {
      const auto a = whole(item.substr(0, dash)), b = whole(item.substr(dash + 1));
      if (!a || !b || *a < 0 || *b < *a || *b - *a > 4096) return std::nullopt;
      for (long long v = *a; v <= *b; ++v) out.push_back(v);
    }
    if (out.size() > 65536) return std::nullopt;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::string lanes_text(std::vector<long long> lanes) {
  std::sort(lanes.begin(), lanes.end());
  lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
  if (lanes.empty()) return "none";
  std::string s;
  for (std::size_t i = 0; i < lanes.size();) {
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(lanes[i]);
    if (j > i) s += "-" + std::to_string(lanes[j]);
    i = j + 1;
  }
  return s;
}

std::optional<std::string> canonical(const AnswerFormat& format, std::string_view typed) {
  switch (format.kind) {
    case AnswerKind::integer: {
      const auto v = whole(typed);
      if (!v) return std::nullopt;
      return std::to_string(*v);
    }
    case AnswerKind::mask: {
      const auto v = whole(typed);
      if (!v || *v < 0 || *v > 0xffffffffLL) return std::nullopt;
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(*v));
      return std::string(buf);
    }
    case AnswerKind::choice: {
      const std::string w = lower(trimmed(typed));
      if (std::find(format.choices.begin(), format.choices.end(), w) == format.choices.end()) return std::nullopt;
      return w;
    }
    case AnswerKind::lanes: {
      const auto v = lanes_of(typed);
      if (!v) return std::nullopt;
      return lanes_text(*v);
    }
  }
  return std::nullopt;
}

std::string accepted(const AnswerFormat& format) {
  switch (format.kind) {
    case AnswerKind::integer: return "a whole number (decimal, or hex as 0x1f)";
    case AnswerKind::mask: return "a 32-bit mask, hex (0x0000ffff) or decimal";
    case AnswerKind::choice: {
      std::string s = "one of ";
      for (std::size_t i = 0; i < format.choices.size(); ++i) s += (i ? ", " : "") + format.choices[i];
      return s;
    }
    case AnswerKind::lanes: return "numbers separated by commas, ranges allowed (3,11 or 0-3,8), or none";
  }
  return "";
}

}  // namespace cudasync::course
