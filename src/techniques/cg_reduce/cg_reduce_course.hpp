#pragma once
// cg-reduce's place in the course: its tour stop and its exercises (core/course/exercise.hpp).
#include "core/course/exercise.hpp"
#include "core/course/exercise_texts.hpp"

namespace cudasync::cg_reduce {

const course::LessonCourse& course();

}  // namespace cudasync::cg_reduce
