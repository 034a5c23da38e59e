// The shared number and list formats, and the one median every lesson and Measurement use.
#include "core/report/report.hpp"
#include "core/report/text_format.hpp"

#include <gtest/gtest.h>

namespace cudasync::report {
namespace {

TEST(TextFormat, FixedRoundsToTheDigitsAsked) {
  EXPECT_EQ(fixed(0.6904, 3), "0.690");
  EXPECT_EQ(fixed(1061.46, 1), "1061.5");
  EXPECT_EQ(fixed(-2.5, 0), "-2");  // round half to even, as printf does
}

TEST(TextFormat, PrintfNumberUsesTheConversionGiven) {
  EXPECT_EQ(printf_number("%.3e", 12345.0), "1.234e+04");
  EXPECT_EQ(printf_number("%.17g", 0.1), "0.10000000000000001");
}

TEST(TextFormat, GroupedSeparatesThousands) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1,000");
  EXPECT_EQ(grouped(1081344), "1,081,344");
}

TEST(TextFormat, ListOfSaysHowManyWhenCut) {
  EXPECT_EQ(list_of({}), "");
  EXPECT_EQ(list_of({3, 7}), "3, 7");
  EXPECT_EQ(list_of({1, 2, 3, 4}, 2), "1, 2, ... (4 in all)");
  EXPECT_EQ(list_of({1, 2}, 2), "1, 2");
}

TEST(ReportStatistics, MedianOfOddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median({}), 0.0);
  EXPECT_DOUBLE_EQ(median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  Measurement m = measured("handoff", "ns", {9.0, 1.0, 5.0, 7.0}, true, "");
  EXPECT_DOUBLE_EQ(m.median(), 6.0);
  EXPECT_FALSE(m.needs_gpu);
}

TEST(ReportStatistics, AMeasurementWithoutAGpuOrSamplesNeedsOne) {
  EXPECT_TRUE(measured("handoff", "ns", {}, false, "").needs_gpu);
  EXPECT_FALSE(measured("handoff", "ns", {}, true, "").needs_gpu);  // a GPU run that took none: says 0 samples
}

TEST(ReportStatistics, ModelAgreementNamesWhatWasCompared) {
  const Check c = model_agreement("lane values", false, "lane 3 differs");
  EXPECT_EQ(c.name, "GPU agrees with the reference model: lane values");
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.detail, "lane 3 differs");
}

}  // namespace
}  // namespace cudasync::report
