#pragma once
// cg-reduce's place in the course: its tour stop and its exercises, from lessons/cg-reduce/lesson.json
// (core/course/manifest.hpp), and the one exercise that needs code: the student's
// `__device__ int block_sum(int v)` (starter: lessons/cg-reduce/block_sum.cu), called by every thread
// of each block of 128, must return the block's sum in thread 0: the step every rung of the ladder
// takes inside a block. The tool compiles it with NVRTC, runs it on 8 blocks and says block by block
// where it is wrong (core/course/student_kernel.hpp; block_sum.cpp).
#include <cstdint>
#include <vector>

#include "core/course/exercise.hpp"
#include "core/course/kernel_exercise.hpp"

namespace cudasync::cg_reduce {

const course::LessonCourse& course();  // lesson.cpp

inline constexpr int kBlockSumBlock = 128;  // Fan's BLOCK_SIZE
inline constexpr int kBlockSumGrid = 8;

// One value per thread, 0..99, from --seed.
std::vector<std::int32_t> block_sum_inputs(std::uint64_t seed);

// Thread 0 of every block against the block's sum: the verdict and the table of blocks.
course::KernelOutcome judge_block_sum(const std::vector<std::int32_t>& in, const std::vector<std::int32_t>& out);

// The exercise's KernelRun: read the file, compile and run it in a child process, judge.
course::KernelOutcome run_block_sum_exercise(const course::KernelRequest& request);

}  // namespace cudasync::cg_reduce
