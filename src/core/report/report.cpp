#include "core/report/report.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace cudasync::report {

bool is_number(const Value& v) {
  return std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v);
}

const char* to_string(Format f) {
  switch (f) {
    case Format::plain: return "plain";
    case Format::count: return "count";
    case Format::exact: return "exact";
    case Format::hex32: return "hex32";
    case Format::bin32: return "bin32";
    case Format::ns: return "ns";
    case Format::ms: return "ms";
    case Format::cycles: return "cycles";
    case Format::gbps: return "gbps";
    case Format::ratio: return "ratio";
    case Format::percent: return "percent";
    case Format::bytes: return "bytes";
    case Format::error: return "error";
  }
  return "plain";
}

const char* unit_of(Format f) {
  switch (f) {
    case Format::ns: return "ns";
    case Format::ms: return "ms";
    case Format::cycles: return "cycles";
    case Format::gbps: return "GB/s";
    case Format::ratio: return "x";
    case Format::percent: return "%";
    case Format::bytes: return "bytes";
    default: return "";
  }
}

const char* to_string(RowMark mark) {
  switch (mark) {
    case RowMark::none: return "none";
    case RowMark::inactive: return "inactive";
    case RowMark::kept_own: return "kept-own";
    case RowMark::undefined_src: return "undefined-source";
    case RowMark::mismatch: return "mismatch";
  }
  return "none";
}

const char* to_string(PictureKind kind) {
  switch (kind) {
    case PictureKind::none: return "none";
    case PictureKind::shuffle: return "shuffle";
    case PictureKind::timeline: return "timeline";
    case PictureKind::outcomes: return "outcomes";
    case PictureKind::grid: return "grid";
    case PictureKind::bars: return "bars";
    case PictureKind::graph: return "graph";
    case PictureKind::tree: return "tree";
  }
  return "none";
}

std::string Picture::role(std::string_view name) const {
  for (const auto& [r, key] : roles)
    if (r == name) return key;
  return "";
}

Picture shuffle_picture(std::string lane, std::string source, std::int64_t width, std::string value,
                        std::string result) {
  Picture p;
  p.kind = PictureKind::shuffle;
  p.roles = {{"lane", std::move(lane)}, {"source", std::move(source)}};
  if (!value.empty()) p.roles.emplace_back("value", std::move(value));
  if (!result.empty()) p.roles.emplace_back("result", std::move(result));
  p.width = width;
  return p;
}

Picture timeline_picture(std::string row, std::string start, std::string end) {
  Picture p;
  p.kind = PictureKind::timeline;
  p.roles = {{"row", std::move(row)}, {"start", std::move(start)}, {"end", std::move(end)}};
  return p;
}

Picture outcomes_picture(std::vector<std::string> labels, std::vector<std::string> names, std::string allowed,
                         std::vector<std::string> counts, std::string impossible) {
  Picture p;
  p.kind = PictureKind::outcomes;
  p.labels = std::move(labels);
  p.names = std::move(names);
  p.series = std::move(counts);
  p.roles = {{"allowed", std::move(allowed)}};
  if (!impossible.empty()) p.roles.emplace_back("impossible", std::move(impossible));
  return p;
}

Picture graph_picture(std::string from, std::string to, std::string label) {
  Picture p;
  p.kind = PictureKind::graph;
  p.roles = {{"from", std::move(from)}, {"to", std::move(to)}, {"label", std::move(label)}};
  return p;
}

Picture tree_picture(std::string step, std::string offset) {
  Picture p;
  p.kind = PictureKind::tree;
  p.roles = {{"step", std::move(step)}, {"offset", std::move(offset)}};
  return p;
}

Picture grid_picture(std::string row, std::vector<std::string> lanes) {
  Picture p;
  p.kind = PictureKind::grid;
  p.roles = {{"row", std::move(row)}};
  p.series = std::move(lanes);
  return p;
}

Picture bars_picture(std::vector<std::string> labels, std::vector<std::string> values, std::string baseline) {
  Picture p;
  p.kind = PictureKind::bars;
  p.labels = std::move(labels);
  p.series = std::move(values);
  p.baseline = std::move(baseline);
  return p;
}

bool is_id(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-') return false;
  char prev = 0;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && prev == '-')) return false;
    prev = c;
  }
  return true;
}

Table& Table::column(std::string key, std::string column_title, Format format) {
  columns.push_back({std::move(key), std::move(column_title), format});
  for (auto& r : rows) r.cells.emplace_back(Undefined{});
  return *this;
}

std::size_t Table::column_index(std::string_view key) const {
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (columns[c].key == key) return c;
  throw std::logic_error("table '" + id + "' has no column '" + std::string(key) + "'");
}

Table& Table::row(std::initializer_list<std::pair<std::string_view, Value>> cells, RowMark mark) {
  Row r;
  r.cells.assign(columns.size(), Value{Undefined{}});
  r.mark = mark;
  for (const auto& [key, value] : cells) r.cells[column_index(key)] = value;
  rows.push_back(std::move(r));
  return *this;
}

Table& Table::row(const std::vector<std::pair<std::string, Value>>& cells, RowMark mark) {
  Row r;
  r.cells.assign(columns.size(), Value{Undefined{}});
  r.mark = mark;
  for (const auto& [key, value] : cells) r.cells[column_index(key)] = value;
  rows.push_back(std::move(r));
  return *this;
}

const Value& Table::cell(std::size_t row_index, std::string_view key) const {
  return rows.at(row_index).cells.at(column_index(key));
}

double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

Measurement measured(std::string id, std::string title, Format format, std::vector<double> samples, bool gpu,
                     std::string note) {
  Measurement m;
  m.id = std::move(id);
  m.title = std::move(title);
  m.format = format;
  m.samples = std::move(samples);
  m.needs_gpu = !gpu && m.samples.empty();
  m.note = std::move(note);
  return m;
}

double Measurement::median() const { return report::median(samples); }
double Measurement::min() const { return samples.empty() ? 0.0 : *std::min_element(samples.begin(), samples.end()); }
double Measurement::max() const { return samples.empty() ? 0.0 : *std::max_element(samples.begin(), samples.end()); }

void Section::fact(std::string fact_id, std::string fact_title, Value value, Format format, std::string fact_note) {
  facts.push_back({std::move(fact_id), std::move(fact_title), std::move(value), format, std::move(fact_note)});
}

void Section::check(std::string check_id, std::string check_title, bool passed, std::string detail) {
  checks.push_back({std::move(check_id), std::move(check_title), passed, std::move(detail)});
}

std::size_t Report::checks_passed() const {
  std::size_t n = 0;
  for (const auto& s : sections)
    for (const auto& c : s.checks) n += c.passed ? 1 : 0;
  return n;
}

std::size_t Report::checks_failed() const {
  std::size_t n = 0;
  for (const auto& s : sections)
    for (const auto& c : s.checks) n += c.passed ? 0 : 1;
  return n;
}

const Section* Report::section(std::string_view id) const {
  for (const auto& s : sections)
    if (s.id == id) return &s;
  return nullptr;
}

namespace {

// Every id of one scope: kebab-case and unique.
class Scope {
 public:
  explicit Scope(std::string where) : where_(std::move(where)) {}
  void add(const std::string& kind, const std::string& id) {
    if (!is_id(id)) throw std::logic_error(where_ + ": " + kind + " id '" + id + "' is not kebab-case");
    if (!seen_.insert(id).second) throw std::logic_error(where_ + ": " + kind + " id '" + id + "' is not unique");
  }

 private:
  std::string where_;
  std::set<std::string> seen_;
};

}  // namespace

void validate_ids(const Report& report) {
  Scope sections("report '" + report.command + "'");
  for (const auto& s : report.sections) {
    sections.add("section", s.id);
    const std::string where = "section '" + s.id + "'";
    Scope facts(where), tables(where), measurements(where), checks(where);
    for (const auto& f : s.facts) facts.add("fact", f.id);
    for (const auto& m : s.measurements) measurements.add("measurement", m.id);
    for (const auto& c : s.checks) checks.add("check", c.id);
    for (const auto& t : s.tables) {
      tables.add("table", t.id);
      Scope columns(where + ", table '" + t.id + "'");
      for (const auto& c : t.columns) {
        // JSON rows hold the cells by column key beside the row's "mark".
        if (c.key == "mark") throw std::logic_error(where + ", table '" + t.id + "': 'mark' is not a column key");
        columns.add("column", c.key);
      }
      const std::string at = where + ", table '" + t.id + "': picture " + to_string(t.picture.kind);
      const auto known = [&](const std::string& key) {
        if (std::none_of(t.columns.begin(), t.columns.end(), [&](const Column& c) { return c.key == key; }))
          throw std::logic_error(at + " names no column '" + key + "'");
      };
      for (const auto& role : t.picture.roles) known(role.second);
      for (const auto& key : t.picture.series) known(key);
      for (const auto& key : t.picture.labels) known(key);
      if (!t.picture.series.empty() && !t.picture.names.empty() && t.picture.series.size() != t.picture.names.size())
        throw std::logic_error(at + ": " + std::to_string(t.picture.names.size()) + " names for " +
                               std::to_string(t.picture.series.size()) + " series");
      for (const auto& r : t.rows)
        if (r.cells.size() != t.columns.size())
          throw std::logic_error(where + ", table '" + t.id + "': a row has " + std::to_string(r.cells.size()) +
                                 " cells for " + std::to_string(t.columns.size()) + " columns");
    }
  }
  Scope waived("report '" + report.command + "' waivers");
  for (const auto& w : report.waived) waived.add("waived part", w.part);
}

}  // namespace cudasync::report
