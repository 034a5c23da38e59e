#include "techniques/warp_primitives/warp_primitives_inputs.hpp"

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
  using K = Predicate::Kind;
  Predicate p;
  p.text = text;
  if (text == "even") p.kind = K::even;
  else if (text == "odd") p.kind = K::odd;
  else if (text == "true") p.kind = K::always;
  else if (text == "false") p.kind = K::never;
  else if (text == "random") p.kind = K::random;
  else {
    static const std::regex form(R"(\s*lane\s*(<=|>=|==|!=|<|>)\s*(\d+)\s*)");
    std::smatch m;
    if (!std::regex_match(text, m, form)) return std::nullopt;
    const auto k = small_int(m[2].str(), 0, kWarpSize);
    if (!k) return std::nullopt;
    p.k = *k;
    const std::string op = m[1].str();
    p.kind = op == "<" ? K::lt : op == "<=" ? K::le : op == ">" ? K::gt : op == ">=" ? K::ge : op == "==" ? K::eq : K::ne;
  }
  return p;
}

Lanes evaluate(const Predicate& p, std::uint64_t seed) {
  using K = Predicate::Kind;
  Lanes out{};
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    bool v = false;
    switch (p.kind) {
      case K::even: v = lane % 2 == 0; break;
      case K::odd: v = lane % 2 == 1; break;
      case K::always: v = true; break;
      case K::never: v = false; break;
      case K::random: v = (rng() >> 63) != 0; break;
      case K::lt: v = lane < p.k; break;
      case K::le: v = lane <= p.k; break;
      case K::gt: v = lane > p.k; break;
      case K::ge: v = lane >= p.k; break;
      case K::eq: v = lane == p.k; break;
      case K::ne: v = lane != p.k; break;
    }
    out[static_cast<std::size_t>(lane)] = v ? 1 : 0;
  }
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
