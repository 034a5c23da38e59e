#include "commands/bench_results.hpp"

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
  for (const auto& [key, t] : tables.items())
    if (key.rfind("vs-", 0) == 0) vs_key = key;
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
      row.at = (axis.empty() ? "" : axis + " ") + columns[c].value("title", key);
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

std::string results_table_head() {
  return "| lesson | benchmark | technique | at | median | vs | ratio |\n"
         "|---|---|---|---|---:|---|---:|\n";
}

std::string results_table(const std::vector<BenchRow>& rows) {
  std::string t = results_table_head();
  for (const auto& r : rows)
    t += "| " + cell(r.lesson) + " | " + cell(r.section) + " | " + cell(r.technique) + " | " + cell(r.at) + " | " +
         cell(median_text(r)) + " | " + cell(r.baseline) + " | " + cell(ratio_text(r)) + " |\n";
  return t;
}

std::string results_markdown(const BenchRun& run) {
  std::ostringstream m;
  m << "# cudasync bench: " << run.gpu << "\n\n"
    << "Written by `" << run.command << "`: every lesson's `--bench` in one run, each technique beside its "
    << "NVIDIA peer as a ratio measured in the same run (median over the peer's median at the same point).";
  if (!run.measured) m << " **No GPU ran this: every figure needs a GPU; the tables show the shape only.**";
  m << "\n\n| | |\n|---|---|\n"
    << "| GPU | " << cell(run.gpu) << " |\n"
    << "| driver | " << cell(run.driver) << " |\n"
    << "| CUDA runtime | " << cell(run.runtime) << " |\n"
    << "| cudasync | " << kToolVersion << " (git " << kGitSha << ") |\n"
    << "| date | " << run.date << " |\n\n"
    << "## Results\n\n"
    << results_table(run.rows) << "\n";
  bool cost = false;
  for (const auto& r : run.rows) cost = cost || (r.baseline.empty() && !r.ratio);
  if (cost)
    m << "Rows without a peer come from a lesson's `cost` section, which declares no baseline: NVIDIA's "
         "built-ins are rows of their own there.\n\n";
  m
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
    row["at"] = r.at;
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
  report::Table t("results", "the median of each technique at each point, and its ratio to the peer in the same run");
  t.column("lesson", "lesson").column("benchmark", "benchmark").column("technique", "technique").column("at", "at")
      .column("median", "median").column("unit", "unit").column("vs", "vs").column("ratio", "ratio", Format::ratio);
  for (const auto& row : run.rows)
    t.row({{"lesson", row.lesson},
           {"benchmark", row.section},
           {"technique", row.technique},
           {"at", row.at.empty() ? report::Value{report::Undefined{}} : report::Value{row.at}},
           {"median", row.median},
           {"unit", std::string(report::unit_of(row.format))},
           {"vs", row.baseline.empty() ? report::Value{report::Undefined{}} : report::Value{row.baseline}},
           {"ratio", row.ratio ? report::Value{*row.ratio} : report::Value{report::Undefined{}}}});
  rs.add(std::move(t));
  r.sections.push_back(std::move(rs));
  return r;
}

}  // namespace cudasync::commands
