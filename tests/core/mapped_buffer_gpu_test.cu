// Mapped pinned memory: the host sees what a kernel writes while the kernel still runs, and a word
// nobody wrote keeps the byte it was filled with.
#include <gtest/gtest.h>

#include <chrono>

#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/mapped_buffer.hpp"
#include "core/watchdog.hpp"
#include "support/gpu_available.hpp"

namespace cudasync::cuda {
namespace {

// Thread t writes t + 1 into out[t], then thread 0 waits (at most the deadline) for the host's go.
__global__ void write_then_wait(long long* out, const volatile int* go, SpinDeadline d) {
  const int t = static_cast<int>(threadIdx.x);
  *static_cast<volatile long long*>(&out[t]) = t + 1;
  __threadfence_system();
  if (t == 0) (void)spin_until([&] { return *go != 0; }, d);
}

TEST(MappedBufferGpu, TheHostReadsWhatARunningKernelWrote) {
  CUDASYNC_REQUIRE_GPU();
  MappedBuffer<long long> out(8, 0xff);
  MappedBuffer<int> go(1, 0);
  DeviceBuffer<unsigned> timed_out(1);
  timed_out.fill_bytes(0);
  for (long long v : out.read()) EXPECT_EQ(v, -1) << "filled with 0xff bytes";
  write_then_wait<<<1, 4>>>(out.dev(), go.dev(), SpinDeadline{2'000'000'000ull, timed_out.get()});
  CUDA_CHECK_LAUNCH();
  // The kernel is still waiting for `go`: its four writes are visible now.
  const Watch w = watch([&] { return out.read()[3] == 4; }, std::chrono::milliseconds(1500));
  EXPECT_TRUE(w.done);
  EXPECT_EQ(cudaStreamQuery(nullptr), cudaErrorNotReady) << "the kernel ended before the host let it";
  const auto seen = out.read();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(seen[static_cast<std::size_t>(t)], t + 1);
  for (int t = 4; t < 8; ++t) EXPECT_EQ(seen[static_cast<std::size_t>(t)], -1) << "no thread wrote it";
  *static_cast<volatile int*>(go.host()) = 1;  // the host lets the kernel end
  CUDA_CHECK(cudaDeviceSynchronize());
  unsigned to = 1;
  timed_out.download(&to, 1);
  EXPECT_EQ(to, 0u) << "the kernel waited until its deadline instead of the host's go";
}

}  // namespace
}  // namespace cudasync::cuda
