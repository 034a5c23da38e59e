// multi-gpu's course: its tour stop, from lessons/multi-gpu/lesson.json (it has no exercises yet).
#include "techniques/multi_gpu/multi_gpu_course.hpp"

#include "core/course/exercise_texts.hpp"

namespace cudasync::multi_gpu {

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course("multi-gpu");
  return c;
}

}  // namespace cudasync::multi_gpu
