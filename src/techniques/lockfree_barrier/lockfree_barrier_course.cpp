// lockfree-barrier's course: lessons/lockfree-barrier/lesson.json declares every exercise, and each
// reads its answer by id from a run of the lesson (the model's simulation of Xiao & Feng's barriers:
// its g_mutex, its outcome, whether a block passed early); none needs code.
#include "techniques/lockfree_barrier/lockfree_barrier_course.hpp"

#include "core/course/exercise_texts.hpp"

namespace cudasync::lockfree_barrier {

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("lockfree-barrier");
  return c;
}

}  // namespace cudasync::lockfree_barrier
