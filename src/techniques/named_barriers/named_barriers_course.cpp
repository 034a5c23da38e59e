// named-barriers' course: lessons/named-barriers/lesson.json declares every exercise, and each reads
// its answer by id from a run of the lesson (a reduction's count, a check, the phases of a
// producer-consumer run, the rescue arrivals a bad count needs); none needs code.
#include "techniques/named_barriers/named_barriers_course.hpp"

#include "core/course/exercise_texts.hpp"

namespace cudasync::named_barriers {

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("named-barriers");
  return c;
}

}  // namespace cudasync::named_barriers
