#pragma once
// The checker of every kernel exercise: the row's spec (core/course/kernel_spec.hpp) says what to
// run; this hunts for the bug rather than trusting one lucky run.
//
//   - every shape of the row, each with three seeds (inputs drawn from the row's range) and three
//     delay patterns (none; a random __nanosleep per warp before the student's code; after it),
//     on the GPU where there is one;
//   - the PTX model (core/ptx) on the shapes of at most kModelThreads threads, under its hunting
//     schedules, with or without a GPU: a race it finds fails the exercise even when the GPU
//     happened to return the right values;
//   - where compute-sanitizer is, a program found right runs once more under racecheck, synccheck
//     and memcheck (CUDASYNC_KERNEL_SANITIZERS=a,b chooses the tools; empty: none);
//   - the judge (kernel_judge.hpp) on every launch; a wrong one names the launch (shape, seed,
//     delays), the threads and what they returned, and the command that replays it.
#include "core/course/kernel_exercise.hpp"
#include "core/course/student_kernel.hpp"

namespace cudasync::course {

inline constexpr int kModelThreads = 512;  // the PTX model runs shapes up to this many threads
inline constexpr int kCheckSeeds = 3;      // seeds per shape on the GPU

// The harness and the judge for a kernel row: compiles the student's file with the lesson's
// harness, runs it as above and judges it.
KernelOutcome check_kernel(const KernelRequest& request);

// The launches the checker makes for `spec` from the run's seed: shape by shape, seed by seed, each
// delay pattern (KernelLaunch::delays: none, before, after). The first of each shape has no delays.
struct PlannedLaunch {
  KernelLaunch launch;
  std::uint64_t seed = 0;
  int delays = 0;  // 0 none, 1 before, 2 after
};
std::vector<PlannedLaunch> plan_launches(const KernelSpec& spec, std::uint64_t seed);
// The launches (indices) the PTX model runs: the first of each shape of at most kModelThreads
// threads, else the first of the smallest shape.
std::vector<int> model_launches(const std::vector<PlannedLaunch>& plan);

}  // namespace cudasync::course
