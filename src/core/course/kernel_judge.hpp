#pragma once
// Decides one launch of a kernel exercise: what every checked thread should have returned, by the
// row's expect (core/course/kernel_spec.hpp), against what it did. Plain C++, no CUDA.
//
//   expect {"what": "sum", "over": "block", "who": "first"}, grid 2 x block 4, in 1 2 3 4 5 6 7 8:
//   thread 0 should return 10 and thread 4 26; the others are not checked.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/course/kernel_spec.hpp"

namespace cudasync::course {

struct WrongThread {
  int thread = 0;  // in the grid
  std::int32_t got = 0;
  std::optional<std::int32_t> expected;  // tickets: none (the value is repeated or out of range)
  // What the wrong value is, when it is one of the usual mistakes: "own-value" (its own input),
  // "zero" (nothing written), "warp-sum" (the sum of its warp only, where a larger sum is wanted),
  // "repeated" (tickets: a value another thread returned too), "" otherwise.
  std::string looks_like;
};

struct LaunchJudgement {
  int checked = 0;  // threads whose value is judged
  std::vector<WrongThread> wrong;
};

// Whether thread t (in the grid) is checked.
bool checked_thread(const KernelExpect& x, int t, int block);

// The judgement of one launch of grid x block threads with inputs `in` and outputs `out`.
LaunchJudgement judge_launch(const KernelExpect& x, int grid, int block, const std::vector<std::int32_t>& in,
                             const std::vector<std::int32_t>& out);

// Whether two runs of one launch (the GPU's and the PTX model's) returned the same in every checked
// thread; for tickets, the same values in any order (which thread got which is the schedule's).
bool same_outputs(const KernelExpect& x, int block, const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b);

}  // namespace cudasync::course
