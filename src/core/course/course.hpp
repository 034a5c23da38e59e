#pragma once
// The course as the commands see it (tour, exercise, check, progress, list): the lessons of main's
// table in course order, each with its LessonCourse, and what a student's progress amounts to.
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"
#include "core/course/exercise.hpp"
#include "core/course/progress.hpp"

namespace cudasync::course {

struct CourseLesson {
  const cli::Command* command;  // the lesson's row in main's table
  const LessonCourse* course;   // its tour stop and exercises (never null here)
};

// A teacher's file that is not valid ($CUDASYNC_COURSE_DIR, core/course/teacher_course.hpp): a
// UsageError (exit 2) when a command runs; while the command line is being built, the lesson's
// own course in its place (the run that follows says what is wrong).
enum class TeacherErrors { thrown, built_in_instead };

// The lessons of main's table that have a place in the course, in course order (the table's),
// each with a teacher's rows where $CUDASYNC_COURSE_DIR has some.
std::vector<CourseLesson> course_of(const std::vector<cli::Command>& table,
                                    TeacherErrors errors = TeacherErrors::thrown);
// The ids of those with at least one exercise.
std::vector<std::string> lessons_with_exercises(const std::vector<cli::Command>& table,
                                                TeacherErrors errors = TeacherErrors::thrown);
// The lesson `id` of the course, or nullopt.
std::optional<CourseLesson> find_course_lesson(const std::vector<cli::Command>& table, const std::string& id);
// Exercise `number` of a lesson, or nullptr.
const Exercise* find_exercise(const LessonCourse& course, long long number);
// "1..8": the numbers a lesson's exercises accept.
std::string numbers_accepted(const LessonCourse& course);

// "3/7 lessons, 19/52 exercises": a lesson counts once every one of its exercises is solved;
// lessons without exercises are not counted.
struct Tally {
  int lessons_done = 0, lessons = 0;
  int solved = 0, exercises = 0;
  std::string text() const;
};
Tally tally(const std::vector<CourseLesson>& lessons, const Progress& progress);
// The student's record of exercise `e` of `lesson`: under its id, else under a former id; or nullptr.
const ExerciseRecord* record_of(const Progress& progress, const std::string& lesson, const Exercise& e);
// A lesson's own count: solved of its exercises.
int solved_in(const CourseLesson& lesson, const Progress& progress);

// `text` with each {name} of the answer's values, and {answer}, replaced by its value.
std::string filled(std::string text, const Answer& a);

// The exercise's answer, computed now by running the lesson through `runner`, its working the row's
// `why` filled with the answer's values where the compute gave none. Throws WaivedError
// (exit 77) for an answer only a GPU gives when the run has none.
Answer compute_answer(const Exercise& e, LessonRunner& runner);
// `given` (canonical, course/answer_format.hpp) against the computed answer: the row's own compare,
// or equality with the working as the reason.
Verdict judge(const Exercise& e, const Answer& computed, const std::string& given);

}  // namespace cudasync::course
