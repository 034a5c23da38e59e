// The parts on the reference model, built as the run loop builds them: one Run from options and
// a model context, each part's section found by its ids.
#include <gtest/gtest.h>

#include "core/parts/attach.hpp"
#include "techniques/warp_primitives/lesson.hpp"

namespace wp = cudasync::warp_primitives;
namespace report = cudasync::report;
using report::RowMark;

namespace {

const cudasync::RunContext& model_context() {
  static const cudasync::RunContext ctx;  // gpu = false: the reference model
  return ctx;
}

std::int64_t int_of(const report::Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  ADD_FAILURE() << "not an integer cell";
  return -1;
}

const report::Fact& fact(const report::Section& s, const std::string& id) {
  for (const auto& f : s.facts)
    if (f.id == id) return f;
  throw std::runtime_error("no fact " + id);
}

}  // namespace

TEST(WarpPartsShuffle, ModelRunHasNoChecksAndOneRowPerThread) {
  wp::Options o;
  o.threads = 16;
  o.width = 8;
  wp::Run run(o, model_context(), {});
  const auto s = wp::shuffle_part(run, wp::ShuffleOp::down);
  EXPECT_EQ(s.id, "shfl-down");
  EXPECT_EQ(s.title, "__shfl_down_sync(0xffffffff, v, 1, 8)") << "the default delta is the book's: 1";
  EXPECT_TRUE(s.checks.empty()) << "the model is not checked against itself";
  const auto& t = s.tables.at(0);
  EXPECT_EQ(t.id, "lanes");
  ASSERT_EQ(t.rows.size(), 16u);
  EXPECT_EQ(int_of(t.cell(5, "model")), 6);  // Fan's warp.cu: lane 5 of width 8, delta 1, receives lane 6's value
  EXPECT_EQ(t.rows[6].mark, RowMark::none);
  EXPECT_EQ(t.rows[7].mark, RowMark::kept_own);
}

TEST(WarpPartsShuffle, InactiveLanesHaveUndefinedCellsAndTheInactiveMark) {
  wp::Options o;
  o.mask = "0x0000ff00";
  wp::Run run(o, model_context(), {});
  const auto s = wp::shuffle_part(run, wp::ShuffleOp::bfly);
  const auto& t = s.tables.at(0);
  EXPECT_EQ(t.rows[0].mark, RowMark::inactive);
  EXPECT_TRUE(std::holds_alternative<report::Undefined>(t.cell(0, "model")));
  EXPECT_TRUE(std::holds_alternative<report::Undefined>(t.cell(0, "source-lane")));
  EXPECT_EQ(int_of(t.cell(8, "model")), 9);  // lane 8 ^ 1
}

TEST(WarpPartsVotes, BallotShowsTheMaskAsAFactInHexAndBinary) {
  wp::Options o;
  o.threads = 16;
  wp::Run run(o, model_context(), {});
  const auto s = wp::vote_part(run, "ballot");
  EXPECT_EQ(std::get<std::int64_t>(fact(s, "result-model").value), 0x5555);  // even lanes of 16
  EXPECT_EQ(fact(s, "result-model").format, report::Format::hex32);
  EXPECT_EQ(fact(s, "result-model-bits").format, report::Format::bin32);
}

TEST(WarpPartsVotes, MatchAllOfEightLanesWithKey7IsTheirMask) {
  wp::Options o;
  o.threads = 8;
  o.key = "7";
  wp::Run run(o, model_context(), {});
  const auto s = wp::vote_part(run, "match-all");
  EXPECT_EQ(std::get<std::int64_t>(fact(s, "result-model").value), 0xff);  // the calling lanes, all equal
}

TEST(WarpPartsReduce, SumOfTheCallingLanes) {
  wp::Options o;
  o.mask = "0x0000ff00";
  wp::Run run(o, model_context(), {});
  const auto s = wp::reduce_part(run, "reduce-add");
  EXPECT_EQ(s.title, "__reduce_add_sync(0x0000ff00, value)");
  const auto& t = s.tables.at(0);
  EXPECT_EQ(int_of(t.cell(8, "model")), 92);  // 8 + 9 + ... + 15
  EXPECT_EQ(t.rows[0].mark, RowMark::inactive);
}

TEST(WarpPartsSetup, RowsPerThreadAndInactiveMarks) {
  wp::Options o;
  o.threads = 16;
  o.mask = "0x000000ff";
  o.width = 8;
  wp::Run run(o, model_context(), {});
  report::Section s("setup", "setup");
  wp::lesson().setup(run, s);
  const auto& t = s.tables.at(0);
  ASSERT_EQ(t.rows.size(), 16u);
  EXPECT_EQ(int_of(t.cell(13, "segment-lane")), 5);
  EXPECT_EQ(t.rows[7].mark, RowMark::none);
  EXPECT_EQ(t.rows[8].mark, RowMark::inactive);
}

TEST(WarpPartsSyncwarp, ModelRunShowsTheSumsAndNoChecks) {
  wp::Options o;
  wp::Run run(o, model_context(), {});
  const auto s = wp::syncwarp_part(run);
  EXPECT_TRUE(s.checks.empty());
  const auto value = [&](const std::string& id) { return std::get<std::int64_t>(fact(s, id).value); };
  EXPECT_EQ(value("right-sum"), 496);
  EXPECT_EQ(value("guarded-s0-model"), 496);
  EXPECT_EQ(value("registers-s0-model"), 496);
  EXPECT_EQ(value("racy-s0-lockstep"), 496);
  EXPECT_NE(value("racy-s0-descending"), 496);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("needs a GPU"), std::string::npos);
  EXPECT_EQ(s.tables.at(0).rows.size(), 32u);
}

TEST(WarpPartsWarpReduce, TheModelsSumChecksPass) {
  wp::Options o;
  wp::Run run(o, model_context(), {});
  const auto s = wp::warp_reduce_part(run);
  ASSERT_EQ(s.checks.size(), 2u);  // sum in lane 0 / in every lane: true of the model too
  EXPECT_EQ(s.checks[0].id, "shfl-down-sum-in-lane-0");
  EXPECT_TRUE(s.checks[0].passed);
  EXPECT_EQ(s.checks[1].id, "shfl-xor-sum-in-every-lane");
  EXPECT_EQ(s.checks[1].detail, "32 of 32 lanes hold 496");
}

TEST(WarpPartsCost, ModelRunNeedsAGpu) {
  wp::Options o;
  wp::Run run(o, model_context(), {});
  const auto s = wp::cost_part(run);
  ASSERT_EQ(s.measurements.size(), 8u);
  for (const auto& m : s.measurements) {
    EXPECT_TRUE(m.needs_gpu) << m.id;
    EXPECT_TRUE(m.samples.empty()) << m.id;
    EXPECT_EQ(m.format, report::Format::cycles);
  }
}

TEST(WarpPartsTable, IdsAreKebabCaseAndEveryPartDeclaresWhatItReads) {
  for (const auto& p : cudasync::parts::summaries(wp::lesson())) {  // the catalog's title and summary
    EXPECT_TRUE(report::is_id(p.id)) << p.id;
    EXPECT_FALSE(p.summary.empty()) << p.id;
  }
}
