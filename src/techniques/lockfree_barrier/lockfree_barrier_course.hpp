#pragma once
// The name the lesson registry includes (cmake/lessons.cmake: <stem>_course.hpp); the lesson is lesson.hpp.
#include "techniques/lockfree_barrier/lesson.hpp"
