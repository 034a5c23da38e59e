// The judge of the kernel exercises (core/course/kernel_judge.hpp): what each expect asks of every
// checked thread, and the usual wrong values it recognises.
#include <gtest/gtest.h>

#include "core/course/kernel_check.hpp"
#include "core/course/kernel_judge.hpp"

namespace cudasync::course {
namespace {

KernelExpect sum_over(int over, KernelExpect::Who who) {
  KernelExpect x;
  x.what = KernelExpect::What::sum;
  x.over = over;
  x.who = who;
  return x;
}

std::vector<std::int32_t> ones(int n) { return std::vector<std::int32_t>(static_cast<std::size_t>(n), 1); }

TEST(KernelJudge, ABlockSumIsCheckedInThreadZeroOfEveryBlockOnly) {
  const KernelExpect x = sum_over(KernelExpect::kOverBlock, KernelExpect::Who::first);
  std::vector<std::int32_t> out(128, -7);  // unchecked threads may return anything
  out[0] = 64;
  out[64] = 64;
  const LaunchJudgement right = judge_launch(x, 2, 64, ones(128), out);
  EXPECT_EQ(right.checked, 2);
  EXPECT_TRUE(right.wrong.empty());
  out[64] = 32;  // the sum of its own warp only
  const LaunchJudgement wrong = judge_launch(x, 2, 64, ones(128), out);
  ASSERT_EQ(wrong.wrong.size(), 1u);
  EXPECT_EQ(wrong.wrong[0].thread, 64);
  EXPECT_EQ(*wrong.wrong[0].expected, 64);
  EXPECT_EQ(wrong.wrong[0].looks_like, "warp-sum");
}

TEST(KernelJudge, AWarpSumIsCheckedInEveryLaneAndItsOwnValueIsRecognised) {
  std::vector<std::int32_t> in(64);
  for (int i = 0; i < 64; ++i) in[static_cast<std::size_t>(i)] = i;
  std::vector<std::int32_t> out(64);
  for (int i = 0; i < 64; ++i) out[static_cast<std::size_t>(i)] = i < 32 ? 496 : 1520;  // 0+..+31, 32+..+63
  EXPECT_TRUE(judge_launch(sum_over(32, KernelExpect::Who::all), 1, 64, in, out).wrong.empty());
  out[40] = 40;
  const LaunchJudgement j = judge_launch(sum_over(32, KernelExpect::Who::all), 1, 64, in, out);
  ASSERT_EQ(j.wrong.size(), 1u);
  EXPECT_EQ(j.wrong[0].looks_like, "own-value");
  // A group of 64 in blocks of 128: two groups per block.
  const LaunchJudgement halves = judge_launch(sum_over(64, KernelExpect::Who::lane0), 1, 128, ones(128),
                                              std::vector<std::int32_t>(128, 64));
  EXPECT_EQ(halves.checked, 4);
  EXPECT_TRUE(halves.wrong.empty());
}

TEST(KernelJudge, ASumThatReachedOnlyTheFirstThreadOfEachGroupIsNamedSo) {
  std::vector<std::int32_t> out(64, 5);  // partial sums
  out[0] = 32;
  out[32] = 32;
  const LaunchJudgement j = judge_launch(sum_over(32, KernelExpect::Who::all), 1, 64, ones(64), out);
  ASSERT_EQ(j.wrong.size(), 62u);
  for (const auto& w : j.wrong) EXPECT_EQ(w.looks_like, "first-only");
  out[32] = 7;  // a group whose first thread is wrong as well: not that mistake
  EXPECT_NE(judge_launch(sum_over(32, KernelExpect::Who::all), 1, 64, ones(64), out).wrong[0].looks_like, "first-only");
}

TEST(KernelJudge, RotateInputAndGridSum) {
  KernelExpect rotate;
  rotate.what = KernelExpect::What::rotate;
  rotate.by = 2;
  const std::vector<std::int32_t> in = {10, 11, 12, 13, 20, 21, 22, 23};
  EXPECT_TRUE(judge_launch(rotate, 2, 4, in, {12, 13, 10, 11, 22, 23, 20, 21}).wrong.empty());
  EXPECT_EQ(judge_launch(rotate, 2, 4, in, {12, 13, 10, 11, 22, 23, 20, 0}).wrong.at(0).looks_like, "zero");
  rotate.over = KernelExpect::kOverGrid;  // by blocks: thread t returns thread t + 2 x 2's, mod 8
  rotate.by = 2;
  EXPECT_TRUE(judge_launch(rotate, 4, 2, {0, 1, 2, 3, 4, 5, 6, 7}, {4, 5, 6, 7, 0, 1, 2, 3}).wrong.empty());
  KernelExpect input;
  input.what = KernelExpect::What::input;
  EXPECT_TRUE(judge_launch(input, 2, 4, in, in).wrong.empty());
  EXPECT_EQ(judge_launch(sum_over(KernelExpect::kOverGrid, KernelExpect::Who::all), 2, 4, in,
                         std::vector<std::int32_t>(8, 132)).wrong.size(), 0u);
}

TEST(KernelJudge, TicketsAreEachValueOnceAndARepeatedOneIsALostUpdate) {
  KernelExpect x;
  x.what = KernelExpect::What::tickets;
  x.who = KernelExpect::Who::first;
  std::vector<std::int32_t> out(4 * 32, -1);
  for (int b = 0; b < 4; ++b) out[static_cast<std::size_t>(b * 32)] = 3 - b;
  EXPECT_TRUE(judge_launch(x, 4, 32, ones(128), out).wrong.empty());
  out[64] = 3;  // blocks 0 and 2 both hold 3; nobody holds 1
  const LaunchJudgement j = judge_launch(x, 4, 32, ones(128), out);
  ASSERT_EQ(j.wrong.size(), 2u);
  EXPECT_EQ(j.wrong[0].looks_like, "repeated");
  EXPECT_FALSE(j.wrong[0].expected.has_value());
}

TEST(KernelJudge, TheModelAndTheGpuAgreeOnCheckedThreadsAndTicketsInAnyOrder) {
  const KernelExpect first = sum_over(KernelExpect::kOverBlock, KernelExpect::Who::first);
  EXPECT_TRUE(same_outputs(first, 2, {5, 9, 7, 1}, {5, 0, 7, 3}));  // threads 1 and 3 are not checked
  EXPECT_FALSE(same_outputs(first, 2, {5, 9, 7, 1}, {6, 9, 7, 1}));
  KernelExpect tickets;
  tickets.what = KernelExpect::What::tickets;
  tickets.who = KernelExpect::Who::first;
  EXPECT_TRUE(same_outputs(tickets, 1, {0, 1, 2}, {2, 0, 1}));
  EXPECT_FALSE(same_outputs(tickets, 1, {0, 1, 2}, {0, 1, 1}));
}

TEST(KernelCheck, EveryShapeRunsThreeSeedsWithEachDelayPatternAndTheModelTakesTheSmallOnes) {
  KernelSpec spec;
  spec.shapes = {{8, 128}, {1, 64}, {2, 32}};
  const std::vector<PlannedLaunch> plan = plan_launches(spec, 5);
  ASSERT_EQ(plan.size(), 27u);
  EXPECT_EQ(plan[0].seed, 5u);
  EXPECT_EQ(plan[0].delays, 0);
  EXPECT_TRUE(plan[0].launch.delays.empty());
  EXPECT_EQ(plan[1].delays, 1);
  // Two delays per warp; "before" fills the first half only.
  ASSERT_EQ(plan[1].launch.delays.size(), 2u * 8 * 4);
  for (std::size_t i = 32; i < 64; ++i) EXPECT_EQ(plan[1].launch.delays[i], 0);
  EXPECT_EQ(plan[3].seed, 6u);
  EXPECT_EQ(plan[0].launch.in, plan_launches(spec, 5)[0].launch.in);  // the same seed, the same inputs
  EXPECT_NE(plan[0].launch.in, plan_launches(spec, 6)[0].launch.in);
  EXPECT_EQ(model_launches(plan), (std::vector<int>{9, 18}));  // 8 x 128 = 1024 threads is over the bound
  spec.shapes = {{8, 128}};
  EXPECT_EQ(model_launches(plan_launches(spec, 1)), std::vector<int>{0});  // the smallest, when none fits
}

}  // namespace
}  // namespace cudasync::course
