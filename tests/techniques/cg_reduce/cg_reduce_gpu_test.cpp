// The GPU against the reference model: every rung with a fixed order bit for bit, over sizes
// (n not a multiple of the block included), blocks, seeds and both types; the atomic rungs within
// the bound that covers every order of their atomics; CUB against the exact sum; the cooperative
// launch refused when its grid cannot be resident at once; the trace, lane by lane; and the CLI's
// checks, found by id.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"
#include "support/run_cli.hpp"
#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {
namespace {

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename T>
Dtype dtype_of() {
  return sizeof(T) == sizeof(float) ? Dtype::f32 : Dtype::f64;
}

// One call of kernel k on the GPU, in the input's type.
template <typename T>
T run(GpuInput& in, Kernel k, const Plan& p) {
  return static_cast<T>(gpu_sum(in, k, p));
}

template <typename T>
Plan gpu_plan(int block) {
  const GpuGrids g = gpu_grids(dtype_of<T>(), block, 0);
  Plan p;
  p.block = block;
  p.occupancy_grid = g.occupancy_grid;
  p.vector_grid = g.vector_grid;
  p.grid_sync_limit = g.grid_sync_limit;
  p.grid_sync_grid = g.grid_sync_limit;
  return p;
}

constexpr Kernel kFixed[] = {Kernel::two_pass_fixed_grid, Kernel::two_pass_occupancy, Kernel::two_pass_vector,
                             Kernel::static_buffer, Kernel::grid_sync};
constexpr Kernel kAtomic[] = {Kernel::shared_atomic,         Kernel::syncwarp_atomic,  Kernel::shfl_down_atomic,
                              Kernel::shfl_xor_atomic,       Kernel::tile_shfl_down_atomic,
                              Kernel::cg_reduce_atomic};

template <typename T>
void expect_fixed_rungs_bit_exact(std::int64_t n, int block, std::uint64_t seed) {
  const Plan p = gpu_plan<T>(block);
  const auto x = make_inputs<T>(n, seed);
  const auto gpu = gpu_upload(x, 1);
  for (Kernel k : kFixed) {
    SCOPED_TRACE(std::string(kernel_id(k)) + " n " + std::to_string(n) + " block " + std::to_string(block) + " seed " +
                 std::to_string(seed) + " " + dtype_name(dtype_of<T>()));
    const T want = model_kernel(k, x, p).sum;
    const T got = run<T>(*gpu, k, p);
    EXPECT_TRUE(same_bits(got, want)) << "GPU " << got << ", model " << want;
    EXPECT_TRUE(same_bits(run<T>(*gpu, k, p), got)) << "a second run changed the bits";
  }
}

TEST(CgReduceGpu, FixedOrderRungsMatchTheModelBitForBit) {
  CUDASYNC_REQUIRE_GPU();
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{31}, std::int64_t{1000}, std::int64_t{4097},
                         (std::int64_t{1} << 20) + 3, std::int64_t{3000001}})
    for (int block : {32, 128, 1024})
      for (std::uint64_t seed : {1u, 7u}) {
        expect_fixed_rungs_bit_exact<float>(n, block, seed);
        expect_fixed_rungs_bit_exact<double>(n, block, seed);
      }
}

template <typename T>
void expect_atomic_rungs_in_bound(std::int64_t n, int block, std::uint64_t seed) {
  const Plan p = gpu_plan<T>(block);
  const auto x = make_inputs<T>(n, seed);
  const auto gpu = gpu_upload(x, 1);
  const ModelResult<T> m = model_kernel(Kernel::shared_atomic, x, p);
  const double bound = atomic_order_bound(m.block_sums);
  ASSERT_GE(bound, 0.0);
  for (Kernel k : kAtomic) {
    SCOPED_TRACE(std::string(kernel_id(k)) + " n " + std::to_string(n) + " block " + std::to_string(block));
    const T got = run<T>(*gpu, k, p);
    EXPECT_LE(std::fabs(static_cast<double>(got) - static_cast<double>(m.sum)), bound);
    // And within Higham's bound of the exact sum.
    const double ref = exact_sum(x);
    EXPECT_LE(std::fabs(static_cast<double>(got) - ref) / ref,
              gamma_bound(error_depth(k, n, p, dtype_of<T>()), unit_roundoff(dtype_of<T>())));
  }
  // One block: nothing to reorder, so the atomic rungs are bit-exact too.
  if (n <= block) {
    for (Kernel k : kAtomic) EXPECT_TRUE(same_bits(run<T>(*gpu, k, p), m.sum)) << kernel_id(k);
  }
}

TEST(CgReduceGpu, AtomicRungsStayWithinTheOrderBound) {
  CUDASYNC_REQUIRE_GPU();
  for (std::int64_t n : {std::int64_t{100}, std::int64_t{1000}, std::int64_t{100003}, std::int64_t{2000000}})
    for (int block : {32, 128, 1024}) {
      expect_atomic_rungs_in_bound<float>(n, block, 3);
      expect_atomic_rungs_in_bound<double>(n, block, 3);
    }
}

template <typename T>
void expect_cub_agrees(std::int64_t n) {
  const auto x = make_inputs<T>(n, 11);
  const auto gpu = gpu_upload(x, 1);
  const Plan p = gpu_plan<T>(128);
  const T sum = run<T>(*gpu, Kernel::cub_sum, p);
  const double ref = exact_sum(x);
  EXPECT_LE(std::fabs(static_cast<double>(sum) - ref) / ref, cub_tolerance(dtype_of<T>())) << "n " << n;
  EXPECT_TRUE(same_bits(run<T>(*gpu, Kernel::cub_sum, p), sum)) << "CUB promises run-to-run determinism";
  EXPECT_TRUE(same_bits(static_cast<T>(gpu_cub_reduce_plus(*gpu)), sum))
      << "Reduce(cuda::std::plus<>{}, 0) is what Sum calls";
  // CUB and the vector rung agree within both their bounds.
  const T vec = run<T>(*gpu, Kernel::two_pass_vector, p);
  EXPECT_LE(std::fabs(static_cast<double>(vec) - static_cast<double>(sum)) / ref, 2 * cub_tolerance(dtype_of<T>()));
}

TEST(CgReduceGpu, CubAgreesWithTheExactSumAndWithItself) {
  CUDASYNC_REQUIRE_GPU();
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 22, (std::int64_t{1} << 24) + 5}) {
    expect_cub_agrees<float>(n);
    expect_cub_agrees<double>(n);
  }
}

TEST(CgReduceGpu, CooperativeLaunchTooLargeIsRefusedNotRun) {
  CUDASYNC_REQUIRE_GPU();
  Plan p = gpu_plan<float>(128);
  ASSERT_GT(p.grid_sync_limit, 0);
  const auto x = make_inputs<float>(100000, 1);
  const auto gpu = gpu_upload(x, 1);
  p.grid_sync_grid = p.grid_sync_limit;  // the largest grid that fits runs
  EXPECT_TRUE(same_bits(run<float>(*gpu, Kernel::grid_sync, p), model_kernel(Kernel::grid_sync, x, p).sum));
  p.grid_sync_grid = p.grid_sync_limit + 1;  // one more block does not
  try {
    (void)gpu_sum(*gpu, Kernel::grid_sync, p);
    ADD_FAILURE() << "a cooperative launch of " << p.grid_sync_grid << " blocks was accepted";
  } catch (const WaivedError& e) {
    EXPECT_NE(std::string(e.what()).find("cudaErrorCooperativeLaunchTooLarge"), std::string::npos) << e.what();
  }
  // The context survives: the next launch works.
  p.grid_sync_grid = 4;
  EXPECT_TRUE(same_bits(run<float>(*gpu, Kernel::grid_sync, p), model_kernel(Kernel::grid_sync, x, p).sum));
}

TEST(CgReduceGpu, CliRefusesTheTooLargeGridWithExit77OrListsItAsWaived) {
  CUDASYNC_REQUIRE_GPU();
  const auto alone = test::run_cli("cg-reduce --backend gpu --n 100000 --part grid-sync --grid 1000000000");
  EXPECT_EQ(alone.exit_code, 77) << alone.out << alone.err;
  EXPECT_NE((alone.out + alone.err).find("cudaErrorCooperativeLaunchTooLarge"), std::string::npos) << alone.out;
  const auto mixed = test::run_cli("cg-reduce --backend gpu --n 100000 --part two-pass,grid-sync --grid 1000000000");
  EXPECT_EQ(mixed.exit_code, 0) << mixed.out << mixed.err;
  EXPECT_NE(mixed.out.find("== waived =="), std::string::npos) << mixed.out;
  // The ladder still lists the waived kernel beside the rungs that ran.
  const auto doc = test::valid_document(
      "cg-reduce --backend gpu --n 100000 --part two-pass,grid-sync --grid 1000000000 --json", 0);
  const auto& rows = doc["report"]["sections"]["ladder"]["tables"]["ladder"]["rows"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3]["sum"], "waived");
  EXPECT_FALSE(doc["report"]["sections"].contains("grid-sync"));
}

template <typename T>
void expect_trace_matches(std::int64_t n, int block, int block_index, int warp) {
  const auto x = make_inputs<T>(n, 5);
  const Plan p = gpu_plan<T>(block);
  const auto gpu = gpu_upload(x, 1);
  Trace<T> got;
  gpu_trace(*gpu, p, block_index, warp, got);
  const Trace<T> want = model_trace(x, p, block_index, warp);
  SCOPED_TRACE("n " + std::to_string(n) + " block " + std::to_string(block) + " traced block " +
               std::to_string(block_index) + " warp " + std::to_string(warp));
  ASSERT_EQ(got.shared_tree.size(), want.shared_tree.size());
  // Live words only: word i after the step with offset o is read again only if i < o.
  int step = 0;
  for (int o = block; o >= 1; o >>= 1, ++step)
    for (int i = 0; i < o; ++i) {
      const auto at = static_cast<std::size_t>(step * block + i);
      EXPECT_TRUE(same_bits(got.shared_tree[at], want.shared_tree[at])) << "step " << step << " s_y[" << i << "]";
    }
  ASSERT_EQ(got.shuffle.size(), want.shuffle.size());
  for (std::size_t i = 0; i < got.shuffle.size(); ++i) EXPECT_TRUE(same_bits(got.shuffle[i], want.shuffle[i])) << i;
  ASSERT_EQ(got.grid_stride.size(), want.grid_stride.size());
  for (std::size_t i = 0; i < got.grid_stride.size(); ++i)
    EXPECT_TRUE(same_bits(got.grid_stride[i], want.grid_stride[i])) << i;
}

TEST(CgReduceGpu, TraceMatchesTheModelLaneByLane) {
  CUDASYNC_REQUIRE_GPU();
  expect_trace_matches<float>(1000000, 128, 0, 0);
  expect_trace_matches<float>(1000000, 128, 3, 2);
  expect_trace_matches<double>(5000, 256, 19, 7);  // the last, partial block (136 of 256 elements)
  expect_trace_matches<float>(100, 32, 3, 0);      // 4 elements, then zeros
}

TEST(CgReduceGpu, CliGpuRunPassesEveryCheckAndItsJsonValidates) {
  CUDASYNC_REQUIRE_GPU();
  for (const char* args : {"cg-reduce --backend gpu --n 100003 --json",
                           "cg-reduce --backend gpu --n 5000 --block 64 --dtype double --part trace --trace-block 3 --json",
                           "cg-reduce --backend gpu --bench --sizes 12,14 --json"}) {
    SCOPED_TRACE(args);
    const auto doc = test::valid_document(args, 0);
    EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
    EXPECT_GT(test::check_count(doc), 0u);
    for (const auto& [sid, s] : doc["report"]["sections"].items())
      for (const auto& [mid, m] : s["measurements"].items()) EXPECT_FALSE(m["needs_gpu"].get<bool>()) << sid << "/" << mid;
  }
  // The default run: every fixed-order rung agrees with the model bit for bit, by id.
  const auto doc = test::valid_document("cg-reduce --backend gpu --n 1000000 --json", 0);
  const auto& sections = doc["report"]["sections"];
  for (const char* id : {"two-pass-fixed-grid", "two-pass-occupancy", "two-pass-vector"})
    EXPECT_TRUE(sections["two-pass"]["checks"][std::string(id) + "-gpu-agrees"]["passed"].get<bool>()) << id;
  EXPECT_TRUE(sections["static"]["checks"]["static-buffer-gpu-agrees"]["passed"].get<bool>());
  EXPECT_TRUE(sections["grid-sync"]["checks"]["grid-sync-gpu-agrees"]["passed"].get<bool>());
  EXPECT_TRUE(sections["shared"]["checks"]["shared-atomic-gpu-in-bound"]["passed"].get<bool>());
  EXPECT_TRUE(sections["cub"]["checks"]["cub-sum-reduce-plus"]["passed"].get<bool>());
}

}  // namespace
}  // namespace cudasync::cg_reduce
