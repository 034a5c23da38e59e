// Part cg-tiles (Fan 10.4): the model of the partitions and of a tile's shuffle and votes, its
// judge, and the section: tables from the model, nvcc's error where the build has it.
#include <gtest/gtest.h>

#include "core/expected_errors.hpp"
#include "core/version.hpp"
#include "support/cli_expect.hpp"
#include "support/report_lookup.hpp"
#include "techniques/warp_primitives/lesson.hpp"
#include "techniques/warp_primitives/warp_primitives_test_lanes.hpp"

namespace cudasync::warp_primitives {
namespace {

using test::find_check;
using test::find_fact;
using test::find_table;

using test_lanes::tid_values;

Lanes predicate_of(std::uint32_t bits) {
  Lanes p{};
  for (int i = 0; i < kWarpSize; ++i) p[static_cast<std::size_t>(i)] = (bits >> i) & 1u;
  return p;
}

TEST(WarpTilesModel, RanksAndSizesOfTheTwoPartitions) {
  const TileLanes t = model_tiles(tid_values(), predicate_of(0));
  EXPECT_EQ(t.g32_rank[13], 13);
  EXPECT_EQ(t.g32_size[13], 32);
  EXPECT_EQ(t.g4_rank[13], 1);  // lane 13 is rank 1 of the tile of lanes 12-15
  EXPECT_EQ(t.g4_size[13], 4);
  EXPECT_EQ(t.g4_rank[31], 3);
}

TEST(WarpTilesModel, ShflDownStaysInsideTheTile) {
  const TileLanes t = model_tiles(tid_values(), predicate_of(0));
  EXPECT_EQ(t.shfl_down[4], 5);
  EXPECT_EQ(t.shfl_down[6], 7);
  EXPECT_EQ(t.shfl_down[7], 7) << "rank 3 has no rank 4 in its tile: it keeps its own value";
  EXPECT_EQ(t.shfl_down[31], 31);
}

TEST(WarpTilesModel, VotesAndBallotPerTileInRankOrder) {
  // Lanes 0-5 true: tile 0 all true (ballot 0b1111), tile 1 lanes 4, 5 true (0b0011), others none.
  const TileLanes t = model_tiles(tid_values(), predicate_of(0x3fu));
  EXPECT_EQ(t.ballot[2], 15u);
  EXPECT_EQ(t.all[2], 1);
  EXPECT_EQ(t.ballot[6], 3u) << "bits by rank in the tile, not by lane (lane 4 is bit 0)";
  EXPECT_EQ(t.any[6], 1);
  EXPECT_EQ(t.all[6], 0);
  EXPECT_EQ(t.ballot[9], 0u);
  EXPECT_EQ(t.any[9], 0);
  // Lanes 4-7 with predicates 1, 0, 1, 1: 0b1101 = 13 in each of them.
  const TileLanes u = model_tiles(tid_values(), predicate_of(0xd0u));
  for (int l = 4; l < 8; ++l) EXPECT_EQ(u.ballot[static_cast<std::size_t>(l)], 13u) << l;
}

TEST(WarpTilesJudge, EveryFieldIsCompared) {
  const TileLanes m = model_tiles(tid_values(), predicate_of(0x5555u));
  EXPECT_TRUE(judge_tiles(m, m).passed());
  EXPECT_EQ(judge_tiles(m, m).compared(), 32u);
  TileLanes g = m;
  g.g4_rank[3] = 0;
  g.ballot[20] ^= 1u;
  g.all[30] = 1 - g.all[30];
  EXPECT_EQ(judge_tiles(m, g).differing(), (std::vector<std::int64_t>{3, 20, 30}));
}

TEST(WarpTilesSection, ModelRunHasTheTablesAndSaysWhatTheBuildKnows) {
  RunContext ctx;  // the reference model
  Options o;
  o.predicate = "lane<6";
  warp_primitives::Run run(o, ctx, {});
  const report::Section s = cg_tiles_part(run);
  EXPECT_EQ(s.id, "cg-tiles");
  const report::Table* ranks = find_table(s, "ranks");
  ASSERT_NE(ranks, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(ranks->cell(13, "g4-rank")), 1);
  const report::Table* tile = find_table(s, "tile");
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(tile->cell(6, "ballot")), 3);
  EXPECT_EQ(find_check(s, "gpu-agrees"), nullptr) << "no GPU, no agreement check";
  const ExpectedError e = expected_error("warp_primitives/thread_group_shfl");
  if (!e.available) {
    EXPECT_EQ(find_fact(s, "thread-group-shfl"), nullptr);
    ASSERT_FALSE(s.notes.empty());
    EXPECT_NE(s.notes.back().find("CUDA toolkit"), std::string::npos) << s.notes.back();
    return;
  }
  // A CUDA build: nvcc refused the snippet, and the error names the missing member.
  const report::Fact* f = find_fact(s, "thread-group-shfl");
  ASSERT_NE(f, nullptr);
  const auto& text = std::get<std::string>(f->value);
  EXPECT_NE(text.find("error"), std::string::npos) << text;
  EXPECT_NE(text.find("shfl_down"), std::string::npos) << text;
  EXPECT_NE(text.find("thread_group"), std::string::npos) << text;
  ASSERT_NE(find_check(s, "thread-group-has-no-shfl"), nullptr);
  EXPECT_TRUE(find_check(s, "thread-group-has-no-shfl")->passed);
}

TEST(WarpTilesCli, ReadsValuesAndPredicateButNotThreads) {
  const auto doc = test::valid_document("warp-primitives --part cg-tiles --predicate 'lane<6' --json");
  const auto& s = doc["report"]["sections"]["cg-tiles"];
  EXPECT_EQ(s["tables"]["tile"]["rows"][6]["ballot"].get<int>(), 3);
  EXPECT_EQ(s["tables"]["ranks"]["rows"][13]["g4-rank"].get<int>(), 1);
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  test::expect_usage_error({"warp-primitives --part cg-tiles --threads 16", {"--threads"}});
}

}  // namespace
}  // namespace cudasync::warp_primitives
