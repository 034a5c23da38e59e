#pragma once
// The lock lesson as the CLI sees it: its options and the two entry points.
#include <optional>
#include <string>
#include <vector>

#include "core/cli/command.hpp"

namespace cudasync::lock {

// The parts, in the seed's order, then one beyond the seed. `--part` picks some; none picks all.
inline const std::vector<std::string> kParts = {"lock-class", "warp-deadlock", "stale-reads", "copy-destructor",
                                                "thread-lock", "combining"};

// Defaults of each part (the seed's own shapes where it has one).
inline constexpr int kClassBlocks = 132, kClassIters = 100;  // kernel<<<N, 1>>>, N = an H100's SMs
inline constexpr int kWarpIters = 10;                        // <<<1, 32>>> and <<<1, 128>>>
inline constexpr int kStaleBlocks = 132, kStaleIters = 50, kStaleRuns = 4;
inline constexpr int kThreadLockBlocks = 4, kThreadLockThreads = 128, kThreadLockIters = 20;  // <<<4, 128>>>
inline constexpr int kCombiningBlocks = 132, kCombiningThreads = 1, kCombiningIters = 100;  // part 1's grid
inline constexpr int kMaxRuns = 100;

struct Options {
  std::vector<std::string> parts;  // empty: every part
  std::optional<int> blocks;       // lock-class, stale-reads, thread-lock, combining
  std::optional<int> threads;      // warp-deadlock, thread-lock, combining
  std::optional<int> iters;        // acquisitions per thread, every part that launches a lock
  std::optional<int> runs;         // stale-reads: launches per variant
  std::optional<std::string> model;  // lockstep | independent: the regime of the model's traces
  bool backend_gpu_asked = false;  // set at parse time: --backend gpu was given
  std::string copy_child;          // hidden: the copy-destructor part's child process
};

// Checks that need more than one option (CLI11 checks each option alone). Runs at parse time, so a
// bad combination exits 2 before any backend is chosen, and again in run(). `bench` is --bench.
std::optional<std::string> combination_error(const Options& o, bool bench);

cli::Runner attach(CLI::App& sub);
report::Report run(const Options& options, const RunContext& ctx);

}  // namespace cudasync::lock
