// The co-residency cudasync computes (occupancy API x SMs) is exactly the largest grid the runtime
// accepts for a cooperative launch: at the limit it runs, one block more is refused. A software
// barrier over a grid within that limit cannot deadlock for want of a slot. In thread-block
// clusters (sm_90) the limit is whole clusters (cudaOccupancyMaxActiveClusters), and a launch of
// that many clusters runs.
#include <gtest/gtest.h>

#include <string>

#include "core/cuda/check.hpp"
#include "core/cuda/cluster.cuh"
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

// size_check[0]: blocks that saw a cluster of another size than size_check[1].
__global__ void count_cluster_blocks(unsigned* n, unsigned* size_check) {
  if (threadIdx.x != 0) return;
  atomicAdd(n, 1u);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned blocks_in_cluster;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(blocks_in_cluster));
  if (blocks_in_cluster != size_check[1]) atomicAdd(size_check, 1u);
#else
  (void)size_check;
#endif
}

// Where clusters exist: each size's co-residency is whole clusters, no more blocks than the SMs
// hold one by one, and a launch of exactly that many clusters runs every block in clusters of the
// asked size. Elsewhere the reason is a skip.
TEST(CoresidencyGpu, ClusterLimitIsWholeClustersAndLaunches) {
  CUDASYNC_REQUIRE_GPU();
  const std::string why = cluster_unsupported(count_cluster_blocks, 0);
  if (!why.empty()) GTEST_SKIP() << why;
  const Coresidency alone = coresidency_of(count_cluster_blocks, 256, 0, 0);
  for (int cs : {1, 2, 4, 8}) {
    SCOPED_TRACE("clusters of " + std::to_string(cs));
    const Coresidency c = cluster_coresidency_of(count_cluster_blocks, 256, 0, cs, 0);
    ASSERT_GT(c.clusters, 0);
    EXPECT_EQ(c.cluster_size, cs);
    EXPECT_EQ(c.limit() % cs, 0);
    EXPECT_LE(c.limit(), alone.limit());
    EXPECT_NE(c.text().find("clusters of"), std::string::npos) << c.text();
    DeviceBuffer<unsigned> size_check(2);
    const unsigned init[2] = {0, static_cast<unsigned>(cs)};
    size_check.upload(init, 2);
    DeviceBuffer<unsigned> count(1);
    count.fill_bytes(0);
    CUDA_CHECK(launch_in_clusters(count_cluster_blocks, c.limit(), 256, cs, nullptr, count.get(), size_check.get()));
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned h = 0, wrong = 0;
    count.download(&h, 1);
    size_check.download(&wrong, 1);
    EXPECT_EQ(h, static_cast<unsigned>(c.limit()));
    EXPECT_EQ(wrong, 0u) << "blocks saw a cluster of another size";
  }
}

}  // namespace
}  // namespace cudasync::cuda
