// The co-residency cudasync computes (occupancy API x SMs) is exactly the largest grid the runtime
// accepts for a cooperative launch: at the limit it runs, one block more is refused. A software
// barrier over a grid within that limit cannot deadlock for want of a slot.
#include <gtest/gtest.h>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/occupancy.cuh"
#include "support/gpu_available.hpp"

namespace cudasync::cuda {
namespace {

__global__ void count_blocks(unsigned* n) {
  if (threadIdx.x == 0) atomicAdd(n, 1u);
}

TEST(CoresidencyGpu, LimitIsTheLargestCooperativeGrid) {
  CUDASYNC_REQUIRE_GPU();
  int coop = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  if (!coop) GTEST_SKIP() << "this GPU has no cooperative launch";
  for (int threads : {64, 256, 1024}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const Coresidency c = coresidency_of(count_blocks, threads, 0, 0);
    ASSERT_GT(c.limit(), 0);
    EXPECT_EQ(c.threads, threads);
    EXPECT_NE(c.source.find("occupancy API"), std::string::npos);
    DeviceBuffer<unsigned> n(1);
    n.fill_bytes(0);
    unsigned* p = n.get();
    void* args[] = {&p};
    CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(count_blocks), dim3(c.limit()), dim3(threads), args,
                                           0, nullptr));
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned h = 0;
    n.download(&h, 1);
    EXPECT_EQ(h, static_cast<unsigned>(c.limit()));
    const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(count_blocks), dim3(c.limit() + 1),
                                                      dim3(threads), args, 0, nullptr);
    EXPECT_EQ(e, cudaErrorCooperativeLaunchTooLarge) << cudaGetErrorString(e);
    (void)cudaGetLastError();
    EXPECT_FALSE(coresidency_refusal(c.limit(), c, "--blocks", "").has_value());
    EXPECT_TRUE(coresidency_refusal(c.limit() + 1, c, "--blocks", "").has_value());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace cudasync::cuda
