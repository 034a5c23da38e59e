#pragma once
// warp-primitives' place in the course: its tour stop and its exercises (core/course/exercise.hpp).
#include "core/course/exercise.hpp"

namespace cudasync::warp_primitives {

const course::LessonCourse& course();

}  // namespace cudasync::warp_primitives
