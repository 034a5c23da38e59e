#pragma once
// lock's place in the course: its tour stop and its exercises (core/course/exercise.hpp).
#include "core/course/exercise.hpp"
#include "core/course/exercise_texts.hpp"

namespace cudasync::lock {

const course::LessonCourse& course();

}  // namespace cudasync::lock
