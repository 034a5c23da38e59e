#include "core/report/text_renderer.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "core/report/markdown_text.hpp"
#include "core/report/text_format.hpp"
#include "core/report/ansi.hpp"
#include "core/report/text_table.hpp"
#include "core/report/text_width.hpp"
#include "core/words/words.hpp"

namespace cudasync::report {

namespace {

using ansi::kBold;
using ansi::kReset;
const char* kNeedsGpuToken = "(gpu)";  // a table cell only a GPU can fill

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

// "x  meaning": the mark's character, two spaces and what it means, in the run's language.
std::string mark_meaning(RowMark m) {
  switch (m) {
    case RowMark::inactive: return words::core("mark.inactive");
    case RowMark::kept_own: return words::core("mark.kept-own");
    case RowMark::undefined_src: return words::core("mark.undefined-src");
    case RowMark::mismatch: return words::core("mark.mismatch");
    case RowMark::none: return "";
  }
  return "";
}

// Word-wraps `text` to `width` columns: the first line after `first`, the others after `rest`.
void wrap(const std::string& text, int width, const std::string& first, const std::string& rest, std::ostream& out) {
  const std::size_t room = static_cast<std::size_t>(std::max(20, width)) - std::max(first.size(), rest.size());
  const auto lines = wrap_text(text, room);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty() || lines.size() == 1) out << trim_right((i ? rest : first) + lines[i]) << '\n';
}

void wrap(const std::string& text, int width, const std::string& indent, std::ostream& out) {
  wrap(text, width, indent, indent, out);
}

std::string paint(const std::string& s, RowMark m, bool color) {
  if (!color || m == RowMark::none) return s;
  return std::string(mark_color(m)) + s + kReset;
}

// A cell as text: a value only a GPU gives is one short token, explained once under the table.
std::string cell_text(const Value& v, Format f) {
  return std::holds_alternative<NeedsGpu>(v) ? kNeedsGpuToken : format_value(v, f);
}

std::vector<std::vector<std::string>> cells_of(const Table& t) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : t.rows) {
    std::vector<std::string> r;
    for (std::size_t c = 0; c < t.columns.size(); ++c) r.push_back(cell_text(row.cells[c], t.columns[c].format));
    cells.push_back(std::move(r));
  }
  return cells;
}

bool any_marks(const Table& t) {
  return std::any_of(t.rows.begin(), t.rows.end(), [](const Row& r) { return r.mark != RowMark::none; });
}

bool any_needs_gpu(const Table& t) {
  return std::any_of(t.rows.begin(), t.rows.end(), [](const Row& r) {
    return std::any_of(r.cells.begin(), r.cells.end(), [](const Value& v) { return std::holds_alternative<NeedsGpu>(v); });
  });
}

// A row that says only "needs a GPU": every cell but its keys (gpu) or empty, at least one (gpu).
bool gpu_only(const Table& t, const Row& r) {
  bool any = false;
  for (std::size_t c = std::min(t.keys, r.cells.size()); c < r.cells.size(); ++c) {
    if (std::holds_alternative<NeedsGpu>(r.cells[c])) any = true;
    else if (!std::holds_alternative<Undefined>(r.cells[c])) return false;
  }
  return any;
}

// The table as the terminal shows it: rows that would say only "needs a GPU" leave it, and are
// named on one line under it (`gpu_rows`, by their keys). JSON, Markdown and HTML keep every row.
Table without_gpu_only_rows(const Table& t, std::vector<std::string>& gpu_rows) {
  if (t.lanes_across || t.keys == 0) return t;
  Table shown = t;
  shown.rows.clear();
  const auto cells = cells_of(t);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (!gpu_only(t, t.rows[r])) {
      shown.rows.push_back(t.rows[r]);
      continue;
    }
    std::string key;
    for (std::size_t c = 0; c < t.keys && c < cells[r].size(); ++c) key += (key.empty() ? "" : " ") + cells[r][c];
    gpu_rows.push_back(key);
  }
  return shown;
}

void legend(const Table& t, int width, std::ostream& out) {
  std::vector<RowMark> seen;
  for (const Row& r : t.rows)
    if (r.mark != RowMark::none && std::find(seen.begin(), seen.end(), r.mark) == seen.end()) seen.push_back(r.mark);
  std::sort(seen.begin(), seen.end());
  // "x  meaning": the key, two spaces, and the meaning wrapped under itself.
  const auto keyed = [&](const std::string& key, const std::string& meaning) {
    const std::string first = "    " + key + "  ";
    wrap(meaning, width, first, std::string(first.size(), ' '), out);
  };
  for (RowMark m : seen) keyed(std::string(1, mark_char(m)), mark_meaning(m).substr(3));
  if (any_needs_gpu(t)) keyed(kNeedsGpuToken, words::core("table.needs-gpu-legend"));
  for (const auto& l : t.legend) wrap(l, width, "    ", "      ", out);
}

// Rows become columns: one line per column, lanes across, folded into chunks that fit the width.
void render_across(const Table& t, const TextStyle& style, std::ostream& out) {
  const auto cells = cells_of(t);
  const bool marks = any_marks(t);
  std::size_t label_w = marks ? 4 : 0;
  for (const auto& c : t.columns) label_w = std::max(label_w, display_width(c.title));
  std::size_t cell_w = 1;
  for (const auto& r : cells)
    for (const auto& s : r) cell_w = std::max(cell_w, display_width(s));
  cell_w += 1;
  const std::size_t n = t.rows.size();
  const std::size_t width = static_cast<std::size_t>(std::max(style.width, 40));
  label_w = std::min(label_w, width / 3);
  const std::size_t room = width > 3 + label_w + cell_w ? width - 3 - label_w : cell_w;
  std::size_t per_chunk = std::max<std::size_t>(1, room / cell_w);
  // Fold at a power of two (8, 16, 32 lanes) so width segments stay whole on each line.
  std::size_t p2 = 1;
  while (p2 * 2 <= per_chunk) p2 *= 2;
  per_chunk = std::min(n, p2);
  const auto label = [&](const std::string& title) {
    const std::string shown = display_width(title) > label_w ? wrap_text(title, label_w).front() : title;
    return "  " + pad_right(shown, label_w) + " ";
  };
  for (std::size_t begin = 0; begin < n; begin += per_chunk) {
    const std::size_t end = std::min(n, begin + per_chunk);
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      out << label(t.columns[c].title);
      for (std::size_t r = begin; r < end; ++r) out << paint(pad_left(cells[r][c], cell_w), t.rows[r].mark, style.color);
      out << '\n';
    }
    if (marks) {
      out << label("mark");
      for (std::size_t r = begin; r < end; ++r)
        out << paint(pad_left(std::string(1, mark_char(t.rows[r].mark)), cell_w), t.rows[r].mark, style.color);
      out << '\n';
    }
    if (end < n) out << '\n';
  }
}

void render_rows(const Table& t, const TextStyle& style, std::ostream& out) {
  TextTable tt;
  tt.rows = cells_of(t);
  tt.keys = t.keys;
  tt.fold = t.fold;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    tt.headers.push_back(t.columns[c].title);
    bool text = false;  // text columns align left, numbers right
    for (const auto& row : t.rows) text = text || std::holds_alternative<std::string>(row.cells[c]);
    tt.right.push_back(!text);
  }
  if (any_marks(t)) {  // the mark column goes with the keys, so every folded block shows it
    const std::size_t at = std::min(t.keys, t.columns.size());
    tt.headers.insert(tt.headers.begin() + static_cast<std::ptrdiff_t>(at), "mark");
    tt.right.insert(tt.right.begin() + static_cast<std::ptrdiff_t>(at), false);
    for (std::size_t r = 0; r < t.rows.size(); ++r)
      tt.rows[r].insert(tt.rows[r].begin() + static_cast<std::ptrdiff_t>(at), std::string(1, mark_char(t.rows[r].mark)));
    tt.keys = at + 1;
  }
  for (const Row& r : t.rows) tt.paint.push_back(style.color && r.mark != RowMark::none ? mark_color(r.mark) : "");
  for (const auto& line : layout_table(tt, static_cast<std::size_t>(std::max(style.width, 40)))) out << line << '\n';
}

void render_measurements(const std::vector<Measurement>& ms, const TextStyle& style, std::ostream& out) {
  // On a run without a GPU, a table of "needs a GPU" rows says one thing: say it on one line.
  if (std::all_of(ms.begin(), ms.end(), [](const Measurement& m) { return m.samples.empty() && m.needs_gpu; })) {
    std::string titles;
    for (const auto& m : ms) titles += (titles.empty() ? "" : ", ") + m.title;
    wrap(words::core("measurement.all-need-gpu", {{"titles", titles}}), style.width, "  ", "    ", out);
    return;
  }
  TextTable tt;
  tt.headers = {"measurement", "median", "min", "max", "unit", "reps"};
  tt.right = {false, true, true, true, false, true};
  for (const auto& m : ms) {
    const std::string unit = unit_of(m.format);
    const auto number = [&](double v) { return format_value(v, m.format); };
    if (m.samples.empty())
      tt.rows.push_back({m.title, words::core(m.needs_gpu ? "measurement.needs-gpu" : "measurement.not-measured"), "", "",
                         unit, "-"});
    else
      tt.rows.push_back({m.title, number(m.median()), number(m.min()), number(m.max()), unit,
                         std::to_string(m.repetitions())});
    tt.paint.emplace_back();
  }
  for (const auto& line : layout_table(tt, static_cast<std::size_t>(std::max(style.width, 40)))) out << line << '\n';
  for (const auto& m : ms)
    if (!m.note.empty()) wrap("(" + m.title + ": " + m.note + ")", style.width, "    ", "     ", out);
}

void render_facts(const std::vector<Fact>& facts, const TextStyle& style, std::ostream& out) {
  const auto width = static_cast<std::size_t>(std::max(style.width, 40));
  std::size_t w = 0;
  for (const auto& f : facts) w = std::max(w, display_width(f.title));
  w = std::min(w, width / 2 - 4);
  const std::size_t room = width - 2 - w - 2;
  for (const auto& f : facts) {
    const std::string value = format_value(f.value, f.format, true);
    const std::string note = f.note.empty() ? "" : "   (" + f.note + ")";
    const std::string line = "  " + pad_right(f.title, w) + "  " + value;
    if (display_width(f.title) <= w && display_width(line + note) <= width) {
      out << trim_right(line + note) << '\n';
      continue;
    }
    // The title wraps in its column, the value and the note (on lines of its own) beside it.
    std::vector<std::string> right = wrap_text(value, room);
    if (!f.note.empty())
      for (auto& l : wrap_text("(" + f.note + ")", room)) right.push_back(std::move(l));
    const std::vector<std::string> left = wrap_text(f.title, w);
    for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i)
      out << trim_right("  " + pad_right(i < left.size() ? left[i] : "", w) + "  " + (i < right.size() ? right[i] : ""))
          << '\n';
  }
}

}  // namespace

void render_text(const Report& report, const TextStyle& style, std::ostream& out) {
  const auto bold = [&](const std::string& s) { return style.color ? std::string(kBold) + s + kReset : s; };
  const auto width = static_cast<std::size_t>(std::max(style.width, 40));
  const auto heading = [&](const std::string& text, std::size_t hang) {
    const auto lines = wrap_text(text, width - hang);
    for (std::size_t i = 0; i < lines.size(); ++i) out << (i ? std::string(hang, ' ') : "") << bold(lines[i]) << '\n';
  };
  if (!report.title.empty()) heading(report.title, 2);
  if (!report.document.empty()) {
    if (!report.title.empty()) out << '\n';
    if (report.document_markdown) out << render_markdown_text(report.document, width, style.color);
    else out << report.document << (report.document.back() == '\n' ? "" : "\n");
  }
  for (const auto& s : report.sections) {
    out << '\n';
    // "== title ==", or "== title" on as many lines as it needs.
    const std::string head = "== " + s.title + " ==";
    heading(display_width(head) <= width ? head : "== " + s.title, 3);
    for (const auto& p : s.paragraphs) wrap(p, style.width, "  ", out);
    if (!s.facts.empty()) render_facts(s.facts, style, out);
    for (const auto& table : s.tables) {
      out << '\n';
      wrap(table.title, style.width, "  ", "    ", out);
      std::vector<std::string> gpu_rows;
      const Table t = without_gpu_only_rows(table, gpu_rows);
      if (!t.rows.empty() || gpu_rows.empty()) {
        if (t.lanes_across) render_across(t, style, out);
        else render_rows(t, style, out);
        legend(t, style.width, out);
      }
      if (!gpu_rows.empty()) {
        std::string rows;
        for (const auto& r : gpu_rows) rows += (rows.empty() ? "" : ", ") + r;
        wrap(words::core(t.rows.empty() ? "table.all-rows-need-gpu" : "table.rows-need-gpu", {{"rows", rows}}),
             style.width, "    ", "      ", out);
      }
    }
    if (!s.measurements.empty()) {
      out << '\n';
      render_measurements(s.measurements, style, out);
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
    for (const auto& n : s.notes) {
      const std::string text = words::core("report.note", {{"note", n}});
      const std::size_t lead = display_width(words::core("report.note", {{"note", ""}}));
      wrap(text, style.width, "  ", std::string(2 + lead, ' '), out);
    }
  }
  if (!report.waived.empty()) {
    out << '\n' << bold("== " + words::core("report.waived-heading") + " ==") << '\n';
    for (const auto& w : report.waived) wrap(w.part + ": " + w.reason, style.width, "  ", "    ", out);
  }
  if (report.has_checks()) {
    out << '\n' << words::core("report.checks-line", {{"passed", report.checks_passed()}, {"failed", report.checks_failed()}});
    if (!report.waived.empty()) out << words::core("report.checks-waived", {{"waived", report.waived.size()}});
    out << '\n';
  }
}

}  // namespace cudasync::report
