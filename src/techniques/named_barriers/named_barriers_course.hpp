#pragma once
// The name the lesson registry (cmake/lessons.cmake) includes: the course is in lesson.hpp.
#include "techniques/named_barriers/lesson.hpp"
