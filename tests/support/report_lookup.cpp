#include "support/report_lookup.hpp"

#include <algorithm>

namespace cudasync::test {

namespace {
template <class T>
const T* by_id(const std::vector<T>& items, std::string_view id) {
  const auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.id == id; });
  return it == items.end() ? nullptr : &*it;
}
}  // namespace

const report::Check* find_check(const report::Section& s, std::string_view id) { return by_id(s.checks, id); }
const report::Fact* find_fact(const report::Section& s, std::string_view id) { return by_id(s.facts, id); }
const report::Table* find_table(const report::Section& s, std::string_view id) { return by_id(s.tables, id); }

std::size_t failed_count(const report::Section& s) {
  return static_cast<std::size_t>(std::count_if(s.checks.begin(), s.checks.end(), [](const auto& c) { return !c.passed; }));
}

}  // namespace cudasync::test
