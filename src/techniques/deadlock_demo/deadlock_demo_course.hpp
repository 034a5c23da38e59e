#pragma once
// deadlock-demo's place in the course: its tour stop and its exercises (core/course/exercise.hpp).
#include "core/course/exercise.hpp"
#include "core/course/exercise_texts.hpp"

namespace cudasync::deadlock_demo {

const course::LessonCourse& course();

}  // namespace cudasync::deadlock_demo
