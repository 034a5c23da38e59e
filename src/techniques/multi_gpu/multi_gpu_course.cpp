// multi-gpu's tour stop: the GPU-to-host flag, the one part a machine with one GPU runs for real. Its
// sentence to remember is in lessons/multi-gpu/.
#include "techniques/multi_gpu/multi_gpu_course.hpp"

#include "core/course/exercise_texts.hpp"

namespace cudasync::multi_gpu {

const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course("multi-gpu", {"--part", "host-flag", "--iterations", "200"}, {}, {});
  return c;
}

}  // namespace cudasync::multi_gpu
