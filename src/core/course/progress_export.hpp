#pragma once
// A student's progress as a file for the teacher (`cudasync progress --export FILE`), and reading
// many of them back (`cudasync class report`):
//
//   {"format": "cudasync-progress-export", "version": 1, "student": "ana", "host": "lab3",
//    "cudasync": "0.9.0", "gpu": "NVIDIA H100 80GB HBM3", "exported": "2026-11-28T21:00:00Z",
//    "exercises": [{"lesson": "lock", "number": 2, "id": "stale-read", "solved": true,
//                   "attempts": 3, "hints": 1, "answer_shown": false, "after_answer": false,
//                   "when": "2026-11-28T20:51:07Z", "first_tried": "2026-11-28T20:40:12Z",
//                   "solved_at": "2026-11-28T20:51:07Z", "solved_on": "gpu"}, ...]}
//
// Every exercise of the course is there, tried or not. A file of another format, or of a version
// this cudasync does not read, is refused naming the file, what it found and what it accepts.
#include <string>
#include <vector>

#include "core/course/course.hpp"
#include "core/course/progress.hpp"

namespace cudasync::course {

inline constexpr const char* kExportFormat = "cudasync-progress-export";
inline constexpr int kExportVersion = 1;

struct ExportedExercise {
  std::string lesson, id;
  int number = 0;
  bool solved = false, answer_shown = false, after_answer = false;
  int attempts = 0, hints = 0;
  std::string when;
  std::string first_tried, solved_at, solved_on;  // "" where unknown (solved_on: "gpu" or "model")
};

struct StudentExport {
  std::string student, host, version, gpu, exported, file;
  std::vector<ExportedExercise> exercises;
};

// The export document's text for `progress` over the course `lessons`.
std::string export_json(const std::vector<CourseLesson>& lessons, const Progress& progress, const std::string& student,
                        const std::string& host, const std::string& gpu, const std::string& now);

// Reads one export; throws UsageError naming `file` when it is not one this cudasync reads.
StudentExport read_export(const std::string& text, const std::string& file);

}  // namespace cudasync::course
