#include "core/report/html_renderer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "core/report/md4c_library.hpp"
#include "core/report/text_format.hpp"
#include "core/version.hpp"

namespace cudasync::report {

namespace {

// No script, and nothing fetched: the policy makes any attempt a console error the tests catch.
const char* kHead = R"(<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",sans-serif;
  margin:0 auto;max-width:1180px;padding:16px 24px 48px;color:#1d2330;background:#fff}
h1{font-size:1.5em;margin:.4em 0 .2em}h2{font-size:1.2em;margin:1.8em 0 .4em;padding-bottom:.2em;border-bottom:2px solid #dfe4ee}
h3{font-size:1em;margin:1.2em 0 .3em}
.meta{color:#5b6475;font-size:.85em}.meta code{font-size:.95em}
nav ul{columns:3;font-size:.9em;padding-left:1.2em}
code,pre,.num,td.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.9em}
pre{background:#f5f7fb;padding:.6em .8em;overflow-x:auto;border-left:3px solid #9fb3d9}
table{border-collapse:collapse;margin:.3em 0 .6em;font-size:.88em}
th,td{padding:.18em .6em;border-bottom:1px solid #e3e7ef;text-align:left;vertical-align:top}
th{background:#eef2f8;font-weight:600}td.num,th.num{text-align:right;white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%}
tr.mark-inactive td{color:#9aa1ad}tr.mark-kept-own td{background:#fff5d6}
tr.mark-undefined-source td{background:#f9e3f5}tr.mark-mismatch td{background:#fde0e0;font-weight:600}
td.mark-inactive{color:#9aa1ad}td.mark-kept-own{background:#fff5d6}td.mark-undefined-source{background:#f9e3f5}
td.mark-mismatch{background:#fde0e0;font-weight:600}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.15em 1em;margin:.6em 0}
dl.facts dt{color:#4a5366}dl.facts dd{margin:0}.note{color:#5b6475;font-size:.9em}
ul.legend{margin:.2em 0 .8em;padding-left:1.2em;color:#4a5366;font-size:.88em}
ul.checks{list-style:none;padding-left:0}ul.checks li{margin:.2em 0}
.pass,.fail{display:inline-block;min-width:3.2em;text-align:center;border-radius:3px;font-weight:700;font-size:.8em;
  padding:0 .3em;margin-right:.5em;color:#fff}.pass{background:#2f8f46}.fail{background:#c62828}
.gpu{color:#8a6d00;font-style:italic}
figure{margin:.6em 0}figcaption{font-weight:600;margin:.2em 0}
svg.picture{max-width:100%;height:auto;display:block;margin:.3em 0 .5em;font-size:11px}
svg text{font-family:ui-monospace,"DejaVu Sans Mono",monospace;fill:#1d2330}
svg .axis{fill:#4a5366}svg .head{font-weight:700}svg .seg-label{fill:#5b6475}
svg .seg-even{fill:#f2f5fb}svg .seg-odd{fill:#e6ecf7}
svg .lane{fill:#fff;stroke:#7b8bb0}svg .lane.off{fill:#e4e6ea;stroke:#b5bac4;stroke-dasharray:3 2}
svg .lane.kept-own{fill:#fff1c2;stroke:#c9a227}svg .lane.undefined-source{fill:#f7d7f1;stroke:#b04aa0}
svg .lane.mismatch{fill:#fbd0d0;stroke:#c62828}svg .val{font-size:10px}svg .lane-no{fill:#5b6475;font-size:10px}
svg .arrow{stroke-width:1.3;fill:none}svg .arrow.recv{stroke:#3558a8}svg .arrow.kept{stroke:#c9a227}
svg .arrow.undef{stroke:#b04aa0;stroke-dasharray:4 3}svg .arrow.bad{stroke:#c62828;stroke-width:2}
svg .head-recv{fill:#3558a8}svg .head-kept{fill:#c9a227}svg .head-undef{fill:#b04aa0}svg .head-bad{fill:#c62828}
svg .grid{stroke:#e3e7ef}svg .last{stroke:#c62828;stroke-dasharray:4 3}svg .last-label{fill:#c62828}
svg .wait{fill:#9fb3d9}svg .release{fill:#2f8f46}svg .arrive{fill:#3558a8}
svg .never{stroke:#c62828;stroke-dasharray:4 3}svg .missing{fill:#8a6d00;font-style:italic}
svg .box.allowed{fill:#e3f4e6;stroke:#2f8f46}svg .box.forbidden{fill:#fbe3e3;stroke:#c62828}
svg .box.impossible{fill:#eef0f3;stroke:#b5bac4;stroke-dasharray:3 2}
svg .bar.allowed{fill:#7cc48b}svg .bar.forbidden{fill:#e57373}
svg .work{fill:#3558a8}svg .idle{fill:#dfe3ea}svg .edge{stroke:#7b8bb0;stroke-width:0.8}
svg .bar{fill:#5b7fc7}svg .bar.base{fill:#a0a7b4}svg .baseline{stroke:#4a5366;stroke-dasharray:3 3}
svg .val-out{font-size:10px;fill:#4a5366}svg .whisker{stroke:#1d2330}
svg .cell{stroke:#fff}svg .cell.idle{fill:#f1f2f4}svg .cell.bad{stroke:#c62828;stroke-width:2}
svg .k0{fill:#d6e4ff}svg .k1{fill:#ffe2c2}svg .k2{fill:#d7f2dc}svg .k3{fill:#f6d6f0}svg .k4{fill:#fff3b0}
svg .k5{fill:#d3f0f4}svg .k6{fill:#e8dcff}svg .k7{fill:#ffd6d6}svg .k8{fill:#e0ecc8}svg .k9{fill:#f0e0d0}
</style>)";

const char* kMarkMeaning[] = {
    "", "grey: the lane did not take part (not in the mask, or no such thread): no value",
    "amber: the source lane lies outside the lane's segment: it kept its own value",
    "magenta: the source lane did not take part: CUDA leaves the value undefined",
    "red: the GPU and the reference model disagree"};

std::string cell_html(const Value& v, Format f) {
  if (std::holds_alternative<NeedsGpu>(v)) return "<span class=\"gpu\">needs a GPU</span>";
  return html_escape(format_value(v, f));
}

bool text_column(const Table& t, std::size_t c) {
  return std::any_of(t.rows.begin(), t.rows.end(), [&](const Row& r) { return std::holds_alternative<std::string>(r.cells[c]); });
}

void table_html(const Table& t, std::ostream& out) {
  out << "<div class=\"scroll\"><table>";
  if (t.lanes_across) {  // one row per column, lanes across, as in text
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      out << "<tr><th>" << html_escape(t.columns[c].title) << "</th>";
      for (const auto& r : t.rows)
        out << "<td class=\"num mark-" << to_string(r.mark) << "\">" << cell_html(r.cells[c], t.columns[c].format) << "</td>";
      out << "</tr>";
    }
  } else {
    out << "<thead><tr>";
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      out << "<th" << (text_column(t, c) ? "" : " class=\"num\"") << ">" << html_escape(t.columns[c].title) << "</th>";
    out << "</tr></thead><tbody>";
    for (const auto& r : t.rows) {
      out << "<tr" << (r.mark == RowMark::none ? std::string() : " class=\"mark-" + std::string(to_string(r.mark)) + "\"")
          << ">";
      for (std::size_t c = 0; c < t.columns.size(); ++c)
        out << "<td" << (text_column(t, c) ? "" : " class=\"num\"") << ">" << cell_html(r.cells[c], t.columns[c].format)
            << "</td>";
      out << "</tr>";
    }
    out << "</tbody>";
  }
  out << "</table></div>";
  std::vector<RowMark> seen;
  for (const auto& r : t.rows)
    if (r.mark != RowMark::none && std::find(seen.begin(), seen.end(), r.mark) == seen.end()) seen.push_back(r.mark);
  std::sort(seen.begin(), seen.end());
  if (seen.empty() && t.legend.empty()) return;
  out << "<ul class=\"legend\">";
  for (RowMark m : seen) out << "<li>" << html_escape(kMarkMeaning[static_cast<int>(m)]) << "</li>";
  for (const auto& l : t.legend) out << "<li>" << html_escape(l) << "</li>";
  out << "</ul>";
}

// Medians as bars with a min-max whisker, one group per unit; "" when nothing was measured.
std::string measurement_svg(const std::vector<Measurement>& ms) {
  std::vector<const Measurement*> with;
  for (const auto& m : ms)
    if (!m.samples.empty()) with.push_back(&m);
  if (with.empty()) return "";
  const double left = 260, plot = 420, bar_h = 16;
  const double h = static_cast<double>(with.size()) * (bar_h + 6) + 16;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"picture\" viewBox=\"0 0 " +
                  std::to_string(static_cast<int>(left + plot + 120)) + " " + std::to_string(static_cast<int>(h)) +
                  "\" width=\"" + std::to_string(static_cast<int>(left + plot + 120)) + "\" height=\"" +
                  std::to_string(static_cast<int>(h)) + "\" role=\"img\" aria-label=\"measurements\">";
  for (std::size_t i = 0; i < with.size(); ++i) {
    const Measurement& m = *with[i];
    double most = 0;
    for (const auto* o : with)
      if (o->format == m.format) most = std::max(most, o->max());
    if (most <= 0) most = 1;
    const double y = 8 + static_cast<double>(i) * (bar_h + 6);
    const auto x = [&](double v) { return left + plot * std::max(0.0, v) / most; };
    const auto n = [](double v) { return std::to_string(static_cast<long long>(std::lround(v))); };
    s += "<g><title>" + html_escape(m.title + ": median " + format_value(m.median(), m.format, true) + ", min " +
                                    format_value(m.min(), m.format, true) + ", max " + format_value(m.max(), m.format, true)) +
         "</title><text x=\"" + n(left - 8) + "\" y=\"" + n(y + 12) + "\" text-anchor=\"end\" class=\"axis\">" +
         html_escape(m.title) + "</text><rect x=\"" + n(left) + "\" y=\"" + n(y) + "\" width=\"" +
         n(x(m.median()) - left) + "\" height=\"" + n(bar_h) + "\" class=\"bar\"/><line x1=\"" + n(x(m.min())) +
         "\" y1=\"" + n(y + bar_h / 2) + "\" x2=\"" + n(x(m.max())) + "\" y2=\"" + n(y + bar_h / 2) +
         "\" class=\"whisker\"/><text x=\"" + n(x(m.max()) + 6) + "\" y=\"" + n(y + 12) + "\" class=\"val-out\">" +
         html_escape(format_value(m.median(), m.format, true)) + "</text></g>";
  }
  return s + "</svg>";
}

void measurements_html(const std::vector<Measurement>& ms, std::ostream& out) {
  out << "<figure><figcaption>measurements</figcaption>" << measurement_svg(ms)
      << "<div class=\"scroll\"><table><thead><tr><th>measurement</th><th class=\"num\">median</th><th class=\"num\">min"
         "</th><th class=\"num\">max</th><th>unit</th><th class=\"num\">reps</th><th>note</th></tr></thead><tbody>";
  for (const auto& m : ms) {
    out << "<tr><td>" << html_escape(m.title) << "</td>";
    if (m.samples.empty())
      out << "<td class=\"num\" colspan=\"3\"><span class=\"gpu\">" << (m.needs_gpu ? "needs a GPU" : "not measured")
          << "</span></td>";
    else
      out << "<td class=\"num\">" << html_escape(format_value(m.median(), m.format)) << "</td><td class=\"num\">"
          << html_escape(format_value(m.min(), m.format)) << "</td><td class=\"num\">"
          << html_escape(format_value(m.max(), m.format)) << "</td>";
    out << "<td>" << html_escape(unit_of(m.format)) << "</td><td class=\"num\">" << m.repetitions() << "</td><td class=\"note\">"
        << html_escape(m.note) << "</td></tr>";
  }
  out << "</tbody></table></div></figure>";
}

void on_html(const MD_CHAR* text, MD_SIZE size, void* user) { static_cast<std::string*>(user)->append(text, size); }

std::string markdown_html(const std::string& md) {
  std::string html;
  const MdHtml to_html = md4c_html();
  if (!to_html) spdlog::warn("{}", md4c_missing("libmd4c-html.so.0", "libmd4c-html0"));
  if (!to_html || to_html(md.data(), static_cast<MD_SIZE>(md.size()), on_html, &html,
                          MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_NOHTML, 0) != 0)
    return "<pre>" + html_escape(md) + "</pre>";
  return html;
}

std::string anchor(const std::string& id) { return "s-" + id; }

// A report's prose marks code as in Markdown, `width`: set as code on the page, the rest escaped.
std::string prose_html(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t open = text.find('`'); open != std::string::npos; open = text.find('`', at)) {
    const std::size_t close = text.find('`', open + 1);
    if (close == std::string::npos) break;
    out += html_escape(text.substr(at, open - at)) + "<code>" + html_escape(text.substr(open + 1, close - open - 1)) +
           "</code>";
    at = close + 1;
  }
  return out + html_escape(text.substr(at));
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void render_html(const Report& report, const RunMeta& meta, std::ostream& out) {
  const std::string title = report.title.empty() ? "cudasync " + report.command : report.title;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n" << kHead << "\n<title>" << html_escape(title)
      << "</title>\n</head>\n<body>\n<header><h1>" << html_escape(title) << "</h1><p class=\"meta\">";
  std::string command = "cudasync";
  for (std::size_t i = 1; i < meta.argv.size(); ++i) command += " " + meta.argv[i];
  out << "<code>" << html_escape(command) << "</code> &middot; cudasync " << html_escape(kToolVersion) << " (git "
      << html_escape(kGitSha) << ")";
  if (!meta.backend_used.empty())
    out << " &middot; backend: " << html_escape(meta.backend_used == "gpu" ? "GPU" : "reference model");
  if (meta.device) out << " &middot; " << html_escape(meta.device->name) << " (cc " << html_escape(meta.device->cc_string()) << ")";
  out << "</p></header>\n";
  if (!report.document.empty())
    out << "<article>" << (report.document_markdown ? markdown_html(report.document) : "<pre>" + html_escape(report.document) + "</pre>")
        << "</article>\n";
  if (report.sections.size() > 2) {
    out << "<nav><ul>";
    for (const auto& s : report.sections)
      out << "<li><a href=\"#" << html_escape(anchor(s.id)) << "\">" << html_escape(s.title) << "</a></li>";
    out << "</ul></nav>\n";
  }
  for (const auto& s : report.sections) {
    out << "<section id=\"" << html_escape(anchor(s.id)) << "\"><h2>" << html_escape(s.title) << "</h2>\n";
    for (const auto& p : s.paragraphs) out << "<p>" << prose_html(p) << "</p>\n";
    if (!s.facts.empty()) {
      out << "<dl class=\"facts\">";
      for (const auto& f : s.facts)
        out << "<dt>" << html_escape(f.title) << "</dt><dd>" << cell_html(f.value, f.format)
            << (f.note.empty() ? "" : " <span class=\"note\">(" + html_escape(f.note) + ")</span>") << "</dd>";
      out << "</dl>\n";
    }
    for (const auto& t : s.tables) {
      out << "<figure id=\"" << html_escape(anchor(s.id) + "-" + t.id) << "\"><figcaption>" << html_escape(t.title)
          << "</figcaption>" << picture_svg(t, anchor(s.id) + "-" + t.id);
      table_html(t, out);
      out << "</figure>\n";
    }
    if (!s.measurements.empty()) measurements_html(s.measurements, out);
    if (!s.checks.empty()) {
      out << "<ul class=\"checks\">";
      for (const auto& c : s.checks)
        out << "<li><span class=\"" << (c.passed ? "pass\">PASS" : "fail\">FAIL") << "</span>" << html_escape(c.title)
            << (c.detail.empty() ? "" : ": " + html_escape(c.detail)) << "</li>";
      out << "</ul>\n";
    }
    for (const auto& n : s.notes) out << "<p class=\"note\">note: " << prose_html(n) << "</p>\n";
    out << "</section>\n";
  }
  if (!report.waived.empty()) {
    out << "<section id=\"waived\"><h2>waived</h2><ul>";
    for (const auto& w : report.waived) out << "<li>" << html_escape(w.part) << ": " << html_escape(w.reason) << "</li>";
    out << "</ul></section>\n";
  }
  if (report.has_checks())
    out << "<p><strong>checks: " << report.checks_passed() << " passed, " << report.checks_failed() << " failed"
        << (report.waived.empty() ? "" : ", " + std::to_string(report.waived.size()) + " waived") << "</strong></p>\n";
  out << "</body>\n</html>\n";
}

}  // namespace cudasync::report
