// The litmus tests as CUDA kernels (core/litmus/litmus_kernel.hpp): the plan puts a test's CTAs in
// different blocks and its threads of one CTA in different warps of one block; every library test
// the GPU run takes compiles with NVRTC (where this build has it: no GPU is needed to compile);
// and a launch's raw values are tallied into outcomes by the test's condition.
#include <gtest/gtest.h>

#include "core/course/student_kernel.hpp"
#include "core/litmus/litmus_kernel.hpp"
#include "core/litmus/litmus_library.hpp"
#include "core/litmus/litmus_parse.hpp"
#include "core/version.hpp"

using namespace cudasync;
using namespace cudasync::litmus;

namespace {
LitmusTest library_test(const char* name) {
  return parse_litmus(std::string(find_library_test(name)->text), std::string(name) + ".litmus");
}
}  // namespace

TEST(LitmusKernel, CtasAreBlocksAndThreadsOfOneCtaAreWarps) {
  const LitmusGpuPlan mp = plan_gpu_run(library_test("mp"), 64);
  EXPECT_EQ(mp.roles, 2);
  EXPECT_EQ(mp.warps, 1);
  EXPECT_EQ(mp.blocks(), 128);
  EXPECT_EQ(mp.instances(), 2048);
  EXPECT_EQ(mp.locs, (std::vector<std::string>{"x", "y"}));
  const LitmusGpuPlan same = plan_gpu_run(library_test("mp+fences.cta.same-cta"), 8);
  EXPECT_EQ(same.roles, 1);
  EXPECT_EQ(same.warps, 2);
  EXPECT_EQ(same.thread_at[0], (std::vector<int>{0, 1}));
  EXPECT_NE(gpu_unsupported(library_test("mp+host.sys-fence")), "");
  EXPECT_EQ(gpu_unsupported(library_test("iriw")), "");
  const std::string src = litmus_kernel_source(library_test("mp+rel+acq.gpu"), plan_gpu_run(library_test("mp+rel+acq.gpu"), 64));
  EXPECT_NE(src.find("st.release.gpu.global.u32 [%0], %1;"), std::string::npos) << src;
  EXPECT_NE(src.find("ld.acquire.gpu.global.u32 %0, [%1];"), std::string::npos) << src;
  EXPECT_NE(src.find("globaltimer"), std::string::npos);  // the start's wait has a deadline
}

TEST(LitmusKernel, EveryLibraryTestTheGpuRunTakesCompiles) {
  if (!kCudaBuiltIn || !course::nvrtc_missing().empty()) GTEST_SKIP() << "this build has no NVRTC";
  int compiled = 0;
  for (const LibraryTest& lt : library()) {
    const LitmusTest t = parse_litmus(std::string(lt.text), lt.name);
    if (!gpu_unsupported(t).empty()) continue;
    const auto out = course::nvrtc_compile(litmus_kernel_source(t, plan_gpu_run(t, 64)), lt.name + ".cu", "sm_90");
    EXPECT_TRUE(out.ok) << lt.name << ": " << out.log;
    ++compiled;
  }
  EXPECT_GE(compiled, 28);
}

TEST(LitmusKernel, ALaunchIsTalliedByTheCondition) {
  const LitmusTest t = library_test("mp");
  LitmusGpuPlan p = plan_gpu_run(t, 1);  // 32 instances
  LitmusLaunchOut out;
  out.regs.assign(32 * 2 * static_cast<std::size_t>(p.max_regs), 0);
  out.mem.assign(2 * 32, 1);
  // P1's registers r0, r1: instance 3 saw the flag and not the data (the weak outcome), 4 saw both.
  const auto reg = [&](int instance, int k) -> std::uint32_t& {
    return out.regs[(static_cast<std::size_t>(instance) * 2 + 1) * static_cast<std::size_t>(p.max_regs) + static_cast<std::size_t>(k)];
  };
  reg(3, 0) = 1;
  reg(4, 0) = 1;
  reg(4, 1) = 1;
  Histogram h;
  tally(t, p, out, h);
  EXPECT_EQ(h.instances, 32);
  EXPECT_EQ(h.target, 1);
  EXPECT_EQ(h.outcomes["P1:r0=1 P1:r1=0"], 1);
  EXPECT_EQ(h.outcomes["P1:r0=1 P1:r1=1"], 1);
  EXPECT_EQ(h.outcomes["P1:r0=0 P1:r1=0"], 30);
  out.late = true;
  tally(t, p, out, h);
  EXPECT_EQ(h.late_launches, 1);
  EXPECT_EQ(h.instances, 32);  // a late launch is not counted
}
