// cg-reduce's course: lessons/cg-reduce/lesson.json declares every exercise; those with an answer
// read it by id from a run of the lesson (the rungs' errors compared, a bound's chain, whether the
// rungs' sums are the same bits) and need no code. The kernel exercise has its KernelRun.
#include "techniques/cg_reduce/cg_reduce_course.hpp"

#include "core/course/exercise_texts.hpp"

#include "techniques/cg_reduce/cg_reduce_kernel_exercise.hpp"

namespace cudasync::cg_reduce {

const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course("cg-reduce", {{}, {{"block-sum-kernel", run_block_sum_exercise}}});
  return c;
}

}  // namespace cudasync::cg_reduce
