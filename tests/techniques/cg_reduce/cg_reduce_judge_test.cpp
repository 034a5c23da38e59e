// The verdicts of rungs.cpp, as functions: bits, two runs, the atomic-order bound, Higham's
// bound and CUB's tolerance, the ladder's word, the bench row, and the trace word by word.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {
namespace {

TEST(CgReduceJudge, SumsKeepTheirBitsAndType) {
  const Sum f = sum_of(8389143.0f);
  EXPECT_EQ(f.dtype, Dtype::f32);
  EXPECT_EQ(f.text(), "8389143");
  EXPECT_EQ(f.with_bits(), "8389143 (0x4b000217)");
  EXPECT_EQ(sum_in(Dtype::f32, 8389143.0).bits, f.bits);
  EXPECT_EQ(sum_in(Dtype::f64, 0.1).text(), "0.10000000000000001");
}

TEST(CgReduceJudge, BitsAgreeOnlyWhenEveryBitDoes) {
  const Sum a = sum_of(500.0f);
  const Sum b = sum_of(std::nextafter(500.0f, 1000.0f));
  EXPECT_TRUE(bits_agree(a, a).passed);
  const Verdict v = bits_agree(b, a);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.detail.find("GPU 500.000031 (0x43fa0001), model 500 (0x43fa0000)"), std::string::npos) << v.detail;
  EXPECT_TRUE(same_bits_twice(a, a).passed);
  EXPECT_FALSE(same_bits_twice(a, b).passed);
}

TEST(CgReduceJudge, TheAtomicOrderBoundCoversTheDifference) {
  const Sum model = sum_of(500.0f), gpu = sum_of(500.25f);
  EXPECT_TRUE(within_order_bound(gpu, model, 0.5).passed);
  EXPECT_TRUE(within_order_bound(gpu, model, 0.25).passed);
  EXPECT_FALSE(within_order_bound(gpu, model, 0.125).passed);
  const Verdict none = within_order_bound(gpu, model, -1.0);
  EXPECT_TRUE(none.passed) << "no bound, nothing to fail";
  EXPECT_NE(none.detail.find("d*u >= 1"), std::string::npos);
}

TEST(CgReduceJudge, HighamsBoundAndCubsTolerance) {
  // 7 additions in float: gamma_7 = 7u / (1 - 7u), u = 2^-24.
  const double g7 = gamma_bound(7, std::ldexp(1.0, -24));
  EXPECT_TRUE(error_bound(Kernel::two_pass_fixed_grid, Dtype::f32, 100.0 * (1 + g7 / 2), 100.0, 7).passed);
  EXPECT_FALSE(error_bound(Kernel::two_pass_fixed_grid, Dtype::f32, 100.0 * (1 + 2 * g7), 100.0, 7).passed);
  EXPECT_EQ(error_bound_title(Kernel::two_pass_fixed_grid, Dtype::f32), "rounding error within gamma_d, the bound for d additions in a row");
  // CUB: 1e-5 in float, whatever the depth.
  EXPECT_TRUE(error_bound(Kernel::cub_sum, Dtype::f32, 100.0009, 100.0, 0).passed);
  EXPECT_FALSE(error_bound(Kernel::cub_sum, Dtype::f32, 100.002, 100.0, 0).passed);
  EXPECT_NE(error_bound_title(Kernel::cub_sum, Dtype::f32).find("1e-05"), std::string::npos);
  // A chain so long that d u >= 1 bounds nothing.
  EXPECT_TRUE(error_bound(Kernel::shared_atomic, Dtype::f32, 1e9, 1.0, std::int64_t{1} << 25).passed);
}

TEST(CgReduceJudge, TheLadderWordSaysHowTheGpuAgreed) {
  KernelRun r;
  r.kernel = Kernel::two_pass_fixed_grid;
  r.model = sum_of(500.0f);
  bool agrees = false;
  EXPECT_FALSE(agreement_word(r, agrees).has_value()) << "no GPU sum, no word";
  r.gpu = sum_of(500.0f);
  EXPECT_EQ(agreement_word(r, agrees).value(), "bit-exact");
  EXPECT_TRUE(agrees);
  r.gpu = sum_of(501.0f);
  EXPECT_EQ(agreement_word(r, agrees).value(), "MISMATCH");
  EXPECT_FALSE(agrees);
  r.fixed_order = false;
  r.order_bound = 2.0;
  EXPECT_EQ(agreement_word(r, agrees).value(), "in bound");
  r.order_bound = 0.5;
  EXPECT_EQ(agreement_word(r, agrees).value(), "OUT");
  r.model_available = false;
  EXPECT_FALSE(agreement_word(r, agrees).has_value()) << "CUB: the model has no sum";
}

TEST(CgReduceJudge, ABenchRowFailsAtTheFirstSizeOutOfBound) {
  const std::vector<BenchSum> good{{"2^20", 100.0, 100.0, 10}, {"2^22", 100.0000001, 100.0, 10}};
  EXPECT_TRUE(every_size_in_bound(Kernel::two_pass_fixed_grid, Dtype::f32, good).passed);
  const std::vector<BenchSum> bad{{"2^20", 100.0, 100.0, 10}, {"2^22", 101.0, 100.0, 10}};
  const Verdict v = every_size_in_bound(Kernel::two_pass_fixed_grid, Dtype::f32, bad);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.detail.find("2^22"), std::string::npos) << v.detail;
}

TEST(CgReduceJudge, ATraceIsComparedWhereItIsLive) {
  // block 4: steps input, +2, +1; word i is live after +o only while i < o.
  const std::vector<float> model{1, 2, 3, 4, /*+2*/ 4, 6, 3, 4, /*+1*/ 10, 6, 3, 4};
  std::vector<float> gpu = model;
  gpu[4 + 2] = 99;  // s_y[2] after +2: dead, not compared
  gpu[8 + 1] = 99;  // s_y[1] after +1: dead
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(tree_word_agrees(gpu, model, 4, i)) << i;
  gpu[4 + 1] = 99;  // s_y[1] after +2: live
  for (int i = 0; i < 4; ++i) EXPECT_EQ(tree_word_agrees(gpu, model, 4, i), i != 1) << i;

  std::vector<double> lanes(2 * kWarpSize, 1.0), other = lanes;
  other[kWarpSize + 5] = 2.0;  // lane 5 at step 1
  EXPECT_FALSE(lane_agrees(other, lanes, 2, 5));
  EXPECT_TRUE(lane_agrees(other, lanes, 2, 4));
  EXPECT_TRUE(lane_agrees(other, lanes, 1, 5)) << "only the steps asked for";
}

TEST(CgReduceJudge, BandwidthAndRelativeError) {
  EXPECT_DOUBLE_EQ(gb_per_s(1000000, Dtype::f32, 1.0), 4.0);  // 4 MB in 1 ms
  EXPECT_DOUBLE_EQ(gb_per_s(1000000, Dtype::f64, 2.0), 4.0);
  EXPECT_DOUBLE_EQ(relative_error(101.0, 100.0), 0.01);
  EXPECT_DOUBLE_EQ(relative_error(0.5, 0.0), 0.5);
}

}  // namespace
}  // namespace cudasync::cg_reduce
