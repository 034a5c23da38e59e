#pragma once
// What the course commands (tour, exercise, check, progress, list) share: the --lang option, the
// lesson and exercise a student typed, checked, and the verdict of an answer as a section that is
// also recorded in the student's progress.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/cli/command.hpp"
#include "core/course/course.hpp"

namespace cudasync::commands {

// Exercise numbers CLI11 accepts before the lesson's own range is checked (1..kMaxExerciseNumber).
inline constexpr int kMaxExerciseNumber = 99;

// The lesson's exercise `number`, or a UsageError naming what is accepted:
//   "exercise lock 12: no such exercise; accepted: 1..8"
const course::Exercise& checked_exercise(const course::CourseLesson& lesson, long long number,
                                         const std::string& command);
// The check of the LESSON argument of exercise and check: a lesson with exercises. A lesson of the
// course without any is named as such ("multi-gpu has no exercises; ..."), not as an unknown word.
// A lesson's number in the course (cudasync list's #) as its name: "3" -> "named-barriers" when
// `order` is the course; anything else as typed.
std::string lesson_by_number(const std::string& typed, const std::vector<std::string>& order);

CLI::Validator exercise_lesson(const std::vector<cli::Command>& table);
// The course lesson `id` (CLI11 has checked it is one), with exercises.
course::CourseLesson checked_lesson(const std::vector<cli::Command>& table, const std::string& id);

// "the GPU (GPU 0, NVIDIA H100 ...)" or "the reference model": where an answer was computed.
std::string computed_on(const RunContext& ctx);

// Lesson by lesson: solved of how many exercises, answers given, the next exercise to try.
report::Table progress_table(const std::vector<course::CourseLesson>& lessons, const course::Progress& progress);

// A section of the student's progress: the tally ("3/7 lessons, 19/38 exercises") and progress_table().
report::Section progress_section(const std::string& id, const std::string& title,
                                 const std::vector<cli::Command>& table);

// The progress state, loaded with its warnings sent to stderr.
course::Progress load_student_progress();

// Records the verdict in the student's progress (warnings on stderr, never an error) and returns
// the section that shows it: id "check", a check "answer-right" that fails for a wrong answer (the
// run then exits 1).
report::Section verdict_section(const course::CourseLesson& lesson, const course::Exercise& e,
                                const std::string& given, const course::Verdict& v, const std::string& lang,
                                const RunContext& ctx, bool on_ptx_model = false, bool with_ptx_model = false);

}  // namespace cudasync::commands
