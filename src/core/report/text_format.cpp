#include "core/report/text_format.hpp"

#include "core/words/words.hpp"

#include <cmath>
#include <cstdio>

namespace cudasync::report {

namespace {

// A real with no stated format: three decimals, one past 100, e-notation when tiny or huge.
std::string plain_real(double v) {
  const double a = std::fabs(v);
  if (a != 0.0 && (a >= 1e6 || a < 1e-2)) return printf_number("%.3e", v);
  return fixed(v, a >= 100 ? 1 : 3);
}

std::string grouped_signed(std::int64_t v) {
  return v < 0 ? "-" + grouped(static_cast<std::uint64_t>(-(v + 1)) + 1) : grouped(static_cast<std::uint64_t>(v));
}

std::string mask_bits(std::uint32_t m) {
  std::string s;
  for (int b = 31; b >= 0; --b) {
    s += ((m >> b) & 1u) ? '1' : '0';
    if (b % 8 == 0 && b) s += '_';
  }
  return s;
}

std::string bytes_text(double v) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(v) >= 1024.0 && u < 4) v /= 1024.0, ++u;
  return u == 0 ? fixed(v, 0) + " bytes" : fixed(v, 1) + " " + units[u];
}

std::string number(double v, bool integral, Format f) {
  switch (f) {
    case Format::plain: return integral ? std::to_string(static_cast<std::int64_t>(v)) : plain_real(v);
    case Format::count:
      return integral || v == std::floor(v) ? grouped_signed(static_cast<std::int64_t>(v)) : fixed(v, 1);
    case Format::exact: return integral ? std::to_string(static_cast<std::int64_t>(v)) : printf_number("%.17g", v);
    case Format::hex32: {
      char b[16];
      std::snprintf(b, sizeof b, "0x%08x", static_cast<std::uint32_t>(static_cast<std::int64_t>(v)));
      return b;
    }
    case Format::bin32: return mask_bits(static_cast<std::uint32_t>(static_cast<std::int64_t>(v)));
    case Format::ns:
    case Format::cycles:
    case Format::gbps: return integral ? grouped_signed(static_cast<std::int64_t>(v)) : fixed(v, 1);
    case Format::ratio: return fixed(v, 3);
    case Format::percent: {
      const double p = 100.0 * v;
      return (p != 0.0 && std::fabs(p) < 0.1 ? printf_number("%.2g", p) : fixed(p, 1)) + "%";
    }
    case Format::ms: return integral ? grouped_signed(static_cast<std::int64_t>(v)) : fixed(v, 3);
    case Format::bytes: return bytes_text(v);
    case Format::error: return printf_number("%.3e", v);
  }
  return plain_real(v);
}

}  // namespace

std::string format_value(const Value& v, Format format, bool with_unit) {
  if (std::holds_alternative<Undefined>(v)) return "-";
  if (std::holds_alternative<NeedsGpu>(v)) return words::core("measurement.needs-gpu");
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  const bool integral = std::holds_alternative<std::int64_t>(v);
  const double d = integral ? static_cast<double>(std::get<std::int64_t>(v)) : std::get<double>(v);
  // Integers keep every digit: a double cannot hold every 64-bit integer.
  if (integral && (format == Format::plain || format == Format::exact))
    return std::to_string(std::get<std::int64_t>(v));
  if (integral && format == Format::count) return grouped_signed(std::get<std::int64_t>(v));
  std::string text = number(d, integral, format);
  const std::string unit = unit_of(format);
  if (with_unit && !unit.empty() && format != Format::percent && format != Format::bytes) text += " " + unit;
  return text;
}

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string printf_number(const char* format, double v) {
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

std::string grouped(std::uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string list_of(const std::vector<int>& v, std::size_t limit) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < limit; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > limit) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return s;
}

std::string ranges_text(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    s += (i ? ", " : "") + std::to_string(v[i]) + (j > i ? "-" + std::to_string(v[j]) : "");
    i = j;
  }
  return s;
}

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < words.size(); ++i) s += (i ? sep : "") + words[i];
  return s;
}

}  // namespace cudasync::report
