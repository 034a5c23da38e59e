// The judge of exercise 10 (a student's warp_sum), fed with what a right and two typical wrong
// functions return: every lane checked against its warp's sum, the wrong lanes named, and the
// reason says what the pattern of wrong lanes points to.
#include <gtest/gtest.h>

#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {
namespace {

std::int32_t sum_of_warp(const std::vector<std::int32_t>& in, std::size_t w) {
  std::int32_t s = 0;
  for (std::size_t i = w * 32; i < w * 32 + 32; ++i) s += in[i];
  return s;
}

TEST(WarpSumExercise, EveryLaneWithItsWarpsSumIsRight) {
  const auto in = warp_sum_inputs(1);
  ASSERT_EQ(in.size(), 64u);
  std::vector<std::int32_t> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = sum_of_warp(in, i / 32);
  const course::KernelOutcome o = judge_warp_sum(in, out);
  EXPECT_TRUE(o.verdict.right) << o.verdict.reason.en;
  EXPECT_EQ(o.sections.front().tables.size(), 0u) << "no table of wrong lanes when none is wrong";
}

TEST(WarpSumExercise, TheStartersOwnValueIsWrongInEveryLaneAndSaysSo) {
  const auto in = warp_sum_inputs(7);
  const course::KernelOutcome o = judge_warp_sum(in, in);
  EXPECT_FALSE(o.verdict.right);
  EXPECT_NE(o.verdict.reason.en.find("64 of 64 lanes are wrong"), std::string::npos) << o.verdict.reason.en;
  EXPECT_NE(o.verdict.reason.en.find("their own v"), std::string::npos) << o.verdict.reason.en;
  EXPECT_FALSE(o.verdict.reason.zh.empty());
  ASSERT_EQ(o.sections.front().tables.size(), 1u);
  EXPECT_EQ(o.sections.front().tables[0].rows.size(), 64u);
}

TEST(WarpSumExercise, SumInLaneZeroOnlyPointsToShflDown) {
  const auto in = warp_sum_inputs(3);
  std::vector<std::int32_t> out(in.size(), -1);
  out[0] = sum_of_warp(in, 0);
  out[32] = sum_of_warp(in, 1);
  const course::KernelOutcome o = judge_warp_sum(in, out);
  EXPECT_FALSE(o.verdict.right);
  EXPECT_NE(o.verdict.reason.en.find("62 of 64"), std::string::npos) << o.verdict.reason.en;
  EXPECT_NE(o.verdict.reason.en.find("__shfl_down_sync"), std::string::npos) << o.verdict.reason.en;
}

}  // namespace
}  // namespace cudasync::warp_primitives
