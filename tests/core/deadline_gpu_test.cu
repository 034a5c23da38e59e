// The deadline helper every later lesson's spins rely on: a spin on a flag nobody sets must end
// by itself, report that it timed out, and leave the GPU usable.
#include <gtest/gtest.h>

#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/occupancy.cuh"
#include "support/gpu_available.hpp"

namespace cudasync::cuda {
namespace {

__global__ void spin_on_flag(const volatile int* flag, SpinDeadline d, int* ready_out) {
  const bool ready = spin_until([&] { return *flag != 0; }, d);
  ready_out[threadIdx.x] = ready ? 1 : 0;
}

TEST(DeadlineGpu, SpinOnUnsetFlagTimesOutAndFlagsIt) {
  CUDASYNC_REQUIRE_GPU();
  DeviceBuffer<int> flag(1), ready(32);
  DeviceBuffer<unsigned> timed_out(1);
  flag.fill_bytes(0);
  ready.fill_bytes(0xAB);
  timed_out.fill_bytes(0);
  Event start, stop;
  start.record();
  spin_on_flag<<<1, 32>>>(flag.get(), SpinDeadline{2'000'000ull, timed_out.get()}, ready.get());  // 2 ms
  CUDA_CHECK_LAUNCH();
  stop.record();
  const float ms = elapsed_ms(start, stop);
  unsigned to = 0;
  timed_out.download(&to, 1);
  EXPECT_EQ(to, 1u);
  for (int r : ready.download()) EXPECT_EQ(r, 0);
  EXPECT_GE(ms, 1.9f);
  EXPECT_LT(ms, 1000.0f) << "the deadline did not bound the spin";
  CUDA_CHECK(cudaDeviceSynchronize());  // the GPU is still healthy
}

TEST(DeadlineGpu, SpinOnSetFlagReturnsReadyWithoutTimeout) {
  CUDASYNC_REQUIRE_GPU();
  DeviceBuffer<int> flag(1), ready(32);
  DeviceBuffer<unsigned> timed_out(1);
  const int one = 1;
  flag.upload(&one, 1);
  timed_out.fill_bytes(0);
  spin_on_flag<<<1, 32>>>(flag.get(), SpinDeadline{1'000'000'000ull, timed_out.get()}, ready.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  unsigned to = 1;
  timed_out.download(&to, 1);
  EXPECT_EQ(to, 0u);
  for (int r : ready.download()) EXPECT_EQ(r, 1);
}

// Every block waits for a flag nobody sets, all against one end time published by the first block.
// late[b]: the block started after the end; spun[b]: how often its ready() was asked.
__global__ void grid_spin_on_flag(const volatile int* flag, unsigned long long* start_slot,
                                  unsigned long long budget_ns, unsigned* timed_out, int* late, int* ready_out,
                                  int* spun) {
  if (threadIdx.x != 0) return;
  const unsigned long long end = grid_start_ns(start_slot) + budget_ns;
  late[blockIdx.x] = past(end) ? 1 : 0;
  int asked = 0;
  const bool ready = spin_until(
      [&] {
        ++asked;
        return *flag != 0;
      },
      AbsoluteDeadline{end, timed_out});
  ready_out[blockIdx.x] = ready ? 1 : 0;
  spun[blockIdx.x] = asked;
}

TEST(DeadlineGpu, OneEndTimeForTheGridEndsEveryWaveWithinOneBudget) {
  CUDASYNC_REQUIRE_GPU();
  const Occupancy o = occupancy_of(grid_spin_on_flag, 256, 0, 0);
  const int blocks = 3 * o.max_coresident_blocks();  // three waves: with a budget per spinner, three budgets
  const unsigned long long budget_ns = 50'000'000ull;  // 50 ms
  DeviceBuffer<int> flag(1), late(static_cast<std::size_t>(blocks)), ready(late.size()), spun(late.size());
  DeviceBuffer<unsigned long long> start(1);
  DeviceBuffer<unsigned> timed_out(1);
  flag.fill_bytes(0);
  start.fill_bytes(0);
  timed_out.fill_bytes(0);
  late.fill_bytes(0xff);
  Event t0, t1;
  t0.record();
  grid_spin_on_flag<<<blocks, 256>>>(flag.get(), start.get(), budget_ns, timed_out.get(), late.get(), ready.get(),
                                     spun.get());
  CUDA_CHECK_LAUNCH();
  t1.record();
  const float ms = elapsed_ms(t0, t1);
  unsigned to = 0;
  timed_out.download(&to, 1);
  EXPECT_EQ(to, 1u);
  const auto l = late.download(), r = ready.download(), n = spun.download();
  int late_blocks = 0;
  for (int b = 0; b < blocks; ++b) {
    ASSERT_NE(l[b], -1) << "block " << b << " never ran";
    EXPECT_EQ(r[b], 0) << "block " << b;
    if (l[b] == 1) {
      ++late_blocks;
      EXPECT_EQ(n[b], 1) << "block " << b << " started after the end: one look, no spin";
    }
  }
  // The blocks that had no slot while the first wave spun all started after the end.
  EXPECT_GE(late_blocks, blocks - o.max_coresident_blocks());
  EXPECT_LT(ms, 2.5f * budget_ns / 1e6f) << "the later waves waited again: the end time was not shared";
  CUDA_CHECK(cudaDeviceSynchronize());
}

TEST(DeadlineGpu, AConditionAlreadyTrueAtALateStartStillCountsAsReady) {
  CUDASYNC_REQUIRE_GPU();
  DeviceBuffer<int> flag(1), late(1), ready(1), spun(1);
  DeviceBuffer<unsigned long long> start(1);
  DeviceBuffer<unsigned> timed_out(1);
  const int one = 1;
  flag.upload(&one, 1);
  const unsigned long long long_ago = 1;  // a grid "started" at time 1: its end passed long ago
  start.upload(&long_ago, 1);
  timed_out.fill_bytes(0);
  grid_spin_on_flag<<<1, 32>>>(flag.get(), start.get(), 1000ull, timed_out.get(), late.get(), ready.get(), spun.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  int l = 0, r = 0;
  late.download(&l, 1);
  ready.download(&r, 1);
  unsigned to = 1;
  timed_out.download(&to, 1);
  EXPECT_EQ(l, 1);
  EXPECT_EQ(r, 1);
  EXPECT_EQ(to, 0u);
}

TEST(OccupancyGpu, CoresidentBlocksWithinHardwareLimits) {
  CUDASYNC_REQUIRE_GPU();
  const Occupancy o = occupancy_of(spin_on_flag, 256, 0, 0);
  const DeviceInfo d = probe_gpus().devices.front();
  EXPECT_EQ(o.sm_count, d.sm_count);
  EXPECT_GE(o.blocks_per_sm, 1);
  EXPECT_LE(o.blocks_per_sm * 256, d.max_threads_per_sm);
  EXPECT_EQ(o.max_coresident_blocks(), o.blocks_per_sm * d.sm_count);
}

TEST(EventTimerGpu, RepeatedTimingGivesOnePositiveSamplePerRep) {
  CUDASYNC_REQUIRE_GPU();
  DeviceBuffer<int> flag(1), ready(32);
  DeviceBuffer<unsigned> timed_out(1);
  flag.fill_bytes(0);
  timed_out.fill_bytes(0);
  const auto samples = time_repeated_ms(
      [&] { spin_on_flag<<<1, 32>>>(flag.get(), SpinDeadline{200'000ull, timed_out.get()}, ready.get()); }, 5, 1);
  ASSERT_EQ(samples.size(), 5u);
  for (double s : samples) EXPECT_GE(s, 0.19);  // each launch spins its 0.2 ms budget
}

TEST(CudaCheckGpu, FailingCallThrowsWithFileLineAndCall) {
  CUDASYNC_REQUIRE_GPU();
  try {
    CUDA_CHECK(cudaSetDevice(9999));
    FAIL() << "cudaSetDevice(9999) did not throw";
  } catch (const CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deadline_gpu_test.cu:"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaSetDevice(9999)"), std::string::npos) << what;
    EXPECT_EQ(e.code, ExitCode::no_gpu);
  }
  cudaGetLastError();
}

}  // namespace
}  // namespace cudasync::cuda
