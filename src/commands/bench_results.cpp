#include "commands/bench_results.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/report/text_format.hpp"
#include "core/version.hpp"

namespace cudasync::commands {

namespace {

using json = nlohmann::ordered_json;
using report::Format;

Format format_named(const std::string& name) {
  for (int f = static_cast<int>(Format::plain); f <= static_cast<int>(Format::error); ++f)
    if (name == report::to_string(static_cast<Format>(f))) return static_cast<Format>(f);
  return Format::plain;
}

report::Value value_of(const json& v, bool needs_gpu) {
  if (v.is_number()) return v.get<double>();
  return needs_gpu ? report::Value{report::NeedsGpu{}} : report::Value{report::Undefined{}};
}

std::string title_of(const json& columns, const std::string& key) {
  for (const auto& c : columns)
    if (c.value("key", "") == key) return c.value("title", key);
  return key;
}

// The baseline row's title: the measurement "<baseline>-at-<first point>" is "<title> @ <point>".
std::string baseline_title(const json& section, const std::string& baseline_id, const std::string& first_point) {
  const json ms = section.value("measurements", json::object());
  const std::string id = baseline_id + "-at-" + first_point;
  if (ms.contains(id)) {
    const std::string t = ms[id].value("title", "");
    const auto at = t.rfind(" @ ");
    if (at != std::string::npos) return t.substr(0, at);
  }
  return baseline_id;
}

void sweep_rows(const std::string& lesson, const std::string& sid, const json& s, std::vector<BenchRow>& out) {
  const json& tables = s["tables"];
  const json& median = tables["median"];
  std::string vs_key;
  // The baseline's ratio table comes first; a sweep's further versus() tables follow it.
  for (const auto& [key, t] : tables.items())
    if (vs_key.empty() && key.rfind("vs-", 0) == 0) vs_key = key;
  const json& columns = median["columns"];
  const std::string axis = tables.contains("best") ? title_of(tables["best"]["columns"], "column") : "";
  const std::string baseline =
      vs_key.empty() || columns.size() < 2 ? "" : baseline_title(s, vs_key.substr(3), columns[1]["key"].get<std::string>());
  const json& rows = median["rows"];
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 1; c < columns.size(); ++c) {
      const std::string key = columns[c]["key"];
      BenchRow row;
      row.lesson = lesson;
      row.section = sid;
      row.technique = rows[r].value("row", "");
      row.axis = axis;
      row.point = columns[c].value("title", key);
      row.is_baseline = !baseline.empty() && row.technique == baseline;
      row.format = format_named(columns[c].value("format", "plain"));
      row.median = value_of(rows[r][key], columns[c].value("needs_gpu", false));
      row.baseline = baseline;
      if (!vs_key.empty()) {
        const json& v = tables[vs_key]["rows"][r][key];
        if (v.is_number()) row.ratio = v.get<double>();
      }
      out.push_back(std::move(row));
    }
  }
}

void cost_rows(const std::string& lesson, const std::string& sid, const json& s, std::vector<BenchRow>& out) {
  const json measurements = s.value("measurements", json::object());
  for (const auto& [id, m] : measurements.items()) {
    BenchRow row;
    row.lesson = lesson;
    row.section = sid;
    row.technique = m.value("title", id);
    row.format = format_named(m.value("format", "plain"));
    row.median = value_of(m["median"], m.value("needs_gpu", false));
    out.push_back(std::move(row));
  }
}

std::string cell(std::string text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

std::string join_text(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string median_text(const BenchRow& r) { return report::format_value(r.median, r.format, true); }
std::string ratio_text(const BenchRow& r) { return r.ratio ? report::format_value(*r.ratio, Format::ratio, true) : ""; }

}  // namespace

std::vector<BenchRow> bench_rows(const std::string& lesson, const nlohmann::ordered_json& doc) {
  std::vector<BenchRow> out;
  if (!doc.contains("report") || !doc["report"].contains("sections")) return out;
  for (const auto& [sid, s] : doc["report"]["sections"].items()) {
    const json tables = s.value("tables", json::object());
    if (tables.contains("median")) sweep_rows(lesson, sid, s, out);
    else if (sid == "cost") cost_rows(lesson, sid, s, out);
  }
  return out;
}

std::string results_file_stem(const std::string& gpu_name) {
  std::string out;
  for (const char c : gpu_name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "reference-model" : out;
}

const BenchRow* BenchTable::cell(std::size_t technique, std::size_t point) const {
  return cells.at(technique * std::max<std::size_t>(1, points.size()) + point);
}

std::vector<BenchTable> bench_tables(const std::vector<BenchRow>& rows) {
  std::vector<BenchTable> out;
  for (const auto& r : rows) {
    auto t = std::find_if(out.begin(), out.end(),
                          [&](const BenchTable& x) { return x.lesson == r.lesson && x.section == r.section; });
    if (t == out.end()) {
      out.push_back({r.lesson, r.section, r.axis, r.baseline, {}, {}, {}});
      t = out.end() - 1;
    }
    if (!r.point.empty() && std::find(t->points.begin(), t->points.end(), r.point) == t->points.end())
      t->points.push_back(r.point);
    if (std::find(t->techniques.begin(), t->techniques.end(), r.technique) == t->techniques.end())
      t->techniques.push_back(r.technique);
  }
  for (auto& t : out) {
    const std::size_t width = std::max<std::size_t>(1, t.points.size());
    t.cells.assign(t.techniques.size() * width, nullptr);
    for (const auto& r : rows) {
      if (r.lesson != t.lesson || r.section != t.section) continue;
      const auto ti = static_cast<std::size_t>(
          std::find(t.techniques.begin(), t.techniques.end(), r.technique) - t.techniques.begin());
      const auto pi = r.point.empty() ? std::size_t{0}
                                      : static_cast<std::size_t>(
                                            std::find(t.points.begin(), t.points.end(), r.point) - t.points.begin());
      t.cells[ti * width + pi] = &r;
    }
  }
  return out;
}

std::string results_markdown_tables(const std::vector<BenchRow>& rows) {
  std::ostringstream m;
  for (const auto& t : bench_tables(rows)) {
    m << "### " << t.lesson << ": " << t.section << "\n\n";
    if (t.points.empty()) {
      m << "Medians; this section names no peer to divide by (its own rows may be NVIDIA's built-ins).\n\n"
        << "| technique | median |\n|---|---:|\n";
      for (std::size_t i = 0; i < t.techniques.size(); ++i) {
        const BenchRow* c = t.cell(i, 0);
        m << "| " << cell(t.techniques[i]) << " | " << (c ? cell(median_text(*c)) : "") << " |\n";
      }
      m << "\n";
      continue;
    }
    if (t.baseline.empty())
      m << "Medians by " << t.axis << ".\n\n";
    else
      m << "By " << t.axis << ": the row of " << t.baseline << ", the peer the lesson measures against, holds its "
        << "medians; every other row its median over the peer's at the same point, measured in the same run.\n\n";
    m << "| technique |";
    for (const auto& p : t.points) m << " " << cell(p) << " |";
    m << "\n|---|";
    for (std::size_t i = 0; i < t.points.size(); ++i) m << "---:|";
    m << "\n";
    for (std::size_t i = 0; i < t.techniques.size(); ++i) {
      m << "| " << cell(t.techniques[i]) << " |";
      for (std::size_t p = 0; p < t.points.size(); ++p) {
        const BenchRow* c = t.cell(i, p);
        std::string text;
        if (c) text = c->is_baseline || t.baseline.empty() || !c->ratio ? median_text(*c) : ratio_text(*c);
        m << " " << cell(text) << " |";
      }
      m << "\n";
    }
    m << "\n";
  }
  return m.str();
}

std::string results_markdown(const BenchRun& run) {
  std::ostringstream m;
  m << "# cudasync bench: " << run.gpu << "\n\n"
    << "Written by `" << run.command << "`: every lesson's `--bench` in one run, each technique beside its "
    << "NVIDIA peer as a ratio measured in the same run.";
  if (!run.measured) m << " **No GPU ran this: every figure needs a GPU; the tables show the shape only.**";
  m << "\n\n| | |\n|---|---|\n"
    << "| GPU | " << cell(run.gpu) << " |\n"
    << "| driver | " << cell(run.driver) << " |\n"
    << "| CUDA runtime | " << cell(run.runtime) << " |\n"
    << "| cudasync | " << kToolVersion << " (git " << kGitSha << ") |\n"
    << "| date | " << run.date << " |\n\n"
    << "## Results\n\n"
    << results_markdown_tables(run.rows)
    << "## Lessons\n\n| lesson | status | seconds | detail |\n|---|---|---:|---|\n";
  for (const auto& l : run.lessons) {
    std::ostringstream secs;
    secs.setf(std::ios::fixed);
    secs.precision(1);
    secs << l.seconds;
    m << "| " << l.lesson << " | " << l.status << " | " << secs.str() << " | " << cell(l.detail) << " |\n";
  }
  return m.str();
}

nlohmann::ordered_json results_json(const BenchRun& run) {
  nlohmann::ordered_json j;
  j["bench_version"] = 1;
  j["tool_version"] = kToolVersion;
  j["git_sha"] = kGitSha;
  j["date"] = run.date;
  j["command"] = run.command;
  j["measured"] = run.measured;
  j["gpu"] = run.gpu;
  j["device"] = run.device;
  j["driver"] = run.driver;
  j["runtime"] = run.runtime;
  nlohmann::ordered_json lessons = nlohmann::ordered_json::array();
  for (const auto& l : run.lessons)
    lessons.push_back({{"lesson", l.lesson}, {"status", l.status}, {"exit_code", l.exit_code}, {"seconds", l.seconds},
                       {"detail", l.detail}});
  j["lessons"] = lessons;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& r : run.rows) {
    nlohmann::ordered_json row;
    row["lesson"] = r.lesson;
    row["benchmark"] = r.section;
    row["technique"] = r.technique;
    row["axis"] = r.axis;
    row["point"] = r.point;
    row["median"] = report::is_number(r.median) ? nlohmann::ordered_json(std::get<double>(r.median)) : nullptr;
    row["unit"] = report::unit_of(r.format);
    row["format"] = report::to_string(r.format);
    row["vs"] = r.baseline;
    row["ratio"] = r.ratio ? nlohmann::ordered_json(*r.ratio) : nullptr;
    rows.push_back(std::move(row));
  }
  j["results"] = rows;
  return j;
}

report::Report bench_report(const BenchRun& run, const std::vector<std::string>& written) {
  report::Report r;
  r.command = "bench";
  r.title = "cudasync bench: every lesson's --bench, each technique beside its NVIDIA peer";
  report::Section s("run", "the run");
  s.fact("gpu", "GPU", run.gpu);
  s.fact("driver", "driver", run.driver);
  s.fact("runtime", "CUDA runtime", run.runtime);
  s.fact("date", "date", run.date);
  s.fact("measured", "measured on a GPU", run.measured);
  std::string files;
  for (const auto& w : written) files += (files.empty() ? "" : ", ") + w;
  s.fact("files", "files written", files.empty() ? std::string("none (--out DIR writes <gpu-name>.md and .json)") : files);
  if (!run.measured)
    s.note("no GPU ran this: the lessons ran their --bench on the reference model, so every figure says \"needs a "
           "GPU\"; the tables show the shape a GPU run fills");
  r.sections.push_back(std::move(s));

  report::Section ls("lessons", "lessons");
  report::Table lt("lessons", "each lesson's --bench, run as a child process");
  lt.column("lesson", "lesson").column("status", "status").column("exit-code", "exit").column("seconds", "seconds")
      .column("detail", "detail");
  for (const auto& l : run.lessons) {
    lt.row({{"lesson", l.lesson},
            {"status", l.status},
            {"exit-code", static_cast<std::int64_t>(l.exit_code)},
            {"seconds", l.seconds},
            {"detail", l.detail.empty() ? report::Value{report::Undefined{}} : report::Value{l.detail}}});
    const bool ran = l.status == "ok" || l.status == "waived";
    ls.check(l.lesson + "-ran", l.lesson + " --bench ran", ran, ran ? "" : l.status + ": " + l.detail);
  }
  ls.add(std::move(lt));
  r.sections.push_back(std::move(ls));

  report::Section rs("results", "results");
  for (const auto& bt : bench_tables(run.rows)) {
    report::Table t(bt.lesson + "-" + bt.section, bt.lesson + ": " + bt.section);
    t.column("technique", "technique");
    if (bt.points.empty()) {
      const BenchRow* first = bt.cell(0, 0);
      t.column("median", "median", first ? first->format : Format::plain);
      for (std::size_t i = 0; i < bt.techniques.size(); ++i) {
        const BenchRow* c = bt.cell(i, 0);
        t.row({{"technique", bt.techniques[i]}, {"median", c ? c->median : report::Value{report::Undefined{}}}});
      }
    } else {
      for (std::size_t p = 0; p < bt.points.size(); ++p)
        t.column("at-" + std::to_string(p + 1), bt.points[p], bt.baseline.empty() ? Format::plain : Format::ratio);
      std::vector<std::string> peer;
      for (std::size_t i = 0; i < bt.techniques.size(); ++i) {
        std::vector<std::pair<std::string, report::Value>> cells{{"technique", bt.techniques[i]}};
        for (std::size_t p = 0; p < bt.points.size(); ++p) {
          const BenchRow* c = bt.cell(i, p);
          report::Value v = report::Undefined{};
          if (c) v = bt.baseline.empty() ? c->median : c->ratio ? report::Value{*c->ratio} : c->median;
          if (c && c->is_baseline && report::is_number(c->median)) peer.push_back(bt.points[p] + " " + median_text(*c));
          cells.emplace_back("at-" + std::to_string(p + 1), v);
        }
        t.row(cells);
      }
      t.legend.push_back(bt.baseline.empty() ? "medians by " + bt.axis
                                             : "x " + bt.baseline + " by " + bt.axis + "; its medians: " +
                                                   (peer.empty() ? std::string("need a GPU") : join_text(peer)));
    }
    rs.add(std::move(t));
  }
  r.sections.push_back(std::move(rs));
  return r;
}

}  // namespace cudasync::commands
