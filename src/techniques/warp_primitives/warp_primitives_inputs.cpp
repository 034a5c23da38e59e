#include "techniques/warp_primitives/warp_primitives_inputs.hpp"

#include <algorithm>
#include <cctype>
#include <random>
#include <regex>

namespace cudasync::warp_primitives {

namespace {
std::optional<int> small_int(const std::string& s, int lo, int hi) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  const int v = std::stoi(s);
  if (v < lo || v > hi) return std::nullopt;
  return v;
}
}  // namespace

std::optional<Predicate> parse_predicate(const std::string& text) {
  return parse_thread_predicate(text, PredicateGrammar{true, kWarpSize});
}

Lanes evaluate(const Predicate& p, std::uint64_t seed) {
  const auto bits = evaluate_thread_predicate(p, kWarpSize, seed, 1);
  Lanes out{};
  std::copy(bits.begin(), bits.end(), out.begin());
  return out;
}

std::optional<Key> parse_key(const std::string& text) {
  Key k;
  k.text = text;
  static const std::regex form(R"(\s*lane\s*([%/&])\s*(\d+)\s*)");
  std::smatch m;
  if (std::regex_match(text, m, form)) {
    const auto v = small_int(m[2].str(), 1, 1 << 20);
    if (!v) return std::nullopt;
    k.k = *v;
    const char op = m[1].str()[0];
    k.kind = op == '%' ? Key::Kind::mod : op == '/' ? Key::Kind::div : Key::Kind::bit_and;
    return k;
  }
  if (const auto c = small_int(text, 0, 1 << 20)) {
    k.kind = Key::Kind::constant;
    k.k = *c;
    return k;
  }
  return std::nullopt;
}

Lanes evaluate(const Key& k) {
  Lanes out{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    int v = 0;
    switch (k.kind) {
      case Key::Kind::mod: v = lane % k.k; break;
      case Key::Kind::div: v = lane / k.k; break;
      case Key::Kind::bit_and: v = lane & k.k; break;
      case Key::Kind::constant: v = k.k; break;
    }
    out[static_cast<std::size_t>(lane)] = v;
  }
  return out;
}

Lanes make_values(ValueKind kind, std::uint64_t seed) {
  Lanes out{};
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ull + 7);
  for (int lane = 0; lane < kWarpSize; ++lane)
    out[static_cast<std::size_t>(lane)] = kind == ValueKind::tid ? lane : static_cast<std::int32_t>(rng() % 100);
  return out;
}

std::optional<std::uint32_t> parse_mask(const std::string& text) {
  // "0x..." is hex, anything else decimal (not octal: "010" is ten). No sign, no spaces.
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

}  // namespace cudasync::warp_primitives
