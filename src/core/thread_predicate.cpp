#include "core/thread_predicate.hpp"

#include <random>
#include <regex>

namespace cudasync {

std::optional<ThreadPredicate> parse_thread_predicate(const std::string& text, const PredicateGrammar& grammar) {
  using K = ThreadPredicate::Kind;
  ThreadPredicate p;
  p.text = text;
  if (text == "even") p.kind = K::even;
  else if (text == "odd") p.kind = K::odd;
  else if (text == "true") p.kind = K::always;
  else if (text == "false") p.kind = K::never;
  else if (text == "random") p.kind = K::random;
  else {
    static const std::regex form(R"(\s*(lane|warp|tid)\s*(<=|>=|==|!=|<|>)\s*(\d{1,9})\s*)");
    std::smatch m;
    if (!std::regex_match(text, m, form)) return std::nullopt;
    const std::string var = m[1].str(), op = m[2].str();
    if (grammar.lane_only && var != "lane") return std::nullopt;
    p.k = std::stoi(m[3].str());
    if (p.k > grammar.max_k) return std::nullopt;
    p.var = var == "lane" ? ThreadPredicate::Var::lane : var == "warp" ? ThreadPredicate::Var::warp : ThreadPredicate::Var::tid;
    p.kind = op == "<" ? K::lt : op == "<=" ? K::le : op == ">" ? K::gt : op == ">=" ? K::ge : op == "==" ? K::eq : K::ne;
  }
  return p;
}

std::vector<std::int32_t> evaluate_thread_predicate(const ThreadPredicate& p, int threads, std::uint64_t seed,
                                                    std::uint64_t stream) {
  using K = ThreadPredicate::Kind;
  using V = ThreadPredicate::Var;
  std::vector<std::int32_t> out(static_cast<std::size_t>(threads));
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + stream);
  for (int t = 0; t < threads; ++t) {
    const int x = p.var == V::lane ? t % 32 : p.var == V::warp ? t / 32 : t;
    bool v = false;
    switch (p.kind) {
      case K::even: v = t % 2 == 0; break;
      case K::odd: v = t % 2 == 1; break;
      case K::always: v = true; break;
      case K::never: v = false; break;
      case K::random: v = (rng() >> 63) != 0; break;
      case K::lt: v = x < p.k; break;
      case K::le: v = x <= p.k; break;
      case K::gt: v = x > p.k; break;
      case K::ge: v = x >= p.k; break;
      case K::eq: v = x == p.k; break;
      case K::ne: v = x != p.k; break;
    }
    out[static_cast<std::size_t>(t)] = v ? 1 : 0;
  }
  return out;
}

}  // namespace cudasync
