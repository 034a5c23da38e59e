// The one comparison of a part: rows are noted as they are drawn, a GPU run ends with one check.
#include "core/report/observation.hpp"

#include <gtest/gtest.h>

namespace cudasync::report {
namespace {

TEST(Observation, OnTheModelThereIsNothingToCompare) {
  const Observation<int> o{7, std::nullopt};
  EXPECT_FALSE(o.measured());
  EXPECT_TRUE(o.agrees());
  EXPECT_EQ(o.shown(), 7);
}

TEST(Observation, TheGpusValueIsShownAndComparedWithTheModels) {
  const Observation<int> same{7, 7};
  const Observation<int> other{7, 9};
  EXPECT_TRUE(same.agrees());
  EXPECT_FALSE(other.agrees());
  EXPECT_EQ(other.shown(), 9);
}

TEST(Agreement, AModelRunKeepsEveryMarkAndAddsNoCheck) {
  Agreement a(false);
  EXPECT_EQ(a.note(3, false, RowMark::inactive), RowMark::inactive);
  EXPECT_EQ(a.note(4, Observation<int>{1, std::nullopt}), RowMark::none);
  EXPECT_EQ(a.compared(), 0u);
  Section s("shfl", "shfl");
  a.check(s, "gpu-agrees", "shfl", "no detail");
  EXPECT_TRUE(s.checks.empty());
}

TEST(Agreement, AGpuRunMarksTheRowsThatDifferAndNamesThemInOneCheck) {
  Agreement a(true);
  EXPECT_EQ(a.note(0, true, RowMark::kept_own), RowMark::kept_own);
  EXPECT_EQ(a.note(5, false, RowMark::kept_own), RowMark::mismatch);
  EXPECT_EQ(a.note(9, Observation<int>{1, 2}), RowMark::mismatch);
  EXPECT_EQ(a.compared(), 3u);
  EXPECT_FALSE(a.passed());
  EXPECT_EQ(a.differing_list(), "5, 9");
  Section s("shfl", "shfl");
  a.check(s, "gpu-agrees", "shfl", "lanes " + a.differing_list() + " differ");
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_EQ(s.checks[0].id, "gpu-agrees");
  EXPECT_FALSE(s.checks[0].passed);
  EXPECT_EQ(s.checks[0].detail, "lanes 5, 9 differ");
}

TEST(Agreement, AGpuRunWhereEveryRowAgreesPasses) {
  Agreement a(true);
  for (int lane = 0; lane < 32; ++lane) a.note(lane, true);
  EXPECT_TRUE(a.passed());
  EXPECT_EQ(a.compared(), 32u);
  Section s("x", "x");
  a.check(s, "gpu-agrees", "x", "32 lanes agree");
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_TRUE(s.checks[0].passed);
}

}  // namespace
}  // namespace cudasync::report
