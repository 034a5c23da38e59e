// lock's course: lessons/lock/lesson.json declares every exercise, and each reads its answer by id
// from a run of the lesson (the models' outcomes, the ownership ledger, the combining lock's
// handoffs); none needs code.
#include "techniques/lock/lock_course.hpp"

#include "core/course/exercise_texts.hpp"

namespace cudasync::lock {

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("lock");
  return c;
}

}  // namespace cudasync::lock
