// The SVG pictures of html_renderer.hpp, one function per Picture kind.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "core/report/html_renderer.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::report {

namespace {

using Svg = std::ostringstream;

std::string num(double v) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << v;
  std::string t = s.str();
  if (t.size() > 2 && t.compare(t.size() - 2, 2, ".0") == 0) t.resize(t.size() - 2);
  return t;
}

std::optional<double> number_of(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? std::optional<double>(*d) : std::nullopt;
  return std::nullopt;
}

std::string text_of(const Table& t, std::size_t row, std::size_t col) {
  return format_value(t.rows[row].cells[col], t.columns[col].format);
}

std::string open_svg(double w, double h, const std::string& label) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"picture\" viewBox=\"0 0 " + num(w) + " " + num(h) +
         "\" width=\"" + num(w) + "\" height=\"" + num(h) + "\" role=\"img\" aria-label=\"" + html_escape(label) + "\">";
}

std::string text(double x, double y, const std::string& s, const std::string& cls = "", const char* anchor = "middle") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" +
         (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + html_escape(s) + "</text>";
}

std::string rect(double x, double y, double w, double h, const std::string& cls) {
  return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.0, w)) + "\" height=\"" +
         num(std::max(0.0, h)) + "\" class=\"" + cls + "\"/>";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& cls, const std::string& extra = "") {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" class=\"" +
         cls + "\"" + extra + "/>";
}

// The arrowheads of one picture, one per class of arrow (ids unique on the page).
std::string markers(const std::string& uid) {
  std::string s = "<defs>";
  for (const char* k : {"recv", "kept", "undef", "bad"})
    s += "<marker id=\"" + uid + "-" + k +
         "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
         "<path d=\"M0,0 L10,5 L0,10 z\" class=\"head-" + k + "\"/></marker>";
  return s + "</defs>";
}

std::string shuffle(const Table& t, const std::string& uid) {
  const Picture& p = t.picture;
  const std::size_t lane_c = t.column_index(p.role("lane")), src_c = t.column_index(p.role("source"));
  const std::string value_key = p.role("value"), result_key = p.role("result");
  const std::size_t n = t.rows.size();
  if (n == 0) return "";
  const double cell = 30, box = 24, left = 60, top_y = 46, bottom_y = 196;
  const double w = left + static_cast<double>(n) * cell + 10, h = bottom_y + box + 40;
  const auto x = [&](double lane) { return left + lane * cell + cell / 2; };
  Svg s;
  s << open_svg(w, h, "shuffle: which lane each lane received from") << markers(uid);
  const std::int64_t width = std::max<std::int64_t>(1, p.width);
  for (std::size_t seg = 0; seg * static_cast<std::size_t>(width) < n; ++seg) {
    const double x0 = left + static_cast<double>(seg) * static_cast<double>(width) * cell;
    const double sw = std::min(static_cast<double>(width), static_cast<double>(n) - static_cast<double>(seg * width)) * cell;
    s << rect(x0, 14, sw, h - 20, seg % 2 ? "seg-odd" : "seg-even");
    s << text(x0 + sw / 2, 28, width >= 4 || seg == 0 ? "segment " + std::to_string(seg) : std::to_string(seg), "seg-label");
  }
  s << text(left - 8, top_y + box / 2 + 4, "reads", "axis", "end")
    << text(left - 8, bottom_y + box / 2 + 4, "gets", "axis", "end");
  // Lanes by their lane number; the picture's rows are lanes of one warp.
  for (std::size_t r = 0; r < n; ++r) {
    const auto lane = number_of(t.rows[r].cells[lane_c]).value_or(static_cast<double>(r));
    const RowMark mark = t.rows[r].mark;
    const bool inactive = mark == RowMark::inactive;
    const std::string top = value_key.empty() ? "" : text_of(t, r, t.column_index(value_key));
    const std::string bottom = result_key.empty() ? "" : text_of(t, r, t.column_index(result_key));
    s << "<g><title>lane " << num(lane) << (inactive ? ": not in the mask" : "")
      << (mark == RowMark::kept_own ? ": kept its own value" : "")
      << (mark == RowMark::undefined_src ? ": its source lane did not take part (undefined)" : "")
      << (mark == RowMark::mismatch ? ": the GPU and the model disagree" : "") << "</title>";
    s << rect(x(lane) - box / 2, top_y, box, box, inactive ? "lane off" : "lane")
      << text(x(lane), top_y + box / 2 + 4, top, "val")
      << rect(x(lane) - box / 2, bottom_y, box, box, inactive ? "lane off" : "lane " + std::string(to_string(mark)))
      << text(x(lane), bottom_y + box / 2 + 4, inactive ? "x" : bottom, "val")
      << text(x(lane), bottom_y + box + 14, num(lane), "lane-no") << "</g>";
    const auto src = number_of(t.rows[r].cells[src_c]);
    if (inactive || !src) continue;
    const char* kind = mark == RowMark::kept_own        ? "kept"
                       : mark == RowMark::undefined_src ? "undef"
                       : mark == RowMark::mismatch      ? "bad"
                                                        : "recv";
    s << line(x(*src), top_y + box, x(lane), bottom_y - 2, std::string("arrow ") + kind,
              " marker-end=\"url(#" + uid + "-" + kind + ")\"");
  }
  s << "</svg>";
  return s.str();
}

std::string timeline(const Table& t) {
  const Picture& p = t.picture;
  const std::size_t row_c = t.column_index(p.role("row")), a_c = t.column_index(p.role("start")),
                    r_c = t.column_index(p.role("end"));
  const std::size_t n = t.rows.size();
  double lo = 0, hi = 0, last_arrival = 0;
  bool any = false;
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c : {a_c, r_c})
      if (const auto v = number_of(t.rows[r].cells[c])) {
        lo = any ? std::min(lo, *v) : *v;
        hi = any ? std::max(hi, *v) : *v;
        if (c == a_c) last_arrival = std::max(last_arrival, *v);
        any = true;
      }
  if (!any) return "";
  if (hi <= lo) hi = lo + 1;
  const double left = 90, plot = 640, row_h = 18, top = 30;
  const double w = left + plot + 110, h = top + static_cast<double>(n) * row_h + 40;
  const auto x = [&](double v) { return left + (v - lo) / (hi - lo) * plot; };
  const Format f = t.columns[a_c].format;
  bool whole = true;  // every time an integer (steps): ticks on integers
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c : {a_c, r_c}) whole = whole && !std::holds_alternative<double>(t.rows[r].cells[c]);
  Svg s;
  s << open_svg(w, h, "timeline: each row from its arrival to its release");
  // Ticks of plain numbers name their unit: the last word of the arrival's title ("arrive step": step).
  const std::string& a_title = t.columns[a_c].title;
  const std::string unit = a_title.substr(a_title.find_last_of(' ') == std::string::npos ? 0 : a_title.find_last_of(' ') + 1);
  double shown = lo - 1;
  for (int k = 0; k <= 4; ++k) {
    double v = lo + (hi - lo) * k / 4.0;
    if (whole) v = std::round(v);
    if (v <= shown) continue;
    shown = v;
    const Value tick = whole ? Value{static_cast<std::int64_t>(v)} : Value{v};
    s << line(x(v), top - 6, x(v), h - 34, "grid")
      << text(x(v), h - 20, (f == Format::plain ? unit + " " : "") + format_value(tick, f, true), "axis");
  }
  s << line(x(last_arrival), top - 10, x(last_arrival), h - 34, "last")
    << text(x(last_arrival) + 4, top - 14, "last arrival", "last-label", "start");
  for (std::size_t r = 0; r < n; ++r) {
    const double y = top + static_cast<double>(r) * row_h;
    s << text(left - 8, y + 12, t.columns[row_c].title + " " + text_of(t, r, row_c), "axis", "end");
    const auto a = number_of(t.rows[r].cells[a_c]);
    const auto e = number_of(t.rows[r].cells[r_c]);
    std::string tip = t.columns[row_c].title + " " + text_of(t, r, row_c);
    if (!a) {
      s << text(left + 6, y + 12, "never arrived", "missing", "start");
      continue;
    }
    tip += ": " + t.columns[a_c].title + " " + text_of(t, r, a_c) + ", " + t.columns[r_c].title + " " +
           (e ? text_of(t, r, r_c) : "none");
    s << "<g><title>" << html_escape(tip) << "</title>";
    if (e) {
      s << rect(x(*a), y + 4, x(*e) - x(*a), row_h - 8, "wait");
      s << rect(x(*e) - 1.5, y + 1, 3, row_h - 2, "release");
    } else {
      s << line(x(*a), y + row_h / 2, left + plot, y + row_h / 2, "never")
        << text(left + plot + 6, y + 12, "not released", "missing", "start");
    }
    s << "<circle cx=\"" << num(x(*a)) << "\" cy=\"" << num(y + row_h / 2) << "\" r=\"4\" class=\"arrive\"/></g>";
  }
  s << "</svg>";
  return s.str();
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  for (char c : s + " ") {
    if (c == ' ' || c == ',' || c == '|') {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  return out;
}

std::string outcomes(const Table& t) {
  const Picture& p = t.picture;
  const std::size_t allowed_c = t.column_index(p.role("allowed"));
  const std::optional<std::size_t> impossible_c =
      p.role("impossible").empty() ? std::nullopt : std::optional<std::size_t>(t.column_index(p.role("impossible")));
  std::vector<std::size_t> series, labels;
  for (const auto& k : p.series) series.push_back(t.column_index(k));
  for (const auto& k : p.labels) labels.push_back(t.column_index(k));
  std::vector<std::string> names = p.names;
  if (names.empty())
    for (std::size_t c : series) names.push_back(t.columns[c].title);
  const std::size_t n = t.rows.size();
  if (n == 0 || names.empty()) return "";
  const auto count_of = [&](std::size_t r, std::size_t i) -> std::optional<double> {
    return i < series.size() ? number_of(t.rows[r].cells[series[i]]) : std::nullopt;
  };
  double most = 0;
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < names.size(); ++i) most = std::max(most, count_of(r, i).value_or(0));
  const double left = 190, cell = 110, row_h = 26, top = 34;
  const double w = left + cell * static_cast<double>(names.size()) + 10, h = top + static_cast<double>(n) * row_h + 34;
  Svg s;
  s << open_svg(w, h, "outcomes: allowed (green) and forbidden (red) by the model, and how often each appeared");
  for (std::size_t i = 0; i < names.size(); ++i)
    s << text(left + cell * (static_cast<double>(i) + 0.5), top - 12, names[i], "head");
  for (std::size_t r = 0; r < n; ++r) {
    const double y = top + static_cast<double>(r) * row_h;
    std::string label;
    for (std::size_t c : labels) label += (label.empty() ? "" : " ") + text_of(t, r, c);
    s << text(left - 8, y + 17, label, "axis", "end");
    const auto allowed = words(text_of(t, r, allowed_c));
    const auto impossible = impossible_c ? words(text_of(t, r, *impossible_c)) : std::vector<std::string>{};
    for (std::size_t i = 0; i < names.size(); ++i) {
      const bool ok = std::find(allowed.begin(), allowed.end(), names[i]) != allowed.end();
      // An outcome no execution of the test gives is not forbidden by the model: it cannot happen.
      const bool never = !ok && std::find(impossible.begin(), impossible.end(), names[i]) != impossible.end();
      const double x0 = left + cell * static_cast<double>(i) + 4;
      const auto count = count_of(r, i);
      const std::string shown = count ? format_value(*count, i < series.size() ? t.columns[series[i]].format : Format::count) : "";
      s << "<g><title>"
        << html_escape(label + ": " + names[i] +
                       (never ? " cannot happen: no execution of the test gives it"
                              : std::string(ok ? " allowed" : " forbidden") + " by the model") +
                       (count ? ", seen " + shown + " times" : ""))
        << "</title>" << rect(x0, y + 3, cell - 8, row_h - 6, never ? "box impossible" : ok ? "box allowed" : "box forbidden");
      if (count && most > 0) {
        const double frac = std::log10(1 + *count) / std::log10(1 + most);
        s << rect(x0, y + 3, (cell - 8) * frac, row_h - 6, ok ? "bar allowed" : "bar forbidden")
          << text(x0 + (cell - 8) / 2, y + 17, shown, "val");
      } else {
        s << text(x0 + (cell - 8) / 2, y + 17, never ? "cannot happen" : ok ? "allowed" : "forbidden", "val");
      }
      s << "</g>";
    }
  }
  s << text(left, h - 12, most > 0 ? "bar length: occurrences, log scale" : "counts need a GPU: the model's verdicts only",
            "axis", "start");
  s << "</svg>";
  return s.str();
}

// The kind of thing a grid cell says: its first word ("CAS", "spins", "exited").
std::string kind_of(const std::string& s) {
  const std::size_t end = s.find_first_of(" :,(");
  return s.substr(0, end);
}

std::string grid(const Table& t) {
  const Picture& p = t.picture;
  const std::size_t row_c = t.column_index(p.role("row"));
  std::vector<std::size_t> lanes;
  for (const auto& k : p.series) lanes.push_back(t.column_index(k));
  const std::size_t n = std::min<std::size_t>(t.rows.size(), 200);
  if (n == 0 || lanes.empty()) return "";
  std::map<std::string, int> kinds;
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c : lanes) {
      const std::string k = kind_of(text_of(t, r, c));
      if (!kinds.count(k)) kinds.emplace(k, static_cast<int>(kinds.size()));
    }
  const double left = 60, cell = 150, row_h = 22, top = 30;
  const double w = left + cell * static_cast<double>(lanes.size()) + 10, h = top + static_cast<double>(n) * row_h + 10;
  Svg s;
  s << open_svg(w, h, "step by lane: what each lane did at each step");
  for (std::size_t i = 0; i < lanes.size(); ++i)
    s << text(left + cell * (static_cast<double>(i) + 0.5), top - 10, t.columns[lanes[i]].title, "head");
  for (std::size_t r = 0; r < n; ++r) {
    const double y = top + static_cast<double>(r) * row_h;
    s << text(left - 8, y + 15, text_of(t, r, row_c), "axis", "end");
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const std::string v = text_of(t, r, lanes[i]);
      const std::string k = kind_of(v);
      const bool idle = v == "-" || v.empty() || k == "exited";
      const std::string cls = idle ? "cell idle" : "cell k" + std::to_string(kinds[k] % 10);
      std::string shown = v.size() > 22 ? v.substr(0, 21) + "\xe2\x80\xa6" : v;
      s << "<g><title>" << html_escape(t.columns[row_c].title + " " + text_of(t, r, row_c) + ", " +
                                       t.columns[lanes[i]].title + ": " + v)
        << "</title>" << rect(left + cell * static_cast<double>(i) + 1, y + 1, cell - 2, row_h - 2,
                              cls + (t.rows[r].mark == RowMark::mismatch ? " bad" : ""))
        << text(left + cell * (static_cast<double>(i) + 0.5), y + 15, shown, "val") << "</g>";
    }
  }
  s << "</svg>";
  return s.str();
}

std::string bars(const Table& t) {
  const Picture& p = t.picture;
  std::vector<std::size_t> series, labels;
  for (const auto& k : p.series) series.push_back(t.column_index(k));
  for (const auto& k : p.labels) labels.push_back(t.column_index(k));
  const std::size_t n = t.rows.size();
  std::vector<std::string> names(n);
  std::optional<std::size_t> base;
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c : labels) names[r] += (names[r].empty() ? "" : " ") + text_of(t, r, c);
    if (!labels.empty() && text_of(t, r, labels.front()) == p.baseline) base = r;
  }
  bool any = false;
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c : series) any = any || number_of(t.rows[r].cells[c]).has_value();
  if (!any) return "";
  const double left = 200, plot = 480, bar_h = 14, gap = 22;
  const double group_h = static_cast<double>(n) * bar_h + gap + 14;
  const double w = left + plot + 110, h = static_cast<double>(series.size()) * group_h + 10;
  Svg s;
  s << open_svg(w, h, "bars: each row's value, the baseline's beside it");
  for (std::size_t g = 0; g < series.size(); ++g) {
    const std::size_t c = series[g];
    const double y0 = static_cast<double>(g) * group_h + 10;
    double most = 0;
    for (std::size_t r = 0; r < n; ++r) most = std::max(most, number_of(t.rows[r].cells[c]).value_or(0));
    if (most <= 0) most = 1;
    s << text(0, y0 + 10, t.columns[c].title, "head", "start");
    for (std::size_t r = 0; r < n; ++r) {
      const double y = y0 + 16 + static_cast<double>(r) * bar_h;
      s << text(left - 8, y + 11, names[r], "axis", "end");
      const auto v = number_of(t.rows[r].cells[c]);
      if (!v) {
        s << text(left + 4, y + 11, text_of(t, r, c), "missing", "start");
        continue;
      }
      const double len = plot * std::max(0.0, *v) / most;
      s << "<g><title>" << html_escape(names[r] + ", " + t.columns[c].title + ": " + format_value(*v, t.columns[c].format, true))
        << "</title>" << rect(left, y + 2, len, bar_h - 3, base && *base == r ? "bar base" : "bar")
        << text(left + len + 4, y + 11, format_value(*v, t.columns[c].format, true), "val-out", "start") << "</g>";
    }
    if (base)
      if (const auto bv = number_of(t.rows[*base].cells[c]))
        s << line(left + plot * std::max(0.0, *bv) / most, y0 + 14, left + plot * std::max(0.0, *bv) / most,
                  y0 + 16 + static_cast<double>(n) * bar_h, "baseline");
  }
  s << "</svg>";
  return s.str();
}

// A node's name in at most two lines: "blocks 0-1055 (resident, spinning)" splits before " (".
std::vector<std::string> node_lines(const std::string& name) {
  const std::size_t paren = name.find(" (");
  if (paren == std::string::npos || name.size() <= 26) return {name};
  return {name.substr(0, paren), name.substr(paren + 1)};
}

// The wait-for graph: each node a box on a circle (two side by side), each row an arrow from the
// waiter to what it waits for, labelled with what it waits on; the arrows of a cycle in red. Two
// nodes that wait for each other get two arcs, one above and one below.
std::string graph(const Table& t, const std::string& uid) {
  const Picture& p = t.picture;
  const std::size_t from = t.column_index(p.role("from")), to = t.column_index(p.role("to")),
                    label = t.column_index(p.role("label"));
  std::vector<std::string> nodes;
  const auto node = [&](const std::string& n) {
    const auto it = std::find(nodes.begin(), nodes.end(), n);
    if (it != nodes.end()) return static_cast<std::size_t>(it - nodes.begin());
    nodes.push_back(n);
    return nodes.size() - 1;
  };
  struct Edge {
    std::size_t a, b;
    std::string on;
  };
  std::vector<Edge> edges;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::size_t a = node(text_of(t, r, from)), b = node(text_of(t, r, to));
    edges.push_back({a, b, text_of(t, r, label)});
  }
  if (nodes.empty() || nodes.size() > 12) return "";  // a picture of more would not be read
  // An edge is on a cycle when its head reaches its tail again.
  const auto reaches = [&](std::size_t start, std::size_t goal) {
    std::vector<bool> seen(nodes.size(), false);
    std::vector<std::size_t> todo = {start};
    while (!todo.empty()) {
      const std::size_t n = todo.back();
      todo.pop_back();
      if (n == goal) return true;
      if (seen[n]) continue;
      seen[n] = true;
      for (const auto& e : edges)
        if (e.a == n) todo.push_back(e.b);
    }
    return false;
  };
  const double box_w = 230, box_h = 40, pi = 3.14159265358979;
  const std::size_t n = nodes.size();
  const double radius = n <= 1 ? 0 : n == 2 ? 190 : 110 + 30 * static_cast<double>(n);
  const double w = 2 * radius + box_w + 40, h = n == 2 ? 230 : 2 * radius + box_h + 80;
  const double cx = w / 2, cy = h / 2;
  std::vector<std::pair<double, double>> at;
  for (std::size_t i = 0; i < n; ++i) {
    const double angle = n == 2 ? pi * static_cast<double>(i) + pi : -pi / 2 + 2 * pi * static_cast<double>(i) / static_cast<double>(n);
    at.emplace_back(cx + radius * std::cos(angle), cy + radius * std::sin(angle));
  }
  Svg s;
  s << open_svg(w, h, "wait-for graph: who waits for whom; a cycle is a deadlock");
  s << "<defs><marker id=\"" << uid << "-wait\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
       "markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"head-recv\"/></marker>"
    << "<marker id=\"" << uid << "-cycle\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
       "markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"head-bad\"/></marker></defs>";
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const Edge& e = edges[k];
    const bool cycle = reaches(e.b, e.a);
    const auto [x1, y1] = at[e.a];
    const auto [x2, y2] = at[e.b];
    // From the edge of one box to the edge of the other, bowed to one side so that a pair of
    // opposite edges is two arcs.
    const double dx = x2 - x1, dy = y2 - y1, len = std::max(1.0, std::hypot(dx, dy));
    const double ux = dx / len, uy = dy / len;
    const double inset = std::min(box_w / 2 / std::max(1e-9, std::fabs(ux)), box_h / 2 / std::max(1e-9, std::fabs(uy)));
    const double bow = n == 2 ? 60 : 25;
    const double sx = x1 + ux * inset - uy * bow * 0.3, sy = y1 + uy * inset + ux * bow * 0.3;
    const double ex = x2 - ux * inset - uy * bow * 0.3, ey = y2 - uy * inset + ux * bow * 0.3;
    const double mx = (x1 + x2) / 2 - uy * bow, my = (y1 + y2) / 2 + ux * bow;
    s << "<g><title>" << html_escape(nodes[e.a] + " waits for " + nodes[e.b] + ": " + e.on) << "</title>"
      << "<path d=\"M" << num(sx) << "," << num(sy) << " Q" << num(mx) << "," << num(my) << " " << num(ex) << ","
      << num(ey) << "\" class=\"arrow " << (cycle ? "bad" : "recv") << "\" marker-end=\"url(#" << uid
      << (cycle ? "-cycle" : "-wait") << ")\"/>"
      << text(mx, my + (uy < 0 || (n == 2 && k % 2 == 1) ? 14 : -6), e.on.size() > 72 ? e.on.substr(0, 69) + "..." : e.on,
              "val")
      << "</g>";
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto [x, y] = at[i];
    s << rect(x - box_w / 2, y - box_h / 2, box_w, box_h, "lane");
    const auto lines = node_lines(nodes[i]);
    for (std::size_t l = 0; l < lines.size(); ++l)
      s << text(x, y + (lines.size() == 1 ? 4 : -3 + 13 * static_cast<double>(l)), lines[l]);
  }
  s << "</svg>";
  return s.str();
}

// The tree of a shared-memory reduction: the elements across, the steps down. At each step the
// threads below the offset work (dark) and the others idle (light); a line joins each element added
// to the one it is added into. The block's elements are as many as twice the first step's offset.
std::string tree(const Table& t) {
  const Picture& p = t.picture;
  const std::size_t step_c = t.column_index(p.role("step")), off_c = t.column_index(p.role("offset"));
  std::vector<std::int64_t> offsets;
  for (const auto& r : t.rows)
    if (const auto* o = std::get_if<std::int64_t>(&r.cells[off_c]); o && *o >= 1 && *o <= 4096) offsets.push_back(*o);
  if (offsets.empty() || offsets.size() != t.rows.size()) return "";
  const std::int64_t elements = 2 * offsets.front();
  const double left = 150, plot = 600, row_h = 34, top = 26;
  const double cell = plot / static_cast<double>(elements);
  const double w = left + plot + 20, h = top + static_cast<double>(offsets.size() + 1) * row_h + 10;
  const auto x = [&](std::int64_t e) { return left + (static_cast<double>(e) + 0.5) * cell; };
  const double box_h = 10, box_w = std::max(1.0, cell - (cell > 4 ? 1 : 0));
  Svg s;
  s << open_svg(w, h, "reduction tree: at each step the threads below the offset add the element one offset away");
  s << text(left - 8, top + box_h, std::to_string(elements) + " elements", "axis", "end");
  for (std::int64_t e = 0; e < elements; ++e) s << rect(x(e) - box_w / 2, top, box_w, box_h, "work");
  for (std::size_t r = 0; r < offsets.size(); ++r) {
    const std::int64_t o = offsets[r];
    const double y_above = top + static_cast<double>(r) * row_h + box_h, y = top + static_cast<double>(r + 1) * row_h;
    s << "<g><title>" << html_escape(t.columns[step_c].title + " " + text_of(t, r, step_c) + ": " + std::to_string(o) +
                                     " of " + std::to_string(elements) + " threads add element t + " + std::to_string(o))
      << "</title>";
    s << text(left - 8, y + box_h,
              t.columns[step_c].title + " " + text_of(t, r, step_c) + ", " + t.columns[off_c].title + " " + std::to_string(o),
              "axis", "end");
    for (std::int64_t e = 0; e < o; ++e) s << line(x(e + o), y_above, x(e), y, "edge") << line(x(e), y_above, x(e), y, "edge");
    for (std::int64_t e = 0; e < elements; ++e) s << rect(x(e) - box_w / 2, y, box_w, box_h, e < o ? "work" : "idle");
    s << "</g>";
  }
  s << "</svg>";
  return s.str();
}

}  // namespace

std::string picture_svg(const Table& table, const std::string& uid) {
  switch (table.picture.kind) {
    case PictureKind::none: return "";
    case PictureKind::shuffle: return shuffle(table, uid);
    case PictureKind::timeline: return timeline(table);
    case PictureKind::outcomes: return outcomes(table);
    case PictureKind::grid: return grid(table);
    case PictureKind::bars: return bars(table);
    case PictureKind::graph: return graph(table, uid);
    case PictureKind::tree: return tree(table);
  }
  return "";
}

}  // namespace cudasync::report
