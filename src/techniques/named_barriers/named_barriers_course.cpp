// named-barriers' course: lessons/named-barriers/lesson.json declares every exercise; the rows that
// read a table or a fact need no code. These two read what the model's run concluded.
#include "techniques/named_barriers/named_barriers_course.hpp"

#include "core/course/exercise_texts.hpp"

#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::named_barriers {

namespace {

using course::LessonRunner;

const char* kLesson = "named-barriers";

// The run holds group 1 before its first barrier until group 0 has passed all of its phases: it
// finishes only if group 0 never needs group 1.
course::Answer groups_wait(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "bar-sync", "--groups", "128,128"});
  const report::Check& c = course::check(rep, "bar-sync", "model-finishes");
  return course::found(c.passed ? "no" : "yes", {{"detail", c.detail}});
}

course::Answer third_warp(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "misuse", "--count", "64", "--arrive", "96"});
  const report::Table& t = course::table(rep, "misuse", "case-0-model");
  const std::string without = course::as_text(t.cell(0, "without-rescue"));
  return course::found(without.find("hang") != std::string::npos ? "hangs" : "finishes",
                       {{"released", course::as_text(t.cell(0, "phases"))}, {"without", without}});
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course(kLesson, {{{"groups-wait", groups_wait}, {"third-warp", third_warp}}, {}});
  return c;
}

}  // namespace cudasync::named_barriers
