// The cost model (core/cost): a prediction is the sum of its terms, NaN until every primitive is
// measured, and a comparison beside a sweep. Each lesson's formulas are tested with the lesson
// (lock, lockfree-barrier, cg-reduce).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/cost/compare.hpp"
#include "core/cost/primitive_keys.hpp"

namespace cudasync::cost {
namespace {

TEST(CostModel, APredictionIsTheSumOfItsTermsAndNaNUntilEveryPrimitiveIsMeasured) {
  Prediction p;
  p.add("sync", "sync", 40, "2 x sync(256)").add("fence", "fence", 300, "fence-rel(132)");
  EXPECT_DOUBLE_EQ(p.ns(), 340);
  EXPECT_EQ(p.formula(), "sync + fence");
  p.add("poll", "poll", NAN, "poll-relaxed(132)");
  EXPECT_TRUE(std::isnan(p.ns()));
  EXPECT_TRUE(std::isnan(Prediction{}.ns()));
  Primitives none;
  EXPECT_TRUE(std::isnan(none.ns({"rt-atomic", ""})));
  none.set({"rt-atomic", ""}, {150, 170, 160});
  EXPECT_DOUBLE_EQ(none.ns({"rt-atomic", ""}), 160);  // the median
  none.skip({"cluster-barrier", "132c4"}, "needs sm_90");
  EXPECT_EQ(none.skipped({"cluster-barrier", "132c4"}), "needs sm_90");
  EXPECT_TRUE(std::isnan(none.ns({"cluster-barrier", "132c4"})));
  EXPECT_TRUE(std::isnan(nan_max(NAN, 1.0)) && std::isnan(nan_max(1.0, NAN)));
  EXPECT_DOUBLE_EQ(excess(-5), 0);
}

TEST(CostModel, TheComparisonCountsCellsWithinTheToleranceAndShowsTheStructureWithoutAGpu) {
  std::vector<Cell> cells(3);
  for (Cell& c : cells) c.predicted.add("fence", "fence", 100, "fence-sc(1)");
  cells[0].row = "a", cells[0].measured = 119.0;
  cells[1].row = "b", cells[1].measured = 79.0;
  cells[2].row = "c";  // not measured, and a primitive missing: not compared
  cells[2].predicted.add("poll", "poll", NAN, "poll-relaxed(132)");
  const Agreement a = agreement(cells, kTolerance);
  EXPECT_EQ(a.compared, 2);
  EXPECT_EQ(a.within, 1);
  ASSERT_EQ(a.outside.size(), 1u);
  EXPECT_NE(a.outside[0].find("b @"), std::string::npos);
  EXPECT_TRUE(within(1.2, 0.2));
  EXPECT_FALSE(within(0.79, 0.2));

  report::Section s("bench", "bench");
  add_model(s, cells, {"ns per barrier", report::Format::ns, kTolerance}, {prim::rt_atomic()}, Primitives{}, false);
  std::vector<std::string> tables;
  for (const auto& t : s.tables) tables.push_back(t.id);
  // One terms table per row (each fits 80 columns).
  EXPECT_EQ(tables, (std::vector<std::string>{"model-formulas", "model", "terms-a", "terms-b", "terms-c", "primitives"}));
  const report::Table& model = s.tables[1];
  EXPECT_EQ(model.rows.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(model.cell(2, "predicted")));  // no primitive measured
  EXPECT_TRUE(std::holds_alternative<double>(model.cell(0, "measured")));
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(s.tables.back().cell(0, "ns")));
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(s.tables[4].cell(0, "poll")));
}

}  // namespace
}  // namespace cudasync::cost
