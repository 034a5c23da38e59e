// Part shfl-64 (Fan 10.3): 64-bit values through __shfl_down_sync in the model, the judge that
// compares them bit for bit, the SHFL count of a listing, and the section on the model.
#include <gtest/gtest.h>

#include <cstring>

#include "core/kernel_listing.hpp"
#include "support/cli_expect.hpp"
#include "support/report_lookup.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace cudasync::warp_primitives {
namespace {

using test::find_check;
using test::find_table;

ShuffleSpec fan_down(int delta) {  // Fan's block of 16, width 8, var = tid
  ShuffleSpec s;
  s.op = ShuffleOp::down;
  s.param = delta;
  s.width = 8;
  s.warp.threads = 16;
  for (int i = 0; i < kWarpSize; ++i) s.values[static_cast<std::size_t>(i)] = i;
  return s;
}

// The lanes of a 64-bit shuffle noted as shfl64_part notes them.
report::Agreement judge_shuffle64(const std::array<ShuffleLane, kWarpSize>& lanes, const Shuffle64Lanes& model,
                                  const Shuffle64Lanes& gpu, int threads) {
  report::Agreement a(true);
  for (int lane = 0; lane < threads; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    note_lane(a, lane, lanes[l], shuffle64_lane_agrees(lanes[l], model, gpu, l));
  }
  return a;
}

template <typename T>
T poison() {
  T v;
  std::memset(&v, 0xAB, sizeof v);
  return v;
}

TEST(WarpShfl64Model, BothHalvesTravel) {
  EXPECT_EQ(wide_long_long(5), 5LL * 4294967296LL + 5);  // 0x00000005_00000005
  EXPECT_EQ(wide_long_long(0), 0);
  EXPECT_DOUBLE_EQ(wide_double(5), 5.1);
  const Shuffle64Lanes m = model_shuffle64(fan_down(1));
  EXPECT_EQ(m.ll[5], wide_long_long(6));
  EXPECT_DOUBLE_EQ(m.dbl[5], 6.1);
  EXPECT_EQ(m.ll[7], wide_long_long(7)) << "the last lane of the segment keeps its own";
  EXPECT_EQ(m.ll[20], 0) << "lane 20 does not exist";
}

TEST(WarpShfl64Judge, BitForBitAndPoisonWhereNobodyCalled) {
  const ShuffleSpec spec = fan_down(1);
  const auto lanes = model_shuffle(spec);
  const Shuffle64Lanes m = model_shuffle64(spec);
  Shuffle64Lanes g = m;
  for (std::size_t l = 16; l < kWarpSize; ++l) {
    g.ll[l] = poison<long long>();
    g.dbl[l] = poison<double>();
  }
  EXPECT_TRUE(judge_shuffle64(lanes, m, g, 32).passed());
  EXPECT_EQ(judge_shuffle64(lanes, m, g, 32).compared(), 32u);
  Shuffle64Lanes low_half_only = g;  // a GPU that moved only the low 32 bits of lane 3's long long
  low_half_only.ll[3] = (m.ll[3] & 0xffffffffLL) | (wide_long_long(3) & ~0xffffffffLL);
  EXPECT_EQ(judge_shuffle64(lanes, m, low_half_only, 32).differing(), (std::vector<std::int64_t>{3}));
  Shuffle64Lanes written = g;
  written.dbl[20] = 0.0;  // a lane that never called was written
  EXPECT_EQ(judge_shuffle64(lanes, m, written, 32).differing(), (std::vector<std::int64_t>{20}));
}

TEST(WarpShfl64Judge, ShflCountReadsTheOpcodes) {
  EXPECT_EQ(shfl_count({"SHFL.DOWN PT, R5, R3, R8, R9", "SHFL.DOWN PT, R4, R2, R8, R9"}), 2);
  EXPECT_EQ(shfl_count({"@P0 SHFL.IDX PT, R2, R2, RZ, 0x1f", "VOTE.ANY R0, PT, PT"}), 1);
  EXPECT_EQ(shfl_count({"REDUX.SUM UR4, R2", "MATCH.ANY R3, R2"}), 0);
}

TEST(WarpShfl64Section, ModelRunShowsEveryLaneAndWhatTheListingSays) {
  RunContext ctx;  // the reference model
  Options o;
  o.threads = 16;
  o.width = 8;
  warp_primitives::Run run(o, ctx, {});
  const report::Section s = shfl64_part(run);
  EXPECT_EQ(s.id, "shfl-64");
  const report::Table* t = find_table(s, "lanes");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 16u);
  EXPECT_EQ(std::get<std::int64_t>(t->cell(5, "ll-model")), wide_long_long(6));
  EXPECT_DOUBLE_EQ(std::get<double>(t->cell(5, "double-model")), 6.1);
  EXPECT_EQ(t->rows[7].mark, report::RowMark::kept_own);
  EXPECT_EQ(find_check(s, "gpu-agrees"), nullptr);
  const KernelListing& listing = kernel_listing();
  if (!listing.available) {
    EXPECT_EQ(find_table(s, "sass"), nullptr);
    ASSERT_FALSE(s.notes.empty());
    EXPECT_NE(s.notes.back().find(listing.reason()), std::string::npos) << s.notes.back();
    return;
  }
  // The build's own SASS: one SHFL for the int kernel, two for long long and double.
  const report::Table* sass = find_table(s, "sass");
  ASSERT_NE(sass, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(sass->cell(0, "shfl")), 1);
  EXPECT_EQ(std::get<std::int64_t>(sass->cell(1, "shfl")), 2);
  EXPECT_EQ(std::get<std::int64_t>(sass->cell(2, "shfl")), 2);
  ASSERT_NE(find_check(s, "two-shfl-for-64-bit"), nullptr);
  EXPECT_TRUE(find_check(s, "two-shfl-for-64-bit")->passed) << find_check(s, "two-shfl-for-64-bit")->detail;
}

TEST(WarpShfl64Cli, ReadsTheShuffleOptions) {
  const auto doc = test::valid_document("warp-primitives --part shfl-64 --threads 16 --width 8 --delta 2 --json");
  const auto& rows = doc["report"]["sections"]["shfl-64"]["tables"]["lanes"]["rows"];
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_EQ(rows[5]["ll-model"].get<long long>(), wide_long_long(7));
  EXPECT_EQ(rows[6]["mark"].get<std::string>(), "kept-own");
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  test::expect_usage_error({"warp-primitives --part shfl-64 --delta 8 --width 8", {"--delta"}});
}

}  // namespace
}  // namespace cudasync::warp_primitives
