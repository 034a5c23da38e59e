#pragma once
// cg-reduce's place in the course: its tour stop and its exercises (core/course/exercise.hpp).
#include "core/course/exercise.hpp"
#include "core/course/exercise_texts.hpp"

namespace cudasync::cg_reduce {

const course::LessonCourse& course();
// How each computed exercise's answer follows (its why), by exercise id, in en and zh.
const course::Whys& exercise_whys();

}  // namespace cudasync::cg_reduce
