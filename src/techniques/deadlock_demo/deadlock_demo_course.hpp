#pragma once
// The name the lesson registry includes (cmake/lessons.cmake: <stem>_course.hpp); the lesson is lesson.hpp.
#include "techniques/deadlock_demo/lesson.hpp"
