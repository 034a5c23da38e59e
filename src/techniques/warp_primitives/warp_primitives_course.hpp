#pragma once
// warp-primitives' place in the course: its tour stop and its exercises, from
// lessons/warp-primitives/lesson.json (core/course/manifest.hpp), and the one exercise that needs
// code: the student's `__device__ int warp_sum(int v)` (starter: lessons/warp-primitives/warp_sum.cu),
// called by every lane of two full warps, must return its warp's sum in every lane. The tool
// compiles it with NVRTC, runs it on the GPU and says lane by lane where it is wrong
// (core/course/student_kernel.hpp; reduction.cpp).
#include <cstdint>
#include <vector>

#include "core/course/exercise.hpp"
#include "core/course/kernel_exercise.hpp"

namespace cudasync::warp_primitives {

const course::LessonCourse& course();  // lesson.cpp

inline constexpr int kWarpSumThreads = 64;  // two warps: a lane that reads across warps shows

// One value per thread, 0..99, from --seed.
std::vector<std::int32_t> warp_sum_inputs(std::uint64_t seed);
// Every lane's value against its warp's sum: the verdict and the table of wrong lanes.
course::KernelOutcome judge_warp_sum(const std::vector<std::int32_t>& in, const std::vector<std::int32_t>& out);
// The exercise's KernelRun: read the file, compile and run it in a child process, judge.
course::KernelOutcome run_warp_sum_exercise(const course::KernelRequest& request);

}  // namespace cudasync::warp_primitives
