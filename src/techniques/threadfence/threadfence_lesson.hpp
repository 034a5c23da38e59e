#pragma once
// The name the lesson registry (cmake/lessons.cmake) includes: the lesson is lesson.hpp.
#include "techniques/threadfence/lesson.hpp"
