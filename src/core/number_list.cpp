#include "core/number_list.hpp"

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

}  // namespace cudasync
