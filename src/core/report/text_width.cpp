#include "core/report/text_width.hpp"

#include <algorithm>
#include <cstdint>

namespace cudasync::report {

namespace {

struct CodePoint {
  char32_t cp = 0;
  std::size_t len = 1;  // bytes; an ANSI escape sequence is one "code point" of cp 0x1b
};

CodePoint next(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == 0x1b && i + 1 < s.size() && s[i + 1] == '[') {  // CSI: ESC [ params final(0x40..0x7e)
    std::size_t j = i + 2;
    while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
    return {0x1b, std::min(s.size(), j + 1) - i};
  }
  if (c < 0x80) return {c, 1};
  const std::size_t len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (i + len > s.size()) return {0xfffd, 1};
  char32_t cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : len == 4 ? c & 0x07 : 0xfffd;
  for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return {cp, len};
}

bool wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) || (c >= 0x3041 && c <= 0x33ff) ||
         (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) ||
         (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) ||
         (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
         (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd);
}

bool zero_width(char32_t c) {
  return c == 0x1b || (c >= 0x0300 && c <= 0x036f) || (c >= 0x200b && c <= 0x200f) || (c >= 0xfe00 && c <= 0xfe0f);
}

std::size_t width_of(char32_t c) { return zero_width(c) ? 0 : wide(c) ? 2 : 1; }

// No line may start with these (they close what came before) ...
bool closing(char32_t c) {
  static const std::u32string marks = U"，。、；：？！）」』》〉】…,.;:!?)]}'\"%";
  return marks.find(c) != std::u32string::npos;
}
// ... or end with these.
bool opening(char32_t c) {
  static const std::u32string marks = U"（「『《〈【([{";
  return marks.find(c) != std::u32string::npos;
}

bool space(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

struct Piece {
  std::string text;
  std::size_t width = 0;
  bool space_before = false;
};

std::vector<Piece> pieces_of(std::string_view s) {
  std::vector<Piece> out;
  Piece cur;
  bool pending_space = false;
  char32_t last = 0;  // the last visible code point of `cur`
  const auto close = [&] {
    if (!cur.text.empty()) out.push_back(std::move(cur));
    cur = Piece{};
    last = 0;
  };
  for (std::size_t i = 0; i < s.size();) {
    const CodePoint p = next(s, i);
    const std::string_view bytes = s.substr(i, p.len);
    i += p.len;
    if (space(p.cp)) {
      close();
      pending_space = true;
      continue;
    }
    if (p.cp != 0x1b && !cur.text.empty() && last != 0) {
      // A break between two characters of one word: around a wide character, unless punctuation binds.
      const bool boundary = (wide(p.cp) || wide(last)) && !closing(p.cp) && !opening(last);
      if (boundary) close();
    }
    if (cur.text.empty()) {
      cur.space_before = pending_space;
      pending_space = false;
    }
    cur.text += bytes;
    cur.width += width_of(p.cp);
    if (p.cp != 0x1b && !zero_width(p.cp)) last = p.cp;
  }
  close();
  return out;
}

}  // namespace

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const CodePoint p = next(s, i);
    w += width_of(p.cp);
    i += p.len;
  }
  return w;
}

std::string pad_right(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string pad_left(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : std::string(width - w, ' ') + s;
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t width) {
  width = std::max<std::size_t>(1, width);
  std::vector<std::string> lines;
  std::string line;
  std::size_t line_w = 0;
  const auto flush = [&] {
    lines.push_back(line);
    line.clear();
    line_w = 0;
  };
  for (Piece& p : pieces_of(text)) {
    const std::size_t sep = (line_w > 0 && p.space_before) ? 1 : 0;
    if (line_w > 0 && line_w + sep + p.width > width) flush();
    if (line_w > 0 && p.space_before) {
      line += ' ';
      ++line_w;
    }
    if (p.width <= width - line_w) {
      line += p.text;
      line_w += p.width;
      continue;
    }
    // Wider than a line: broken between characters.
    for (std::size_t i = 0; i < p.text.size();) {
      const CodePoint c = next(p.text, i);
      const std::size_t w = width_of(c.cp);
      if (line_w > 0 && line_w + w > width) flush();
      line.append(p.text, i, c.len);
      line_w += w;
      i += c.len;
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::size_t longest_piece(std::string_view text) {
  std::size_t w = 0;
  for (const Piece& p : pieces_of(text)) w = std::max(w, p.width);
  return w;
}

std::string trim_right(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

}  // namespace cudasync::report
