#include "core/report/json_renderer.hpp"

#include <algorithm>
#include <cmath>

#include "core/version.hpp"

namespace cudasync::report {

using json = nlohmann::ordered_json;

namespace {

json value_json(const Value& v) {
  if (std::holds_alternative<Undefined>(v) || std::holds_alternative<NeedsGpu>(v)) return nullptr;
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? json(*d) : json(nullptr);
  return std::get<std::int64_t>(v);
}

bool needs_gpu(const Value& v) { return std::holds_alternative<NeedsGpu>(v); }

json table_json(const Table& t) {
  json j;
  j["id"] = t.id;
  j["title"] = t.title;
  json cols = json::array();
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const Column& col = t.columns[c];
    json cj;
    cj["key"] = col.key;
    cj["title"] = col.title;
    cj["format"] = to_string(col.format);
    const bool gpu_only =
        std::any_of(t.rows.begin(), t.rows.end(), [&](const Row& r) { return needs_gpu(r.cells[c]); });
    if (gpu_only) cj["needs_gpu"] = true;
    cols.push_back(std::move(cj));
  }
  j["columns"] = std::move(cols);
  json rows = json::array();
  for (const Row& r : t.rows) {
    json row;
    for (std::size_t c = 0; c < t.columns.size(); ++c) row[t.columns[c].key] = value_json(r.cells[c]);
    row["mark"] = to_string(r.mark);
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  j["legend"] = t.legend;
  if (t.picture) {
    const Picture& p = t.picture;
    json pj;
    pj["kind"] = to_string(p.kind);
    json roles = json::object();
    for (const auto& [role, key] : p.roles) roles[role] = key;
    pj["roles"] = std::move(roles);
    pj["series"] = p.series;
    pj["labels"] = p.labels;
    if (!p.names.empty()) pj["names"] = p.names;
    if (p.width > 0) pj["width"] = p.width;
    if (!p.baseline.empty()) pj["baseline"] = p.baseline;
    j["picture"] = std::move(pj);
  }
  return j;
}

json fact_json(const Fact& f) {
  json j;
  j["id"] = f.id;
  j["title"] = f.title;
  j["value"] = value_json(f.value);
  j["format"] = to_string(f.format);
  if (needs_gpu(f.value)) j["needs_gpu"] = true;
  if (!f.note.empty()) j["note"] = f.note;
  return j;
}

json measurement_json(const Measurement& m) {
  json j;
  j["id"] = m.id;
  j["title"] = m.title;
  j["format"] = to_string(m.format);
  j["unit"] = unit_of(m.format);
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

json check_json(const Check& c) { return json{{"id", c.id}, {"title", c.title}, {"passed", c.passed}, {"detail", c.detail}}; }

// Objects keyed by id, in the order the report holds them: `.facts.sum.value`, not a search.
template <class T, class F>
json keyed(const std::vector<T>& items, F to_json) {
  json j = json::object();
  for (const auto& item : items) j[item.id] = to_json(item);
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
  validate_ids(report);
  json j;
  j["command"] = report.command;
  j["title"] = report.title;
  json sections = json::object();
  for (const auto& s : report.sections) {
    json sj;
    sj["id"] = s.id;
    sj["title"] = s.title;
    sj["paragraphs"] = s.paragraphs;
    sj["facts"] = keyed(s.facts, fact_json);
    sj["tables"] = keyed(s.tables, table_json);
    sj["measurements"] = keyed(s.measurements, measurement_json);
    sj["checks"] = keyed(s.checks, check_json);
    sj["notes"] = s.notes;
    sections[s.id] = std::move(sj);
  }
  j["sections"] = std::move(sections);
  json waived = json::object();
  for (const auto& w : report.waived) waived[w.part] = json{{"part", w.part}, {"reason", w.reason}};
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
