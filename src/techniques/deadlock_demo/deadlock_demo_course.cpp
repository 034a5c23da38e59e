// deadlock-demo's course: lessons/deadlock-demo/lesson.json declares every exercise, and each reads
// its answer by id from a run of the lesson (the model's blocks without a slot, outcomes, waiters at
// a barrier, nodes of a wait-for cycle); none needs code.
#include "techniques/deadlock_demo/deadlock_demo_course.hpp"

#include "core/course/exercise_texts.hpp"

namespace cudasync::deadlock_demo {

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("deadlock-demo");
  return c;
}

}  // namespace cudasync::deadlock_demo
