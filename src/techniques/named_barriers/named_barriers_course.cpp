// named-barriers' course: lessons/named-barriers/lesson.json declares every exercise; the rows that
// read a table, a fact or a check need no code. This one reads what the model's run concluded.
#include "techniques/named_barriers/named_barriers_course.hpp"

#include "core/course/exercise_texts.hpp"

#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::named_barriers {

namespace {

using course::LessonRunner;

const char* kLesson = "named-barriers";

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
      course::lesson_course(kLesson, {{{"third-warp", third_warp}}, {}});
  return c;
}

}  // namespace cudasync::named_barriers
