#pragma once
// The GPU side of cg-reduce: the rungs' kernels behind a plain C++ interface (no CUDA types), so
// that cg_reduce.cpp and the tests need no CUDA headers. Instantiated for float and double.
#include <cstddef>
#include <memory>
#include <vector>

#include "techniques/cg_reduce/cg_reduce.hpp"

namespace cudasync::cg_reduce {

// Grids from the occupancy API on the current device, for `block` threads per block.
struct GpuGrids {
  int occupancy_grid = 0;   // reduce_cp: blocks per SM x SMs
  int vector_grid = 0;      // the vector kernel
  int grid_sync_limit = 0;  // the grid-sync kernel: the largest grid a cooperative launch accepts
  bool cooperative_launch = false;  // cudaDevAttrCooperativeLaunch
};
GpuGrids gpu_grids(Dtype dtype, int block, int device);

std::size_t gpu_free_bytes();  // cudaMemGetInfo

template <typename T>
class GpuReduce {
 public:
  // Uploads x once and keeps `copies` device copies of it: timing rotates through them, so that a
  // problem smaller than the L2 cache is still read from device memory.
  GpuReduce(const std::vector<T>& x, int copies);
  ~GpuReduce();
  GpuReduce(const GpuReduce&) = delete;
  GpuReduce& operator=(const GpuReduce&) = delete;

  // One call of kernel k on copy 0: its sum, copied back. The grid-sync rung throws WaivedError
  // (exit 77) when the cooperative launch is refused; the message carries CUDA's error.
  T run(Kernel k, const Plan& plan);
  // Device-event time of one call (both launches where there are two; the memset of the atomic
  // target included), `reps` times after `warmup`: milliseconds per call.
  std::vector<double> time_ms(Kernel k, const Plan& plan, int reps, int warmup);
  // Host wall time of the seed's whole reduce() wrapper, result copied back: microseconds per call.
  // two_pass_seed: cudaMalloc + 2 launches + cudaMemcpy + cudaFree (10.5.1); static_buffer:
  // cudaGetSymbolAddress + 2 launches + cudaMemcpy (10.5.2).
  std::vector<double> wrapper_us(Kernel k, const Plan& plan, int reps);
  // cub::DeviceReduce::Reduce with cuda::std::plus<> and init 0 (CCCL 3 removed cub::Sum()).
  T cub_reduce_plus();
  // The traced launches of rungs 2, 3 and 5 (see Trace).
  Trace<T> trace(const Plan& plan, int block_index, int warp);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cudasync::cg_reduce
