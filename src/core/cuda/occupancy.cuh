#pragma once
// How many blocks of a kernel can be resident on the whole GPU at once: the number a software
// grid barrier must not exceed (the barrier's own code cannot check it; cudasync checks it first).
#include <cuda_runtime.h>

#include <string>

#include "core/coresidency.hpp"
#include "core/cuda/check.hpp"

namespace cudasync::cuda {

struct Occupancy {
  int blocks_per_sm = 0;
  int sm_count = 0;
  int max_coresident_blocks() const { return blocks_per_sm * sm_count; }
};

template <typename Kernel>
Occupancy occupancy_of(Kernel kernel, int block_threads, std::size_t dynamic_smem_bytes, int device) {
  Occupancy o;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_sm, kernel, block_threads, dynamic_smem_bytes));
  CUDA_CHECK(cudaDeviceGetAttribute(&o.sm_count, cudaDevAttrMultiProcessorCount, device));
  return o;
}

// The same as a Coresidency (core/coresidency.hpp): the numbers a software grid barrier checks its
// grid against before launching, with their source named for the refusal message.
template <typename Kernel>
Coresidency coresidency_of(Kernel kernel, int block_threads, std::size_t dynamic_smem_bytes, int device) {
  const Occupancy o = occupancy_of(kernel, block_threads, dynamic_smem_bytes, device);
  Coresidency c;
  c.blocks_per_sm = o.blocks_per_sm;
  c.sm_count = o.sm_count;
  c.threads = block_threads;
  c.source = "occupancy API, GPU " + std::to_string(device);
  return c;
}

}  // namespace cudasync::cuda
