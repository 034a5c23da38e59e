// lockfree-barrier's exercises: every answer is read from a run of the lesson, never stored.
#include "techniques/lockfree_barrier/lockfree_barrier_course.hpp"

#include "core/course/report_read.hpp"

namespace cudasync::lockfree_barrier {

const course::LessonCourse& course() {
  static const course::LessonCourse c{{}, {"TODO", ""}, {}};
  return c;
}

}  // namespace cudasync::lockfree_barrier
