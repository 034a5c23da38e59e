// warp-primitives' course: lessons/warp-primitives/lesson.json declares every exercise, and each
// computed one reads its answer by id from a run of the lesson (the GPU's column where there is a
// GPU, the model's otherwise). Only the kernel exercise needs code: its KernelRun.
#include "techniques/warp_primitives/warp_primitives_course.hpp"

#include "core/course/exercise_texts.hpp"

#include "techniques/warp_primitives/warp_primitives_kernel_exercise.hpp"

namespace cudasync::warp_primitives {

const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course("warp-primitives", {{}, {{"warp-sum-kernel", run_warp_sum_exercise}}});
  return c;
}

}  // namespace cudasync::warp_primitives
