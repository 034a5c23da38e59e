#include "techniques/named_barriers/named_barriers_inputs.hpp"

#include <limits>
#include <random>

#include "core/number_list.hpp"

namespace cudasync::named_barriers {

std::optional<Predicate> parse_predicate(const std::string& text) {
  return parse_thread_predicate(text, PredicateGrammar{false, 1024});
}

std::vector<std::int32_t> evaluate(const Predicate& p, int threads, std::uint64_t seed) {
  return evaluate_thread_predicate(p, threads, seed, 3);
}

std::vector<std::int32_t> make_input(int rounds, int producers, std::uint64_t seed) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(rounds) * static_cast<std::size_t>(producers));
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ull + 11);
  for (auto& v : out) v = static_cast<std::int32_t>(rng() % 10000);
  return out;
}

std::optional<std::vector<int>> parse_int_list(const std::string& text) {
  std::vector<long long> v;
  // split_numbers reads "1," as "1": a trailing comma is an empty last item here.
  if (text.empty() || text.back() == ',' || !split_numbers(text, v)) return std::nullopt;
  std::vector<int> out;
  for (long long x : v) {
    if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) return std::nullopt;
    out.push_back(static_cast<int>(x));
  }
  return out;
}

}  // namespace cudasync::named_barriers
