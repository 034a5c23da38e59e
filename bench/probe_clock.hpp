#pragma once
// The start-up probes' clock: milliseconds since a steady_clock time point.
#include <chrono>

inline double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}
