#pragma once
// What a kernel exercise's manifest row says (lessons/<lesson>/lesson.json, "kernel": {...}): the
// files, the shapes and inputs the checker runs, and what every checked thread must return. Plain
// data: the checker (core/course/kernel_check.hpp) runs it, the judge (kernel_judge.hpp) decides.
//
//   "kernel": {"file": "kernels/block_sum.cu", "harness": "kernels/block_sum.harness.cu",
//              "shapes": [[8, 128], [1, 128]], "scratch": 1, "inputs": [0, 99],
//              "expect": {"what": "sum", "over": "block", "who": "first"}}
#include <string>
#include <utility>
#include <vector>

namespace cudasync::course {

struct KernelExpect {
  enum class What {
    sum,      // the sum of in[] over the thread's group (`over`)
    input,    // its own in[t]
    rotate,   // in[] of the thread `by` places on in its block, or (over grid) `by` blocks on in the grid
    tickets,  // the checked threads' values are 0..k-1, each once
  };
  enum class Who { all, first, lane0 };  // every thread; thread 0 of a block; lane 0 of a warp
  What what = What::sum;
  Who who = Who::all;
  int over = 32;  // sum: threads per group; kOverBlock / kOverGrid for the whole block / grid;
                  // rotate: kOverBlock (by threads, in its block) or kOverGrid (by blocks, in the grid)
  int by = 1;     // rotate
  static constexpr int kOverBlock = -1;
  static constexpr int kOverGrid = -2;
};

struct KernelSpec {
  std::string file;     // what --starter prints, relative to lessons/<lesson>/
  std::string harness;  // the tool's __global__ cudasync_exercise, relative to lessons/<lesson>/
  std::vector<std::pair<int, int>> shapes;  // [grid, block], each run
  int scratch = 1;                          // ints of zeroed global scratch
  int input_min = 0, input_max = 99;        // in[] drawn from this range
  KernelExpect expect;
  int model_gpus = 1;  // the PTX model splits the grid's blocks over this many GPUs
  // A memory-stress kernel runs beside every GPU launch ("memory_stress": true): for the exercises
  // whose point is memory ordering (fences, flags, locks), where a loaded L2 shows weak behaviour.
  bool memory_stress = false;
};

}  // namespace cudasync::course
