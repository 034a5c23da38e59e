// threadfence's course: lessons/threadfence/lesson.json declares every exercise, and each reads its
// answer by id from a run of the lesson (the PTX model's allowed outcomes by fence and placement,
// the fence the host observer needs); none needs code.
#include "techniques/threadfence/threadfence_course.hpp"

#include "core/course/exercise_texts.hpp"

namespace cudasync::threadfence {

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("threadfence");
  return c;
}

}  // namespace cudasync::threadfence
