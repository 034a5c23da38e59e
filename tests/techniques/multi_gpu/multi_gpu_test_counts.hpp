#pragma once
// Made-up GPU counts the multi-gpu tests share: one flag configuration's outcomes, as a grid of
// 132 blocks of 256 threads in one round would report them.
#include <cstdint>

#include "techniques/multi_gpu/multi_gpu.hpp"

namespace cudasync::multi_gpu::test_counts {

inline FlagCounts counts(std::uint64_t fresh, std::uint64_t stale, std::uint64_t timed_out = 0) {
  FlagCounts c;
  c.fresh = fresh;
  c.stale = stale;
  c.timed_out = timed_out;
  c.instances = fresh + stale + timed_out;
  c.blocks = 132;
  c.threads = 256;
  c.rounds = 1;
  return c;
}

}  // namespace cudasync::multi_gpu::test_counts
