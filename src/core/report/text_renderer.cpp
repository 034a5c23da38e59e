#include "core/report/text_renderer.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string_view>

#include "core/report/text_format.hpp"

namespace cudasync::report {

namespace {

const char* kReset = "\x1b[0m";
const char* kBold = "\x1b[1m";

const char* mark_color(RowMark m) {
  switch (m) {
    case RowMark::inactive: return "\x1b[2m";       // dim: no value
    case RowMark::kept_own: return "\x1b[33m";      // yellow: kept its own value
    case RowMark::undefined_src: return "\x1b[35m"; // magenta: undefined source
    case RowMark::mismatch: return "\x1b[1;31m";    // bold red: GPU != model
    case RowMark::none: return "";
  }
  return "";
}

// One character per mark for the "mark" row, so the information survives without colour.
char mark_char(RowMark m) {
  switch (m) {
    case RowMark::inactive: return 'x';
    case RowMark::kept_own: return 'k';
    case RowMark::undefined_src: return '?';
    case RowMark::mismatch: return '!';
    case RowMark::none: return '.';
  }
  return '.';
}

const char* mark_meaning(RowMark m) {
  switch (m) {
    case RowMark::inactive: return "x  lane did not take part (not in the mask, or no such thread): no value";
    case RowMark::kept_own: return "k  source lane outside the lane's segment: it kept its own value";
    case RowMark::undefined_src: return "?  source lane did not take part: CUDA leaves the value undefined";
    case RowMark::mismatch: return "!  the GPU and the reference model disagree";
    case RowMark::none: return "";
  }
  return "";
}

std::string pad_left(const std::string& s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
std::string pad_right(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

// Display width of UTF-8 text: CJK characters take two columns, other code points one.
std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    w += len >= 3 ? 2 : 1;
    i += len;
  }
  return w;
}

// The pieces a line may break between: words (runs of narrow characters between spaces), and each
// wide (CJK) character on its own, since Chinese text has no spaces. Closing punctuation stays with
// the character before it and opening punctuation with the one after it.
struct Piece {
  std::string text;
  bool space_before = false;
};

bool is_wide(std::string_view ch) { return ch.size() >= 3; }

bool opens(std::string_view ch) {
  for (const char* p : {"\xef\xbc\x88", "\xe3\x80\x8c", "\xe3\x80\x8a", "\xe2\x80\x9c"})  // （ 「 《 “
    if (ch == p) return true;
  return false;
}

bool closes(std::string_view ch) {
  for (const char* p : {"\xef\xbc\x8c", "\xe3\x80\x82", "\xef\xbc\x9b", "\xef\xbc\x9a", "\xe3\x80\x81",
                        "\xef\xbc\x81", "\xef\xbc\x9f", "\xef\xbc\x89", "\xe3\x80\x8d", "\xe3\x80\x8b",
                        "\xe2\x80\x9d"})  // ， 。 ； ： 、 ！ ？ ） 」 》 ”
    if (ch == p) return true;
  return false;
}

std::vector<Piece> pieces_of(const std::string& text) {
  std::vector<Piece> out;
  bool space = false, last_wide = false;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\t' || c == '\n') {
      space = true;
      ++i;
      continue;
    }
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    const std::string ch = text.substr(i, len);
    i += len;
    const bool wide = is_wide(ch);
    const bool after_opening = !out.empty() && !space && out.back().text.size() >= 3 &&
                               opens(std::string_view(out.back().text).substr(out.back().text.size() - 3));
    const bool join = !out.empty() && !space && (after_opening || (wide ? closes(ch) : !last_wide));
    if (join) out.back().text += ch;
    else out.push_back({ch, space});
    space = false;
    last_wide = wide;
  }
  return out;
}

// Wraps `text` to `width` columns: the first line after `first`, the others after `rest`.
void wrap(const std::string& text, int width, const std::string& first, const std::string& rest, std::ostream& out) {
  std::string line;
  const std::string* indent = &first;
  const auto limit = [&] { return static_cast<std::size_t>(std::max(20, width)) - indent->size(); };
  for (const Piece& p : pieces_of(text)) {
    const std::string gap = p.space_before ? " " : "";
    if (!line.empty() && display_width(line) + display_width(gap + p.text) > limit()) {
      out << *indent << line << '\n';
      line.clear();
      indent = &rest;
    }
    line += (line.empty() ? "" : gap) + p.text;
  }
  if (!line.empty()) out << *indent << line << '\n';
}

void wrap(const std::string& text, int width, const std::string& indent, std::ostream& out) {
  wrap(text, width, indent, indent, out);
}

std::string paint(const std::string& s, RowMark m, bool color) {
  if (!color || m == RowMark::none) return s;
  return std::string(mark_color(m)) + s + kReset;
}

std::vector<std::vector<std::string>> cells_of(const Table& t) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : t.rows) {
    std::vector<std::string> r;
    for (std::size_t c = 0; c < t.columns.size(); ++c) r.push_back(format_value(row.cells[c], t.columns[c].format));
    cells.push_back(std::move(r));
  }
  return cells;
}

bool any_marks(const Table& t) {
  return std::any_of(t.rows.begin(), t.rows.end(), [](const Row& r) { return r.mark != RowMark::none; });
}

void legend(const Table& t, int width, std::ostream& out) {
  std::vector<RowMark> seen;
  for (const Row& r : t.rows)
    if (r.mark != RowMark::none && std::find(seen.begin(), seen.end(), r.mark) == seen.end()) seen.push_back(r.mark);
  std::sort(seen.begin(), seen.end());
  for (RowMark m : seen) out << "    " << mark_meaning(m) << '\n';
  // A line that fits is printed as written (its own indentation kept); a longer one is wrapped.
  for (const auto& l : t.legend) {
    if (display_width("    " + l) <= static_cast<std::size_t>(width)) out << "    " << l << '\n';
    else wrap(l, width, "    ", "      ", out);
  }
}

// Rows become columns: one line per column, lanes across, folded into chunks that fit the width.
void render_across(const Table& t, const TextStyle& style, std::ostream& out) {
  const auto cells = cells_of(t);
  const bool marks = any_marks(t);
  std::size_t label_w = marks ? 4 : 0;
  for (const auto& c : t.columns) label_w = std::max(label_w, c.title.size());
  std::size_t cell_w = 1;
  for (const auto& r : cells)
    for (const auto& s : r) cell_w = std::max(cell_w, s.size());
  cell_w += 1;
  const std::size_t n = t.rows.size();
  const std::size_t room = static_cast<std::size_t>(std::max(style.width, 40)) - 2 - label_w - 1;
  std::size_t per_chunk = std::max<std::size_t>(1, room / cell_w);
  // Fold at a power of two (8, 16, 32 lanes) so width segments stay whole on each line.
  std::size_t p2 = 1;
  while (p2 * 2 <= per_chunk) p2 *= 2;
  per_chunk = std::min(n, p2);
  for (std::size_t begin = 0; begin < n; begin += per_chunk) {
    const std::size_t end = std::min(n, begin + per_chunk);
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      out << "  " << pad_right(t.columns[c].title, label_w) << ' ';
      for (std::size_t r = begin; r < end; ++r) out << paint(pad_left(cells[r][c], cell_w), t.rows[r].mark, style.color);
      out << '\n';
    }
    if (marks) {
      out << "  " << pad_right("mark", label_w) << ' ';
      for (std::size_t r = begin; r < end; ++r)
        out << paint(pad_left(std::string(1, mark_char(t.rows[r].mark)), cell_w), t.rows[r].mark, style.color);
      out << '\n';
    }
    if (end < n) out << '\n';
  }
}

void render_rows(const Table& t, const TextStyle& style, std::ostream& out) {
  const auto cells = cells_of(t);
  const bool marks = any_marks(t);
  std::vector<std::size_t> w(t.columns.size());
  std::vector<bool> text(t.columns.size(), false);  // text columns align left, numbers right
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    w[c] = t.columns[c].title.size();
    for (const auto& r : cells) w[c] = std::max(w[c], r[c].size());
    for (const auto& row : t.rows) text[c] = text[c] || std::holds_alternative<std::string>(row.cells[c]);
  }
  const auto align = [&](const std::string& s, std::size_t c) { return text[c] ? pad_right(s, w[c]) : pad_left(s, w[c]); };
  std::string header;
  for (std::size_t c = 0; c < t.columns.size(); ++c) header += (c ? "  " : "") + align(t.columns[c].title, c);
  if (marks) header += "  mark";
  header.erase(header.find_last_not_of(' ') + 1);
  out << "  " << header << '\n';
  // A text last column too wide for the page is wrapped under itself.
  const std::size_t last = t.columns.size() - 1;
  std::size_t before_last = 2;
  for (std::size_t c = 0; c < last; ++c) before_last += w[c] + 2;
  const bool wrap_last = !marks && text[last] && before_last + w[last] > static_cast<std::size_t>(style.width) &&
                         before_last + 20 <= static_cast<std::size_t>(style.width);
  for (std::size_t r = 0; r < cells.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      if (c == last && wrap_last) break;
      line += (c ? "  " : "") + align(cells[r][c], c);
    }
    if (marks) line += std::string("     ") + mark_char(t.rows[r].mark);
    if (wrap_last) {
      std::ostringstream wrapped;
      wrap(cells[r][last], style.width, std::string(before_last, ' '), wrapped);
      std::string rest = wrapped.str();
      rest = rest.substr(std::min(rest.size(), before_last));  // the first line continues `line`
      out << "  " << paint(line, t.rows[r].mark, style.color) << "  " << rest;
      continue;
    }
    out << "  " << paint(line, t.rows[r].mark, style.color) << '\n';
  }
}

void render_measurements(const std::vector<Measurement>& ms, std::ostream& out) {
  std::size_t name_w = 11, unit_w = 4;
  for (const auto& m : ms) {
    name_w = std::max(name_w, m.title.size());
    unit_w = std::max(unit_w, std::string(unit_of(m.format)).size());
  }
  out << "  " << pad_right("measurement", name_w) << "  " << pad_left("median", 9) << " " << pad_left("min", 9)
      << " " << pad_left("max", 9) << "  " << pad_right("unit", unit_w) << "  reps\n";
  for (const auto& m : ms) {
    const std::string unit = unit_of(m.format);
    const auto number = [&](double v) { return format_value(v, m.format); };
    out << "  " << pad_right(m.title, name_w) << "  ";
    if (m.samples.empty()) {
      out << pad_left(m.needs_gpu ? "needs a GPU" : "not measured", 29) << "  " << pad_right(unit, unit_w) << "     -";
    } else {
      out << pad_left(number(m.median()), 9) << " " << pad_left(number(m.min()), 9) << " "
          << pad_left(number(m.max()), 9) << "  " << pad_right(unit, unit_w) << "  " << pad_left(std::to_string(m.repetitions()), 4);
    }
    out << '\n';
    if (!m.note.empty()) out << "      (" << m.note << ")\n";
  }
}

}  // namespace

void render_text(const Report& report, const TextStyle& style, std::ostream& out) {
  const auto bold = [&](const std::string& s) { return style.color ? std::string(kBold) + s + kReset : s; };
  out << bold(report.title) << '\n';
  if (!report.document.empty()) out << '\n' << report.document << (report.document.back() == '\n' ? "" : "\n");
  for (const auto& s : report.sections) {
    out << '\n' << bold("== " + s.title + " ==") << '\n';
    for (const auto& p : s.paragraphs) wrap(p, style.width, "  ", out);
    if (!s.facts.empty()) {
      std::size_t w = 0;
      for (const auto& f : s.facts) w = std::max(w, f.title.size());
      for (const auto& f : s.facts) {
        const std::string line = "  " + pad_right(f.title, w) + "  " + format_value(f.value, f.format, true);
        const std::string note = f.note.empty() ? "" : "   (" + f.note + ")";
        if (display_width(line + note) <= static_cast<std::size_t>(style.width)) {
          out << line << note << '\n';
        } else {  // a long value wraps under itself, and the note goes under the value
          const std::string indent(w + 4, ' ');
          if (display_width(line) <= static_cast<std::size_t>(style.width)) out << line << '\n';
          else wrap(format_value(f.value, f.format, true), style.width, "  " + pad_right(f.title, w) + "  ", indent, out);
          if (!f.note.empty()) wrap("(" + f.note + ")", style.width, indent, out);
        }
      }
    }
    for (const auto& t : s.tables) {
      out << '\n' << "  " << t.title << '\n';
      if (t.lanes_across) render_across(t, style, out);
      else render_rows(t, style, out);
      legend(t, style.width, out);
    }
    if (!s.measurements.empty()) {
      out << '\n';
      render_measurements(s.measurements, out);
    }
    if (!s.checks.empty()) out << '\n';
    for (const auto& c : s.checks) {
      const std::string tag = c.passed ? "[PASS]" : "[FAIL]";
      std::ostringstream line;
      wrap(tag + " " + c.title + (c.detail.empty() ? "" : ": " + c.detail), style.width, "  ", "         ", line);
      std::string text = line.str();
      if (style.color) text.replace(2, tag.size(), std::string(c.passed ? "\x1b[32m" : "\x1b[1;31m") + tag + kReset);
      out << text;
    }
    for (const auto& n : s.notes) wrap("note: " + n, style.width, "  ", out);
  }
  if (!report.waived.empty()) {
    out << '\n' << bold("== waived ==") << '\n';
    for (const auto& w : report.waived) wrap(w.part + ": " + w.reason, style.width, "  ", out);
  }
  if (report.has_checks()) {
    out << '\n' << "checks: " << report.checks_passed() << " passed, " << report.checks_failed() << " failed";
    if (!report.waived.empty()) out << ", " << report.waived.size() << " waived";
    out << '\n';
  }
}

}  // namespace cudasync::report
