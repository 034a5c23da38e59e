// The reference model's summation orders on small arrays, against sums worked out by hand.
// The trick in every case: 2^24 is where float stops holding every integer (its spacing becomes 2),
// so 2^24 + 1 rounds back to 2^24 (a tie, to the even neighbour), while 2^24 + 2 is exact. Which
// of the small terms get lost therefore depends only on the order of the additions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {
namespace {

constexpr float k24 = 16777216.0f;  // 2^24

std::vector<float> big_then_ones(std::size_t n) {
  std::vector<float> x(n, 1.0f);
  x[0] = k24;
  return x;
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(CgReduceModel, FloatRoundsTiesToEvenAroundTwoToThe24) {
  // The premise of every hand computation below.
  volatile float big = k24;
  EXPECT_EQ(big + 1.0f, k24);
  EXPECT_EQ(big + 2.0f, 16777218.0f);
  EXPECT_EQ(16777218.0f + 1.0f, 16777220.0f);  // 2^24 + 3 is a tie too: to the even 2^24 + 4
}

TEST(CgReduceModel, TreeOf32KeepsWhatASequentialSumLoses) {
  // s_y[tid] += s_y[tid + offset] for offset 16 ... 1. s[0] = 2^24, s[1..31] = 1.
  //   +16: s0 = 2^24 + 1 -> 2^24 (lost),   s1..15 = 2
  //   +8:  s0 = 2^24 + 2 = 16777218,       s1..7  = 4
  //   +4:  s0 = 16777222,                  s1..3  = 8
  //   +2:  s0 = 16777230,                  s1     = 16
  //   +1:  s0 = 16777246                   (exact sum 16777247)
  auto x = big_then_ones(32);
  EXPECT_EQ(tree_sum(x.data(), 32), 16777246.0f);
  // Left to right every +1 is a tie that rounds back to 2^24: all 31 are lost.
  EXPECT_EQ(fold_in_order(big_then_ones(32)), k24);
}

TEST(CgReduceModel, TreeOfDoublesAroundTwoToThe53) {
  const double k53 = 9007199254740992.0;  // 2^53: the same story one type up
  std::vector<double> x(32, 1.0);
  x[0] = k53;
  EXPECT_EQ(tree_sum(x.data(), 32), k53 + 30.0);  // 2^53 + 1 lost at +16, then 2 + 4 + 8 + 16
  std::vector<double> again(32, 1.0);
  again[0] = k53;
  EXPECT_EQ(fold_in_order(again), k53);
}

TEST(CgReduceModel, BlockTreeSumsPadTheLastBlockWithZeros) {
  // 40 elements in blocks of 32: block 0 is the tree above, block 1 holds 8 ones and 24 zeros.
  const auto x = big_then_ones(40);
  const auto sums = block_tree_sums(x.data(), 40, 32);
  ASSERT_EQ(sums.size(), 2u);
  EXPECT_EQ(sums[0], 16777246.0f);
  EXPECT_EQ(sums[1], 8.0f);
  // Atomics in block order: 16777246 + 8 = 16777254, exact.
  EXPECT_EQ(fold_in_order(sums), 16777254.0f);
}

TEST(CgReduceModel, GridStrideLoopAddsEachThreadsElementsInOrderFirst) {
  // One block of 32, 64 elements: thread t adds x[t] then x[t + 32], starting from 0.
  //   thread 0: 0 + 2^24 + 1 -> 2^24 (the 1 is lost inside the loop); threads 1..31: 1 + 1 = 2.
  //   tree: +16 -> 2^24 + 2 = 16777218, +8 -> 16777222, +4 -> 16777230, +2 -> 16777246,
  //   +1 -> 16777246 + 32 = 16777278 (s1 = 2 + 2 + 4 + 8 + 16 = 32 by then; exact sum 16777279)
  const auto x = big_then_ones(64);
  const auto partials = reduce_cp(x.data(), 64, 1, 32);
  ASSERT_EQ(partials.size(), 1u);
  EXPECT_EQ(partials[0], 16777278.0f);
  // The second launch (<<<1, 1024>>> over one partial, zeros elsewhere) changes nothing.
  EXPECT_EQ(two_pass(x.data(), 64, 1, 32), 16777278.0f);
  // With two blocks of 32 every thread holds one element: block 0 is the tree of 32 (16777246),
  // block 1 sums 32 ones (32); the second launch adds them: 16777278 again, by another route.
  const auto two = reduce_cp(x.data(), 64, 2, 32);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], 16777246.0f);
  EXPECT_EQ(two[1], 32.0f);
}

TEST(CgReduceModel, BlocksPastTheDataSumToZero) {
  // The seed's grid of 10240 blocks over 100 elements: blocks 1..10239 have no element.
  std::vector<float> x(100, 0.5f);
  const auto partials = reduce_cp(x.data(), 100, kSeedGrid, 128);
  ASSERT_EQ(partials.size(), static_cast<std::size_t>(kSeedGrid));
  EXPECT_EQ(partials[0], 50.0f);
  EXPECT_EQ(std::count(partials.begin() + 1, partials.end(), 0.0f), kSeedGrid - 1);
  EXPECT_EQ(two_pass(x.data(), 100, kSeedGrid, 128), 50.0f);
}

TEST(CgReduceModel, WarpFirstDiffersFromTheSharedTree) {
  // A block of 64: y[0] = 2^24, y[1..31] = 0, y[32..63] = 1.
  // Warps first: warp 0 sums to 2^24, warp 1 to 32; then 2^24 + 32 = 16777248, exact.
  // Shared tree: +32 pairs y[0] with y[32]: 2^24 + 1 -> 2^24 (lost), s1..31 = 1; then the tree of
  // 32 as above gives 16777246.
  std::vector<float> y(64, 0.0f);
  y[0] = k24;
  std::fill(y.begin() + 32, y.end(), 1.0f);
  EXPECT_EQ(warp_first_block_sum(y.data(), 64), 16777248.0f);
  std::vector<float> s = y;
  EXPECT_EQ(tree_sum(s.data(), 64), 16777246.0f);
}

TEST(CgReduceModel, VectorKernelAddsTheFourComponentsPairwise) {
  // float4 loads: thread 0's vector is (2^24, 1, 1, 1); y0 = (2^24 + 1) + (1 + 1) = 2^24 + 2.
  // Every other element is 0, so the block sum is 16777218 (exact sum 16777219).
  std::vector<float> x(128, 0.0f);
  x[0] = k24;
  x[1] = x[2] = x[3] = 1.0f;
  const auto p = vector_partials(x.data(), 128, 1, 32);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], 16777218.0f);
  // One more element (n = 129): the leftover x[128] = 1 goes to thread 0 after its vectors:
  // 16777218 + 1 = 16777219, a tie, rounds to the even 16777220.
  x.push_back(1.0f);
  EXPECT_EQ(vector_partials(x.data(), 129, 1, 32)[0], 16777220.0f);
}

TEST(CgReduceModel, VectorKernelWithDoublesUsesTwoComponents) {
  // double2: thread 0 holds (2^53, 1) then, one stride of 32 vectors later, (1, 1):
  // a0 = 2^53 + 1 -> 2^53, a1 = 1 + 1 = 2, y0 = 2^53 + 2.
  const double k53 = 9007199254740992.0;
  std::vector<double> x(128, 0.0);
  x[0] = k53;
  x[1] = 1.0;
  x[64] = 1.0;
  x[65] = 1.0;
  EXPECT_EQ(vector_partials(x.data(), 128, 1, 32)[0], k53 + 2.0);
}

TEST(CgReduceModel, GridSyncSumsBlocksThenBlockZeroAddsThem) {
  // Two blocks of 32 over 64 elements: block 0 = tree of (2^24, 1 x 31) = 16777246, block 1 = 32;
  // block 0 then adds the two block sums: 16777278.
  const auto x = big_then_ones(64);
  EXPECT_EQ(grid_sync_sum(x.data(), 64, 2, 32), 16777278.0f);
  // A grid far larger than the data: the extra blocks add +0, which changes no bit.
  EXPECT_EQ(grid_sync_sum(x.data(), 64, 1000000000, 32), 16777278.0f);
}

TEST(CgReduceModel, InputsAreRandomExactAndNeverZero) {
  const auto a = make_inputs<float>(1000, 1);
  const auto b = make_inputs<float>(1000, 1);
  const auto c = make_inputs<float>(1000, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (float v : a) {
    EXPECT_GT(v, 0.0f);
    EXPECT_LT(v, 1.0f);
    const double k = std::ldexp(static_cast<double>(v), 24);
    EXPECT_EQ(k, std::floor(k));
    EXPECT_EQ(std::fmod(k, 2.0), 1.0) << "odd multiples of 2^-24";
  }
  // Floats in (0, 1) with 24 fraction bits: an fp64 sum of 1000 of them is exact.
  double fp64 = 0.0;
  for (float v : a) fp64 += v;
  EXPECT_EQ(exact_sum(a), fp64);
  for (double v : make_inputs<double>(1000, 3)) {
    EXPECT_GT(v, 0.0);
    EXPECT_LT(v, 1.0);
  }
}

TEST(CgReduceModel, ExactSumOfDoublesIsRoundedOnce) {
  // 2^-53 (k = 1) plus 1 - 2^-53 (k = 2^53 - 1): exactly 1.
  const std::vector<double> x = {std::ldexp(1.0, -53), 1.0 - std::ldexp(1.0, -53)};
  EXPECT_EQ(exact_sum(x), 1.0);
  // 3 x (1 - 2^-53) = 3 - 3 x 2^-53: its nearest double is 3 - 2^-51 (spacing below 3 is 2^-51 x 2).
  const double near1 = 1.0 - std::ldexp(1.0, -53);
  const std::vector<double> y = {near1, near1, near1};
  EXPECT_EQ(exact_sum(y), 3.0 - std::ldexp(1.0, -51));
}

TEST(CgReduceModel, GammaBound) {
  const double u = unit_roundoff(Dtype::f32);
  EXPECT_EQ(u, std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(gamma_bound(10, u), 10 * u / (1 - 10 * u));
  EXPECT_LT(gamma_bound(std::int64_t{1} << 24, u), 0.0) << "d u >= 1: no bound";
}

TEST(CgReduceModel, ModelKernelsFollowTheirOrders) {
  const auto x = make_inputs<float>(5000, 9);
  Plan p = default_plan(64);
  p.occupancy_grid = 3;
  p.vector_grid = 5;
  p.grid_sync_grid = 7;
  const auto atomic = model_kernel(Kernel::shfl_down_atomic, x, p);
  EXPECT_FALSE(atomic.fixed_order);
  EXPECT_EQ(atomic.block_sums, block_tree_sums(x.data(), 5000, 64));
  EXPECT_EQ(model_kernel(Kernel::two_pass_fixed_grid, x, p).sum, two_pass(x.data(), 5000, kSeedGrid, 64));
  EXPECT_EQ(model_kernel(Kernel::static_buffer, x, p).sum, model_kernel(Kernel::two_pass_fixed_grid, x, p).sum);
  EXPECT_EQ(model_kernel(Kernel::two_pass_occupancy, x, p).sum, two_pass(x.data(), 5000, 3, 64));
  EXPECT_EQ(model_kernel(Kernel::grid_sync, x, p).sum, grid_sync_sum(x.data(), 5000, 7, 64));
  EXPECT_TRUE(model_kernel(Kernel::grid_sync, x, p).fixed_order);
  EXPECT_FALSE(model_kernel(Kernel::cub_sum, x, p).available);
  // Every order stays within its bound of the exact sum.
  const double ref = exact_sum(x);
  for (Kernel k : {Kernel::shared_atomic, Kernel::two_pass_fixed_grid, Kernel::two_pass_occupancy, Kernel::two_pass_vector,
                   Kernel::grid_sync}) {
    const double got = model_kernel(k, x, p).sum;
    EXPECT_LE(std::fabs(got - ref) / ref, gamma_bound(error_depth(k, 5000, p, Dtype::f32), unit_roundoff(Dtype::f32)))
        << kernel_id(k);
  }
}

TEST(CgReduceModel, TraceEndsWhereTheKernelsEnd) {
  const auto x = make_inputs<float>(3000, 4);
  Plan p = default_plan(128);
  p.seed_grid = 4;  // so that block 1's threads run the grid-stride loop several times
  const auto blocks = block_tree_sums(x.data(), 3000, 128);
  const Trace<float> t = model_trace(x, p, 1, 0);
  // The shared tree: 1 + log2(128) rows of 128 words; s_y[0] at the end is block 1's sum.
  ASSERT_EQ(t.shared_tree.size(), 8u * 128u);
  EXPECT_TRUE(same_bits(t.shared_tree[7 * 128], blocks[1]));
  // Rung 3: lane 0 after offset 1 holds the same sum.
  ASSERT_EQ(t.shuffle.size(), static_cast<std::size_t>(kShuffleSteps * kWarpSize));
  EXPECT_TRUE(same_bits(t.shuffle[5 * 32], blocks[1]));
  // Lane 31 has no source at any offset: it doubles its own y five times.
  EXPECT_EQ(t.shuffle[5 * 32 + 31], t.shuffle[31] * 32.0f);
  // Rung 5: lane 0's last value is block 1's partial of the first launch.
  const auto partials = reduce_cp(x.data(), 3000, 4, 128);
  ASSERT_EQ(t.grid_stride.size(), static_cast<std::size_t>(kGridStrideSteps * kWarpSize));
  EXPECT_TRUE(same_bits(t.grid_stride[6 * 32], partials[1]));
  EXPECT_EQ(elements_of_thread(128, 3000, 512), 6);  // threads 128: 128, 640, 1152, 1664, 2176, 2688
  // A block past the seed grid has no rung-5 trace.
  EXPECT_TRUE(model_trace(x, p, 5, 0).grid_stride.empty());
}

}  // namespace
}  // namespace cudasync::cg_reduce
