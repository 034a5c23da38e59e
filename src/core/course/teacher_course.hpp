#pragma once
// A teacher's own exercises, without rebuilding: $CUDASYNC_COURSE_DIR/<lesson>.json holds rows in the
// form of the lesson's manifest (core/course/manifest.hpp), each with its question and hint, no
// number: they follow the lesson's own exercises (lock has 5: a teacher's first is 6).
//
//   {"lesson": "lock", "exercises": [
//     {"id": "stale-read-count-3", "answer": "integer",
//      "question": {"en": "How many updates does ... lose?", "zh": "..."},
//      "hint": {"en": "..."},
//      "run": ["--part", "stale-reads", "--runs", "1"],
//      "read": {"cell": "stale-reads/variants", "row": 0, "column": "model-count"},
//      "why": {"en": "The model ends with {answer}."}}]}
//
// A file that is not valid is refused when the course is loaded: a UsageError (exit 2) naming
// file:line: key: what is wrong. The built-in rows are never changed: a teacher's id that is one
// of the lesson's is refused too.
#include <string>
#include <vector>

#include "core/course/exercise.hpp"

namespace cudasync::course {

// `built_in` with the teacher's rows for `lesson` from `dir` appended ("" or a lesson without a
// file: `built_in` as it is). `lessons` are the lesson ids a file may name.
LessonCourse with_teacher_rows(const LessonCourse& built_in, const std::string& lesson, const std::string& dir,
                               const std::vector<std::string>& lessons);

// The files of `dir` that are no lesson's (<name>.json whose name is no lesson): each is refused.
void check_teacher_dir(const std::string& dir, const std::vector<std::string>& lessons);

}  // namespace cudasync::course
