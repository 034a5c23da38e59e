// Sections as a model run builds them, and the checks a GPU run adds, fed with fake GPU results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "techniques/warp_primitives/warp_primitives_sections.hpp"

namespace wp = cudasync::warp_primitives;
namespace report = cudasync::report;
using report::RowMark;

namespace {

wp::Lanes tid_values() {
  wp::Lanes v{};
  for (int i = 0; i < wp::kWarpSize; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

std::size_t column(const report::LaneTable& t, const std::string& key) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].key == key) return c;
  ADD_FAILURE() << "table '" << t.id << "' has no column '" << key << "'";
  return 0;
}

bool is_undefined(const report::Value& v) { return std::holds_alternative<report::Undefined>(v); }

std::int64_t int_of(const report::Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  ADD_FAILURE() << "not an integer cell";
  return -1;
}

// What a correct GPU returns for a shuffle: the model's value where it is defined, kPoison where
// the lane did not call, and some arbitrary value where CUDA leaves it undefined.
wp::Lanes faithful_gpu(const wp::ShuffleSpec& spec) {
  const auto m = wp::model_shuffle(spec);
  wp::Lanes g{};
  for (std::size_t l = 0; l < g.size(); ++l)
    g[l] = m[l].outcome == wp::LaneOutcome::inactive ? wp::kPoison : m[l].defined() ? m[l].value : 12345;
  return g;
}

wp::ShuffleSpec spec_of(wp::ShuffleOp op, int param, int width, int threads, std::uint32_t mask) {
  wp::ShuffleSpec s;
  s.op = op;
  s.param = param;
  s.width = width;
  s.warp.threads = threads;
  s.warp.mask = mask;
  s.values = tid_values();
  return s;
}

}  // namespace

// ---------------------------------------------------------------- shuffle sections, model run

TEST(WarpSectionsShuffle, ModelRunHasNoChecksAndOneRowPerThread) {
  const auto spec = spec_of(wp::ShuffleOp::down, 2, 8, 16, 0xffffffffu);
  const auto s = wp::shuffle_section("shfl_down", spec, std::nullopt);
  EXPECT_EQ(s.id, "shfl_down");
  EXPECT_EQ(s.title, "__shfl_down_sync(0xffffffff, v, 2, 8)");
  EXPECT_TRUE(s.checks.empty());
  ASSERT_EQ(s.tables.size(), 1u);
  const auto& t = s.tables[0];
  EXPECT_EQ(t.rows.size(), 16u);  // lanes 16-31 of a 16-thread block are not rows
  EXPECT_EQ(t.marks.size(), 16u);
  for (const auto& c : t.columns) EXPECT_NE(c.key, "gpu");
  // The seed's shfl_down table: 2 3 4 5 6 7 6 7 | 10 11 12 13 14 15 14 15, lanes 6,7,14,15 kept.
  const int want[16] = {2, 3, 4, 5, 6, 7, 6, 7, 10, 11, 12, 13, 14, 15, 14, 15};
  const auto model = column(t, "model");
  for (std::size_t l = 0; l < 16; ++l) {
    EXPECT_EQ(int_of(t.rows[l][model]), want[l]) << l;
    const bool kept = l == 6 || l == 7 || l == 14 || l == 15;
    EXPECT_EQ(t.marks[l], kept ? RowMark::kept_own : RowMark::none) << l;
  }
}

TEST(WarpSectionsShuffle, InactiveLanesHaveUndefinedCellsAndTheInactiveMark) {
  // Mask 0x0000ff00: only lanes 8-15 call.
  const auto spec = spec_of(wp::ShuffleOp::bfly, 1, 32, 32, 0x0000ff00u);
  const auto s = wp::shuffle_section("shfl_xor", spec, std::nullopt);
  const auto& t = s.tables.at(0);
  ASSERT_EQ(t.rows.size(), 32u);
  const auto src = column(t, "source_lane"), model = column(t, "model"), var = column(t, "var");
  for (std::size_t l = 0; l < 32; ++l) {
    const bool calls = l >= 8 && l < 16;
    EXPECT_EQ(t.marks[l], calls ? RowMark::none : RowMark::inactive) << l;
    EXPECT_EQ(is_undefined(t.rows[l][model]), !calls) << l;
    EXPECT_EQ(is_undefined(t.rows[l][src]), !calls) << l;
    EXPECT_EQ(int_of(t.rows[l][var]), static_cast<std::int64_t>(l)) << l;  // the input is always known
    if (calls) {
      EXPECT_EQ(int_of(t.rows[l][model]), static_cast<std::int64_t>(l ^ 1u)) << l;
    }
  }
}

TEST(WarpSectionsShuffle, UndefinedSourceAndKeptOwnMarksFollowTheModel) {
  // Mask 0x000000f0 (lanes 4-7), width 8, shfl_up 2: lanes 4,5 read 2,3 (not calling) -> '?';
  // lanes 6,7 read 4,5. Width 8, shfl_down 2, full warp: lanes 6,7,...,30,31 kept -> 'k'.
  const auto up = wp::shuffle_section("shfl_up", spec_of(wp::ShuffleOp::up, 2, 8, 32, 0xf0u), std::nullopt);
  const auto& tu = up.tables.at(0);
  const auto model = column(tu, "model"), src = column(tu, "source_lane");
  EXPECT_EQ(tu.marks[4], RowMark::undefined_src);
  EXPECT_EQ(tu.marks[5], RowMark::undefined_src);
  EXPECT_TRUE(is_undefined(tu.rows[4][model]));
  EXPECT_EQ(int_of(tu.rows[4][src]), 2);  // the lane it tried to read is still shown
  EXPECT_EQ(tu.marks[6], RowMark::none);
  EXPECT_EQ(int_of(tu.rows[6][model]), 4);
  EXPECT_EQ(tu.marks[0], RowMark::inactive);

  const auto down = wp::shuffle_section("shfl_down", spec_of(wp::ShuffleOp::down, 2, 8, 32, 0xffffffffu), std::nullopt);
  const auto& td = down.tables.at(0);
  for (std::size_t l = 0; l < 32; ++l) {
    const bool kept = (l % 8) >= 6;
    EXPECT_EQ(td.marks[l], kept ? RowMark::kept_own : RowMark::none) << l;
    if (kept) {
      EXPECT_EQ(int_of(td.rows[l][column(td, "source_lane")]), static_cast<std::int64_t>(l)) << l;
    }
  }
}

// ---------------------------------------------------------------- shuffle sections, fake GPU

TEST(WarpSectionsShuffle, AgreeingGpuPassesWithPoisonInInactiveLanes) {
  // 16 threads, mask 0x0000ffff, width 32, shfl_down 2: lanes 14,15 read non-callers (any value
  // is fine there); lanes 16-31 are not rows, lanes beyond threads keep kPoison.
  const auto spec = spec_of(wp::ShuffleOp::down, 2, 32, 32, 0x0000ffffu);
  const auto gpu = faithful_gpu(spec);
  const auto s = wp::shuffle_section("shfl_down", spec, gpu);
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_TRUE(s.checks[0].passed) << s.checks[0].detail;
  EXPECT_NE(s.checks[0].name.find("shfl_down"), std::string::npos);
  const auto& t = s.tables.at(0);
  const auto g = column(t, "gpu");
  EXPECT_TRUE(is_undefined(t.rows[20][g]));  // poisoned: shown as undefined, not 0xABABABAB
  EXPECT_EQ(t.marks[20], RowMark::inactive);
  EXPECT_EQ(t.marks[14], RowMark::undefined_src);
  EXPECT_EQ(int_of(t.rows[14][g]), 12345);  // whatever the GPU returned is shown, not judged
  for (auto m : t.marks) EXPECT_NE(m, RowMark::mismatch);
  // Lanes 14 and 15 are not compared, and the count says so: 32 rows, 30 compared.
  EXPECT_EQ(s.checks[0].detail, "30 of 30 compared lanes agree");
}

TEST(WarpSectionsShuffle, OneDisagreeingLaneIsAMismatchNamedInTheCheck) {
  const auto spec = spec_of(wp::ShuffleOp::idx, 2, 8, 16, 0xffffffffu);
  auto gpu = faithful_gpu(spec);
  gpu[5] = 3;  // the model says 2
  const auto s = wp::shuffle_section("shfl", spec, gpu);
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_FALSE(s.checks[0].passed);
  EXPECT_NE(s.checks[0].detail.find("5"), std::string::npos) << s.checks[0].detail;
  EXPECT_EQ(s.checks[0].detail, "lanes 5 differ");
  const auto& t = s.tables.at(0);
  for (std::size_t l = 0; l < t.marks.size(); ++l)
    EXPECT_EQ(t.marks[l] == RowMark::mismatch, l == 5) << l;
  EXPECT_EQ(int_of(t.rows[5][column(t, "gpu")]), 3);
}

TEST(WarpSectionsShuffle, KeptOwnLaneThatDiffersIsAMismatch) {
  const auto spec = spec_of(wp::ShuffleOp::up, 2, 8, 16, 0xffffffffu);
  auto gpu = faithful_gpu(spec);
  gpu[9] = 7;  // lane 9 must keep its own 9 (segment lane 1 < delta 2)
  const auto s = wp::shuffle_section("shfl_up", spec, gpu);
  EXPECT_FALSE(s.checks.at(0).passed);
  EXPECT_EQ(s.tables.at(0).marks[9], RowMark::mismatch);
  EXPECT_NE(s.checks[0].detail.find("9"), std::string::npos);
}

TEST(WarpSectionsShuffle, GpuWritingIntoAnInactiveLaneFails) {
  const auto spec = spec_of(wp::ShuffleOp::bfly, 1, 32, 32, 0x0000ffffu);
  auto gpu = faithful_gpu(spec);
  gpu[17] = 16;  // lane 17 is not in the mask: it must still hold kPoison
  const auto s = wp::shuffle_section("shfl_xor", spec, gpu);
  EXPECT_FALSE(s.checks.at(0).passed);
  EXPECT_EQ(s.checks[0].detail, "lanes 17 differ");
  const auto& t = s.tables.at(0);
  EXPECT_EQ(t.marks[17], RowMark::mismatch);
  EXPECT_EQ(int_of(t.rows[17][column(t, "gpu")]), 16);  // the stray write is shown
}

TEST(WarpSectionsShuffle, ManyMismatchesAreListedShortly) {
  const auto spec = spec_of(wp::ShuffleOp::down, 1, 32, 32, 0xffffffffu);
  auto gpu = faithful_gpu(spec);
  for (auto& v : gpu) v += 1000;
  const auto s = wp::shuffle_section("shfl_down", spec, gpu);
  EXPECT_FALSE(s.checks.at(0).passed);
  EXPECT_NE(s.checks[0].detail.find("0, 1, 2"), std::string::npos) << s.checks[0].detail;
  EXPECT_NE(s.checks[0].detail.find("32 lanes"), std::string::npos) << s.checks[0].detail;
}

// ---------------------------------------------------------------- votes and reduce

namespace {
wp::VoteSpec vote_spec(std::uint32_t mask, int threads) {
  wp::VoteSpec v;
  v.warp.mask = mask;
  v.warp.threads = threads;
  for (int l = 0; l < 32; ++l) {
    v.predicate[static_cast<std::size_t>(l)] = l % 2 == 0 ? 1 : 0;
    v.key[static_cast<std::size_t>(l)] = l % 4;
    v.values[static_cast<std::size_t>(l)] = l;
  }
  return v;
}
const wp::Predicate kEven = *wp::parse_predicate("even");
const wp::Key kMod4 = *wp::parse_key("lane%4");
}  // namespace

TEST(WarpSectionsVotes, ModelBallotSectionShowsTheMaskAndInactiveLanes) {
  const auto spec = vote_spec(0x0000ff00u, 32);
  const auto s = wp::vote_section("ballot", spec, kEven, kMod4, std::nullopt);
  EXPECT_EQ(s.title, "__ballot_sync(0x0000ff00, even)");
  EXPECT_TRUE(s.checks.empty());
  ASSERT_FALSE(s.facts.empty());
  EXPECT_EQ(std::get<std::int64_t>(s.facts[0].value), 0x5500);
  EXPECT_EQ(s.facts[0].format, "hex32");
  const auto& t = s.tables.at(0);
  for (std::size_t l = 0; l < 32; ++l) EXPECT_EQ(t.marks[l], (l >= 8 && l < 16) ? RowMark::none : RowMark::inactive) << l;
  const auto bit = column(t, "bit");
  EXPECT_EQ(int_of(t.rows[10][bit]), 1);
  EXPECT_EQ(int_of(t.rows[11][bit]), 0);
  EXPECT_EQ(int_of(t.rows[2][bit]), 0);  // lane 2 is even but does not call
}

TEST(WarpSectionsVotes, AllAnyMatchCellsOfNonCallingLanesAreUndefined) {
  const auto spec = vote_spec(0x0000000fu, 8);
  for (const char* op : {"all", "any", "match_any", "match_all"}) {
    const auto s = wp::vote_section(op, spec, kEven, kMod4, std::nullopt);
    const auto& t = s.tables.at(0);
    ASSERT_EQ(t.rows.size(), 8u) << op;
    const auto model = column(t, "model");
    for (std::size_t l = 0; l < 8; ++l) {
      EXPECT_EQ(is_undefined(t.rows[l][model]), l >= 4) << op << " lane " << l;
      EXPECT_EQ(t.marks[l], l >= 4 ? RowMark::inactive : RowMark::none) << op << " lane " << l;
    }
  }
  // any(even) over lanes 0-3 = 1, all = 0, match_any(lane%4) of lane 2 = only itself = 0x4.
  EXPECT_EQ(int_of(wp::vote_section("any", spec, kEven, kMod4, std::nullopt).tables[0].rows[0][2]), 1);
  EXPECT_EQ(int_of(wp::vote_section("all", spec, kEven, kMod4, std::nullopt).tables[0].rows[0][2]), 0);
  EXPECT_EQ(int_of(wp::vote_section("match_any", spec, kEven, kMod4, std::nullopt).tables[0].rows[2][2]), 0x4);
}

TEST(WarpSectionsVotes, FakeGpuAgreesThenDisagreesInOneLane) {
  const auto spec = vote_spec(0xffffffffu, 16);
  wp::VoteLanes gpu = wp::model_votes(spec);
  for (const char* op : {"ballot", "all", "any", "activemask", "match_any", "match_all"}) {
    const auto s = wp::vote_section(op, spec, kEven, kMod4, gpu);
    ASSERT_EQ(s.checks.size(), 1u) << op;
    EXPECT_TRUE(s.checks[0].passed) << op << ": " << s.checks[0].detail;
    EXPECT_EQ(s.checks[0].detail, "16 of 16 compared lanes agree") << op;
  }
  wp::VoteLanes bad = gpu;
  bad.any[3] = 0;
  const auto s = wp::vote_section("any", spec, kEven, kMod4, bad);
  EXPECT_FALSE(s.checks.at(0).passed);
  EXPECT_EQ(s.checks[0].detail, "lanes 3 differ");
  EXPECT_EQ(s.tables.at(0).marks[3], RowMark::mismatch);
  // match_all: the mask agrees but pred does not.
  bad = gpu;
  bad.match_all_pred[7] = 1;
  const auto ma = wp::vote_section("match_all", spec, kEven, kMod4, bad);
  EXPECT_FALSE(ma.checks.at(0).passed);
  EXPECT_EQ(ma.tables.at(0).marks[7], RowMark::mismatch);
}

TEST(WarpSectionsVotes, ActivemaskMayBeASubsetContainingTheLane) {
  const auto spec = vote_spec(0x000000ffu, 32);
  wp::VoteLanes gpu = wp::model_votes(spec);
  for (int l = 0; l < 8; ++l) gpu.activemask[static_cast<std::size_t>(l)] = 1u << l;  // each lane alone: allowed
  EXPECT_TRUE(wp::vote_section("activemask", spec, kEven, kMod4, gpu).checks.at(0).passed);
  gpu.activemask[2] = 0x1u;  // lane 2 missing from its own mask: wrong
  gpu.activemask[3] = 0x108u;  // lane 8 never took the branch: wrong
  const auto s = wp::vote_section("activemask", spec, kEven, kMod4, gpu);
  EXPECT_FALSE(s.checks.at(0).passed);
  EXPECT_EQ(s.checks[0].detail, "lanes 2, 3 differ");
}

TEST(WarpSectionsReduce, ModelAndFakeGpu) {
  const auto spec = vote_spec(0x0000ff00u, 32);
  const auto model = wp::reduce_section("reduce_add", spec, std::nullopt);
  EXPECT_EQ(model.title, "__reduce_add_sync(0x0000ff00, value)");
  const auto& t = model.tables.at(0);
  EXPECT_EQ(int_of(t.rows[8][column(t, "model")]), 92);  // 8 + 9 + ... + 15
  EXPECT_TRUE(is_undefined(t.rows[0][column(t, "model")]));
  EXPECT_EQ(t.marks[0], RowMark::inactive);

  wp::ReduceLanes gpu = wp::model_reduce(spec);
  EXPECT_TRUE(wp::reduce_section("reduce_max", spec, gpu).checks.at(0).passed);
  gpu.max[12] = 14;
  const auto s = wp::reduce_section("reduce_max", spec, gpu);
  EXPECT_FALSE(s.checks.at(0).passed);
  EXPECT_EQ(s.checks[0].detail, "lanes 12 differ");
  EXPECT_EQ(s.tables.at(0).marks[12], RowMark::mismatch);
  EXPECT_TRUE(wp::reduce_section("reduce_min", spec, gpu).checks.at(0).passed);  // only max was wrong
}

// ---------------------------------------------------------------- setup, syncwarp, traces, cost

TEST(WarpSectionsSetup, RowsPerThreadAndInactiveMarks) {
  wp::Inputs in;
  in.warp.threads = 16;
  in.warp.mask = 0x000000ffu;
  in.width = 8;
  in.values = tid_values();
  const auto s = wp::setup_section(in, false);
  const auto& t = s.tables.at(0);
  ASSERT_EQ(t.rows.size(), 16u);
  EXPECT_EQ(int_of(t.rows[13][column(t, "segment_lane")]), 5);
  EXPECT_EQ(t.marks[7], RowMark::none);
  EXPECT_EQ(t.marks[8], RowMark::inactive);
}

TEST(WarpSectionsSyncwarp, ModelRunShowsTheSumsAndNoChecks) {
  const std::vector<wp::SyncwarpOutcome> outcomes = {{wp::SyncwarpVariant::guarded, std::nullopt},
                                                     {wp::SyncwarpVariant::registers, std::nullopt},
                                                     {wp::SyncwarpVariant::racy, std::nullopt}};
  const auto s = wp::syncwarp_section(tid_values(), outcomes, false);
  EXPECT_TRUE(s.checks.empty());
  auto fact = [&](const std::string& name) -> std::int64_t {
    for (const auto& f : s.facts)
      if (f.name == name) return std::get<std::int64_t>(f.value);
    ADD_FAILURE() << "no fact " << name;
    return -1;
  };
  EXPECT_EQ(fact("right sum"), 496);
  EXPECT_EQ(fact("guarded: s[0] (model)"), 496);
  EXPECT_EQ(fact("registers: s[0] (model)"), 496);
  EXPECT_EQ(fact("racy: s[0] if the warp runs in lockstep (model)"), 496);
  EXPECT_NE(fact("racy: s[0] if lanes run one at a time, 31 down to 0 (model)"), 496);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("needs a GPU"), std::string::npos);
  EXPECT_EQ(s.tables.at(0).rows.size(), 32u);
}

TEST(WarpSectionsSyncwarp, FakeGpuWrongSumFailsBothChecks) {
  auto wrong = wp::model_syncwarp(tid_values(), wp::SyncwarpVariant::guarded);
  wrong[0] = 480;
  const auto s = wp::syncwarp_section(tid_values(), {{wp::SyncwarpVariant::guarded, wrong}}, true);
  ASSERT_EQ(s.checks.size(), 2u);
  EXPECT_FALSE(s.checks[0].passed);
  EXPECT_EQ(s.checks[0].detail, "lanes 0 differ");
  EXPECT_FALSE(s.checks[1].passed);
  EXPECT_NE(s.checks[1].detail.find("480"), std::string::npos);
  const auto right = wp::model_syncwarp(tid_values(), wp::SyncwarpVariant::registers);
  const auto ok = wp::syncwarp_section(tid_values(), {{wp::SyncwarpVariant::registers, right}}, true);
  ASSERT_EQ(ok.checks.size(), 2u);
  EXPECT_TRUE(ok.checks[0].passed && ok.checks[1].passed);
}

TEST(WarpSectionsSyncwarp, RacyOnTheGpuIsANoteNotACheck) {
  auto got = wp::model_syncwarp_racy_descending(tid_values());
  const auto s = wp::syncwarp_section(tid_values(), {{wp::SyncwarpVariant::racy, got}}, true);
  EXPECT_TRUE(s.checks.empty());  // a race has no single right answer
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("instead of 496"), std::string::npos) << s.notes[0];
}

TEST(WarpSectionsTrace, ModelChecksPassAndFakeGpuMismatchIsMarked) {
  const auto s = wp::warp_reduce_section(tid_values(), std::nullopt, std::nullopt);
  ASSERT_EQ(s.checks.size(), 2u);  // sum in lane 0 / in every lane: true of the model too
  EXPECT_TRUE(s.checks[0].passed);
  EXPECT_TRUE(s.checks[1].passed);
  EXPECT_EQ(s.checks[1].detail, "32 of 32 lanes hold 496");

  auto down = wp::model_reduction_trace(tid_values(), wp::ShuffleOp::down);
  const auto bfly = wp::model_reduction_trace(tid_values(), wp::ShuffleOp::bfly);
  down[2][16] = 0;  // one cell wrong in lane 16
  const auto g = wp::warp_reduce_section(tid_values(), down, bfly);
  ASSERT_EQ(g.checks.size(), 4u);
  EXPECT_FALSE(g.checks[0].passed);
  EXPECT_EQ(g.checks[0].detail, "lanes 16 differ");
  EXPECT_TRUE(g.checks[1].passed);
  EXPECT_EQ(g.tables.at(0).marks[16], RowMark::mismatch);
  EXPECT_EQ(g.tables.at(1).marks[16], RowMark::none);
}

TEST(WarpSectionsCost, ModelRunNeedsAGpu) {
  const std::vector<wp::CostRow> rows = {{"__shfl_xor_sync", "one shuffle", {}, false}};
  const auto s = wp::cost_section(rows, false, 1024);
  ASSERT_EQ(s.measurements.size(), 1u);
  EXPECT_TRUE(s.measurements[0].needs_gpu);
  EXPECT_TRUE(s.measurements[0].samples.empty());
  EXPECT_EQ(s.measurements[0].unit, "cycles");
}
