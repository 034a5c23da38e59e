#include "core/course/progress_export.hpp"

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/version.hpp"

namespace cudasync::course {

using ExportJson = nlohmann::ordered_json;

std::string export_json(const std::vector<CourseLesson>& lessons, const Progress& progress, const std::string& student,
                        const std::string& host, const std::string& gpu, const std::string& now) {
  ExportJson doc;
  doc["format"] = kExportFormat;
  doc["version"] = kExportVersion;
  doc["student"] = student;
  doc["host"] = host;
  doc["cudasync"] = kToolVersion;
  doc["gpu"] = gpu;
  doc["exported"] = now;
  ExportJson rows = ExportJson::array();
  for (const auto& l : lessons)
    for (const auto& e : l.course->exercises) {
      const ExerciseRecord* r = record_of(progress, l.command->name, e);
      rows.push_back({{"lesson", l.command->name}, {"number", e.number}, {"id", e.id},
                      {"solved", r && r->solved}, {"attempts", r ? r->attempts : 0}, {"hints", r ? r->hints : 0},
                      {"answer_shown", r && !r->answer_shown.empty()}, {"after_answer", r && r->after_answer},
                      {"when", r ? r->when : std::string()}, {"first_tried", r ? r->first_when : std::string()},
                      {"solved_at", r ? r->solved_when : std::string()},
                      {"solved_on", r ? r->solved_on : std::string()}});
    }
  doc["exercises"] = std::move(rows);
  return doc.dump(2) + "\n";
}

StudentExport read_export(const std::string& text, const std::string& file) {
  const ExportJson doc = ExportJson::parse(text, nullptr, false);
  const auto refuse = [&](const std::string& what) -> StudentExport {
    throw UsageError("class report " + file + ": " + what + "; accepted: a file cudasync progress --export wrote (" +
                     kExportFormat + " version " + std::to_string(kExportVersion) + ")");
  };
  if (doc.is_discarded() || !doc.is_object()) return refuse("not a JSON object");
  if (doc.value("format", ExportJson()) != kExportFormat) return refuse("not a cudasync progress export");
  if (!doc.contains("version") || !doc["version"].is_number_integer()) return refuse("no version");
  if (doc["version"].get<long long>() != kExportVersion)
    return refuse("version " + doc["version"].dump() + ", written by cudasync " + doc.value("cudasync", std::string("?")));
  StudentExport s;
  s.file = file;
  try {
    s.student = doc.at("student").get<std::string>();
    s.host = doc.at("host").get<std::string>();
    s.version = doc.at("cudasync").get<std::string>();
    s.gpu = doc.at("gpu").get<std::string>();
    s.exported = doc.at("exported").get<std::string>();
    for (const auto& r : doc.at("exercises")) {
      ExportedExercise x;
      x.lesson = r.at("lesson").get<std::string>();
      x.number = r.at("number").get<int>();
      x.id = r.at("id").get<std::string>();
      x.solved = r.at("solved").get<bool>();
      x.attempts = r.at("attempts").get<int>();
      x.hints = r.at("hints").get<int>();
      x.answer_shown = r.at("answer_shown").get<bool>();
      x.after_answer = r.at("after_answer").get<bool>();
      x.when = r.at("when").get<std::string>();
      // Added in a later cudasync of the same version: read when present.
      x.first_tried = r.value("first_tried", std::string());
      x.solved_at = r.value("solved_at", std::string());
      x.solved_on = r.value("solved_on", std::string());
      if (x.attempts < 0 || x.hints < 0 || x.number < 1) return refuse("a count out of range");
      s.exercises.push_back(std::move(x));
    }
  } catch (const ExportJson::exception& e) {
    return refuse(std::string("a field is missing or of the wrong type (") + e.what() + ")");
  }
  return s;
}

}  // namespace cudasync::course
