#pragma once
// multi-gpu's place in the course: its tour stop (core/course/exercise.hpp). It has no exercises
// yet: its answers come from two-GPU parts that a machine with one GPU waives.
#include "core/course/exercise.hpp"

namespace cudasync::multi_gpu {

const course::LessonCourse& course();

}  // namespace cudasync::multi_gpu
