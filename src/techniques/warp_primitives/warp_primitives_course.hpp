#pragma once
// warp-primitives' place in the course: its tour stop and its exercises, from
// lessons/warp-primitives/lesson.json (core/course/manifest.hpp), and what only its code computes.
#include "core/course/exercise.hpp"
#include "core/course/exercise_texts.hpp"

namespace cudasync::warp_primitives {

const course::LessonCourse& course();

}  // namespace cudasync::warp_primitives
