#include "core/report/table_export.hpp"

#include <cmath>
#include <ostream>

#include <nlohmann/json.hpp>

#include "core/report/text_format.hpp"

namespace cudasync::report {

namespace {

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "<br>";
    else out += c;
  }
  return out;
}

void md_table(const std::vector<std::string>& headers, const std::vector<bool>& right,
              const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  out << '|';
  for (const auto& h : headers) out << ' ' << md_cell(h) << " |";
  out << "\n|";
  for (std::size_t c = 0; c < headers.size(); ++c) out << (right[c] ? "---:|" : "---|");
  out << '\n';
  for (const auto& r : rows) {
    out << '|';
    for (const auto& cell : r) out << ' ' << md_cell(cell) << " |";
    out << '\n';
  }
}

std::string raw(const Value& v) {
  if (std::holds_alternative<Undefined>(v) || std::holds_alternative<NeedsGpu>(v)) return "";
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  const double d = std::get<double>(v);
  return std::isfinite(d) ? nlohmann::json(d).dump() : "";
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void render_markdown(const Report& report, std::ostream& out) {
  if (!report.title.empty()) out << "# " << report.title << "\n";
  if (!report.document.empty()) out << (report.title.empty() ? "" : "\n") << report.document << (report.document.back() == '\n' ? "" : "\n");
  for (const auto& s : report.sections) {
    out << "\n## " << s.title << "\n";
    for (const auto& p : s.paragraphs) out << '\n' << p << '\n';
    if (!s.facts.empty()) {
      out << '\n';
      std::vector<std::vector<std::string>> rows;
      for (const auto& f : s.facts) rows.push_back({f.title, format_value(f.value, f.format, true), f.note});
      md_table({"fact", "value", "note"}, {false, false, false}, rows, out);
    }
    for (const auto& t : s.tables) {
      out << "\n### " << t.title << "\n\n";
      std::vector<std::string> headers;
      std::vector<bool> right;
      for (std::size_t c = 0; c < t.columns.size(); ++c) {
        headers.push_back(t.columns[c].title);
        bool text = false;
        for (const auto& r : t.rows) text = text || std::holds_alternative<std::string>(r.cells[c]);
        right.push_back(!text);
      }
      const bool marks = std::any_of(t.rows.begin(), t.rows.end(), [](const Row& r) { return r.mark != RowMark::none; });
      if (marks) {
        headers.emplace_back("mark");
        right.push_back(false);
      }
      std::vector<std::vector<std::string>> rows;
      for (const auto& r : t.rows) {
        std::vector<std::string> cells;
        for (std::size_t c = 0; c < t.columns.size(); ++c) cells.push_back(format_value(r.cells[c], t.columns[c].format));
        if (marks) cells.emplace_back(r.mark == RowMark::none ? "" : to_string(r.mark));
        rows.push_back(std::move(cells));
      }
      md_table(headers, right, rows, out);
      for (const auto& l : t.legend) out << "\n" << l << "\n";
    }
    if (!s.measurements.empty()) {
      out << '\n';
      std::vector<std::vector<std::string>> rows;
      for (const auto& m : s.measurements) {
        const auto number = [&](double v) { return format_value(v, m.format); };
        if (m.samples.empty())
          rows.push_back({m.title, m.needs_gpu ? "needs a GPU" : "not measured", "", "", unit_of(m.format), "0", m.note});
        else
          rows.push_back({m.title, number(m.median()), number(m.min()), number(m.max()), unit_of(m.format),
                          std::to_string(m.repetitions()), m.note});
      }
      md_table({"measurement", "median", "min", "max", "unit", "reps", "note"},
               {false, true, true, true, false, true, false}, rows, out);
    }
    if (!s.checks.empty()) out << '\n';
    for (const auto& c : s.checks)
      out << "- **" << (c.passed ? "PASS" : "FAIL") << "** " << c.title << (c.detail.empty() ? "" : ": " + c.detail)
          << '\n';
    if (!s.notes.empty()) out << '\n';
    for (const auto& n : s.notes) out << "- note: " << n << '\n';
  }
  if (!report.waived.empty()) {
    out << "\n## waived\n\n";
    for (const auto& w : report.waived) out << "- " << w.part << ": " << w.reason << '\n';
  }
  if (report.has_checks())
    out << "\nchecks: " << report.checks_passed() << " passed, " << report.checks_failed() << " failed"
        << (report.waived.empty() ? "" : ", " + std::to_string(report.waived.size()) + " waived") << '\n';
}

void render_csv(const Report& report, std::ostream& out) {
  out << "kind,section,table,row,column,title,value,format,unit,needs_gpu,mark\r\n";
  const auto row = [&](std::initializer_list<std::string> fields) {
    bool first = true;
    for (const auto& f : fields) {
      out << (first ? "" : ",") << csv_field(f);
      first = false;
    }
    out << "\r\n";
  };
  const auto yes = [](bool b) { return std::string(b ? "true" : "false"); };
  for (const auto& s : report.sections) {
    for (const auto& f : s.facts)
      row({"fact", s.id, "", "", f.id, f.title, raw(f.value), to_string(f.format), unit_of(f.format),
           yes(std::holds_alternative<NeedsGpu>(f.value)), ""});
    for (const auto& t : s.tables)
      for (std::size_t r = 0; r < t.rows.size(); ++r)
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
          const Value& v = t.rows[r].cells[c];
          row({"cell", s.id, t.id, std::to_string(r), t.columns[c].key, t.columns[c].title, raw(v),
               to_string(t.columns[c].format), unit_of(t.columns[c].format), yes(std::holds_alternative<NeedsGpu>(v)),
               to_string(t.rows[r].mark)});
        }
    for (const auto& m : s.measurements) {
      const auto stat = [&](const std::string& name, const std::string& value) {
        row({"measurement", s.id, "", name, m.id, m.title, value, to_string(m.format), unit_of(m.format), yes(m.needs_gpu),
             ""});
      };
      const auto num = [&](double d) { return m.samples.empty() ? std::string() : nlohmann::json(d).dump(); };
      stat("median", num(m.median()));
      stat("min", num(m.min()));
      stat("max", num(m.max()));
      stat("repetitions", std::to_string(m.repetitions()));
    }
    for (const auto& c : s.checks) row({"check", s.id, "", "", c.id, c.title, c.passed ? "pass" : "fail", "", "", "false", ""});
  }
  for (const auto& w : report.waived) row({"waived", "", "", "", w.part, w.reason, "", "", "", "false", ""});
}

}  // namespace cudasync::report
