// The judge of exercise 6 (a student's block_sum), fed with what a right and two typical wrong
// functions return: thread 0 of every block against the block's sum, and a reason that says what
// the wrong sums point to.
#include <gtest/gtest.h>

#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {
namespace {

std::int32_t sum_of(const std::vector<std::int32_t>& in, std::size_t from, std::size_t count) {
  std::int32_t s = 0;
  for (std::size_t i = from; i < from + count; ++i) s += in[i];
  return s;
}

TEST(BlockSumExercise, ThreadZeroWithTheBlocksSumIsRightWhateverTheOthersReturn) {
  const auto in = block_sum_inputs(1);
  ASSERT_EQ(in.size(), 8u * 128u);
  std::vector<std::int32_t> out(in.size(), -5);
  for (std::size_t b = 0; b < 8; ++b) out[b * 128] = sum_of(in, b * 128, 128);
  const course::KernelOutcome o = judge_block_sum(in, out);
  EXPECT_TRUE(o.verdict.right) << o.verdict.reason.en;
  ASSERT_EQ(o.sections.front().tables.size(), 1u);
  EXPECT_EQ(o.sections.front().tables[0].rows.size(), 8u);
}

TEST(BlockSumExercise, WarpZerosSumAloneSaysThePartialSumsWereNeverAdded) {
  const auto in = block_sum_inputs(2);
  std::vector<std::int32_t> out(in.size(), 0);
  for (std::size_t b = 0; b < 8; ++b) out[b * 128] = sum_of(in, b * 128, 32);
  const course::KernelOutcome o = judge_block_sum(in, out);
  EXPECT_FALSE(o.verdict.right);
  EXPECT_NE(o.verdict.reason.en.find("8 of 8 blocks are wrong"), std::string::npos) << o.verdict.reason.en;
  EXPECT_NE(o.verdict.reason.en.find("warp 0's sum only"), std::string::npos) << o.verdict.reason.en;
}

TEST(BlockSumExercise, TheStartersOwnValueSaysNothingWasAdded) {
  const auto in = block_sum_inputs(3);
  const course::KernelOutcome o = judge_block_sum(in, in);
  EXPECT_FALSE(o.verdict.right);
  EXPECT_NE(o.verdict.reason.en.find("its own v"), std::string::npos) << o.verdict.reason.en;
}

}  // namespace
}  // namespace cudasync::cg_reduce
