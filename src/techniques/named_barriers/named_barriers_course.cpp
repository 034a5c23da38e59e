// named-barriers's exercises: every answer is read from a run of the lesson, never stored.
#include "techniques/named_barriers/named_barriers_course.hpp"

#include "core/course/report_read.hpp"

namespace cudasync::named_barriers {

const course::LessonCourse& course() {
  static const course::LessonCourse c{{}, {"TODO", ""}, {}};
  return c;
}

}  // namespace cudasync::named_barriers
