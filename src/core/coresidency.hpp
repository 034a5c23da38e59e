#pragma once
// How many blocks of one kernel can be resident on the GPU at once, and the refusal a software grid
// barrier owes the user when a grid is larger. Plain C++ (the numbers come from the occupancy API
// in core/cuda/occupancy.cuh, or from an assumed GPU in a model run), so model-only builds and CPU
// tests use it too.
//
// Why it matters: a block that waits at a software grid barrier keeps its SM slot while it spins.
// With 8 blocks of 256 threads per SM on 132 SMs, 1056 blocks fit at once; launch 1100 and the
// first 1056 spin for the other 44, which cannot start until one of the 1056 exits: a deadlock.
// cudaLaunchCooperativeKernel refuses such a grid itself (cudaErrorCooperativeLaunchTooLarge);
// an ordinary launch does not, so cudasync checks before launching.
#include "core/words/language.hpp"
#include <optional>
#include <string>

namespace cudasync {

struct Coresidency {
  int blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor for the kernel and block size
  int sm_count = 0;
  int threads = 0;        // per block, as asked of the occupancy API
  std::string source;     // where the numbers come from: "occupancy API, GPU 0" or "assumed: ..."
  // A launch in thread-block clusters (sm_90): a cluster starts only when all its blocks fit in one
  // GPC at once, so the limit is whole clusters (cudaOccupancyMaxActiveClusters), not blocks per SM
  // x SMs: on an H100, 124 clusters of 8 blocks of 256 threads = 992, where 1056 blocks fit alone.
  int cluster_size = 0;   // 0: an ordinary launch
  int clusters = 0;       // clusters resident at once

  int limit() const { return cluster_size > 0 ? clusters * cluster_size : blocks_per_sm * sm_count; }
  // "8 blocks of 256 threads per SM x 132 SMs = 1056 (occupancy API, GPU 0)", or
  // "124 clusters of 8 blocks of 256 threads = 992 (cudaOccupancyMaxActiveClusters, GPU 0)"
  // In `lang` (the run's by default; usage errors, which stay English, ask for English).
  std::string text(words::Lang lang = words::language()) const;
};

// nullopt when `blocks` blocks can all be resident at once. Otherwise the message a usage error
// carries: both numbers, where they come from, and why a software barrier over such a grid would
// deadlock. `option` names the input ("--blocks"); `escape` says how to run it anyway (may be empty).
std::optional<std::string> coresidency_refusal(int blocks, const Coresidency& c, const std::string& option,
                                               const std::string& escape);

// The co-residency of a kernel with at most `regs_per_thread` registers and no shared memory, from
// the hardware limits alone (what the occupancy API answers for such a kernel): blocks per SM =
// min(max blocks per SM, max threads per SM / threads, registers per SM / (regs x threads rounded
// up to whole warps)). Used where no GPU is present, with an H100's limits.
struct SmLimits {
  int sm_count = 132;
  int max_blocks_per_sm = 32;
  int max_threads_per_sm = 2048;
  int regs_per_sm = 65536;
};
inline constexpr SmLimits kH100Limits{};
Coresidency assumed_coresidency(int threads, int regs_per_thread, const SmLimits& sm, const std::string& source);
// The same in clusters of `cluster_size` blocks, assuming a cluster fits wherever its blocks do
// (whole clusters of the assumed limit; a real GPU may fit fewer, see Coresidency::cluster_size).
Coresidency assumed_cluster_coresidency(const Coresidency& blocks, int cluster_size, const std::string& source);

}  // namespace cudasync
