#include "core/report/json_renderer.hpp"

#include "core/version.hpp"

namespace cudasync::report {

using json = nlohmann::ordered_json;

namespace {

json value_json(const Value& v) {
  if (std::holds_alternative<Undefined>(v)) return nullptr;
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::get<std::int64_t>(v);
}

json table_json(const LaneTable& t) {
  json j;
  j["id"] = t.id;
  j["title"] = t.title;
  json cols = json::array();
  for (const auto& c : t.columns) {
    json cj;
    cj["key"] = c.key;
    cj["title"] = c.title;
    if (!c.format.empty()) cj["format"] = c.format;
    cols.push_back(std::move(cj));
  }
  j["columns"] = std::move(cols);
  json rows = json::array();
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    json row;
    for (std::size_t c = 0; c < t.columns.size(); ++c) row[t.columns[c].key] = value_json(t.rows[r][c]);
    row["mark"] = to_string(t.marks[r]);
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  j["legend"] = t.legend;
  return j;
}

json measurement_json(const Measurement& m) {
  json j;
  j["name"] = m.name;
  j["unit"] = m.unit;
  j["needs_gpu"] = m.needs_gpu;
  j["repetitions"] = m.repetitions();
  if (m.samples.empty()) {
    j["median"] = nullptr;
    j["min"] = nullptr;
    j["max"] = nullptr;
  } else {
    j["median"] = m.median();
    j["min"] = m.min();
    j["max"] = m.max();
  }
  j["samples"] = m.samples;
  if (!m.note.empty()) j["note"] = m.note;
  return j;
}

json meta_head(const RunMeta& meta) {
  json j;
  j["schema_version"] = kSchemaVersion;
  j["tool_version"] = kToolVersion;
  j["git_sha"] = kGitSha;
  j["cuda_built_in"] = kCudaBuiltIn;
  j["argv"] = meta.argv;
  return j;
}

}  // namespace

json device_json(const DeviceInfo& d, int driver_version, int runtime_version) {
  json j;
  j["index"] = d.index;
  j["name"] = d.name;
  j["compute_capability"] = d.cc_string();
  j["sm_count"] = d.sm_count;
  j["warp_size"] = d.warp_size;
  j["max_threads_per_block"] = d.max_threads_per_block;
  j["max_threads_per_sm"] = d.max_threads_per_sm;
  j["max_blocks_per_sm"] = d.max_blocks_per_sm;
  j["shared_mem_per_sm_bytes"] = d.shared_mem_per_sm;
  j["registers_per_sm"] = d.regs_per_sm;
  j["l2_bytes"] = d.l2_bytes;
  j["clock_khz"] = d.clock_khz;
  j["cooperative_launch"] = d.cooperative_launch;
  j["driver_version"] = version_string(driver_version);
  j["runtime_version"] = version_string(runtime_version);
  return j;
}

json report_json(const Report& report) {
  json j;
  j["technique"] = report.technique;
  j["title"] = report.title;
  json sections = json::array();
  for (const auto& s : report.sections) {
    json sj;
    sj["id"] = s.id;
    sj["title"] = s.title;
    sj["paragraphs"] = s.paragraphs;
    json facts = json::array();
    for (const auto& f : s.facts) {
      json fj;
      fj["name"] = f.name;
      fj["value"] = value_json(f.value);
      if (!f.format.empty()) fj["format"] = f.format;
      if (!f.note.empty()) fj["note"] = f.note;
      facts.push_back(std::move(fj));
    }
    sj["facts"] = std::move(facts);
    json tables = json::array();
    for (const auto& t : s.tables) tables.push_back(table_json(t));
    sj["tables"] = std::move(tables);
    json ms = json::array();
    for (const auto& m : s.measurements) ms.push_back(measurement_json(m));
    sj["measurements"] = std::move(ms);
    json checks = json::array();
    for (const auto& c : s.checks) checks.push_back(json{{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
    sj["checks"] = std::move(checks);
    sj["notes"] = s.notes;
    sections.push_back(std::move(sj));
  }
  j["sections"] = std::move(sections);
  json waived = json::array();
  for (const auto& w : report.waived) waived.push_back(json{{"part", w.part}, {"reason", w.reason}});
  j["waived"] = std::move(waived);
  if (!report.document.empty()) j["document"] = report.document;
  j["summary"] = json{{"checks_passed", report.checks_passed()},
                      {"checks_failed", report.checks_failed()},
                      {"waived", report.waived.size()}};
  return j;
}

json document_json(const Report& report, const RunMeta& meta) {
  json j = meta_head(meta);
  j["device"] = meta.device ? device_json(*meta.device, meta.driver_version, meta.runtime_version) : json(nullptr);
  j["backend"] = json{{"requested", meta.backend_requested},
                      {"used", meta.backend_used.empty() ? json(nullptr) : json(meta.backend_used)},
                      {"reason", meta.backend_reason}};
  j["report"] = report_json(report);
  return j;
}

json error_document_json(const std::string& kind, const std::string& message, int exit_code, const RunMeta& meta) {
  json j = meta_head(meta);
  j["error"] = json{{"kind", kind}, {"message", message}, {"exit_code", exit_code}};
  return j;
}

}  // namespace cudasync::report
