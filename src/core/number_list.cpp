#include "core/number_list.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace cudasync {

namespace {
template <typename T>
std::string join(const std::vector<T>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}
}  // namespace

std::string join_numbers(const std::vector<long long>& v) { return join(v); }
std::string join_numbers(const std::vector<int>& v) { return join(v); }

bool split_numbers(const std::string& s, std::vector<long long>& out) {
  out.clear();
  if (s.empty()) return true;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) return false;
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (*end != '\0') return false;
    out.push_back(v);
  }
  return true;
}

std::optional<long long> whole_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE || end == text.c_str()) return std::nullopt;
  return v;
}

std::optional<std::uint32_t> parse_mask(const std::string& text) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = hex ? text.substr(2) : text;
  if (digits.empty() || digits.size() > (hex ? 8u : 10u)) return std::nullopt;
  for (char c : digits) {
    const bool ok = hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : (c >= '0' && c <= '9');
    if (!ok) return std::nullopt;
  }
  const unsigned long long v = std::stoull(digits, nullptr, hex ? 16 : 10);
  if (v > 0xffffffffull) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

}  // namespace cudasync
