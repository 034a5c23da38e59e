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

TEST(TextFormat, RangesTextFoldsRunsInTheOrderGiven) {
  EXPECT_EQ(ranges_text({}), "");
  EXPECT_EQ(ranges_text({4}), "4");
  EXPECT_EQ(ranges_text({0, 1, 2, 5, 7, 8}), "0-2, 5, 7-8");
  EXPECT_EQ(ranges_text({5, 1, 2}), "5, 1-2") << "not sorted: a caller that wants that sorts";
}

TEST(FormatValue, EachFormatReadsAsAPersonExpects) {
  using I = std::int64_t;
  EXPECT_EQ(format_value(Undefined{}, Format::hex32), "-");
  EXPECT_EQ(format_value(NeedsGpu{}, Format::ns, true), "needs a GPU");
  EXPECT_EQ(format_value(true, Format::plain), "yes");
  EXPECT_EQ(format_value(std::string("text"), Format::hex32), "text");
  EXPECT_EQ(format_value(I{42}, Format::plain), "42");
  EXPECT_EQ(format_value(I{-7}, Format::plain), "-7");
  EXPECT_EQ(format_value(2.5, Format::plain), "2.500");
  EXPECT_EQ(format_value(1234567.0, Format::plain), "1.235e+06");
  EXPECT_EQ(format_value(I{1081344}, Format::count), "1,081,344");
  EXPECT_EQ(format_value(I{-1081344}, Format::count), "-1,081,344");
  EXPECT_EQ(format_value(I{0xfffe}, Format::hex32), "0x0000fffe");
  EXPECT_EQ(format_value(I{-1}, Format::hex32), "0xffffffff");  // the low 32 bits
  EXPECT_EQ(format_value(I{0xfffe}, Format::bin32), "00000000_00000000_11111111_11111110");
  EXPECT_EQ(format_value(I{0x80000001u}, Format::bin32), "10000000_00000000_00000000_00000001");
  EXPECT_EQ(format_value(331.25, Format::ns), "331.2");
  EXPECT_EQ(format_value(331.25, Format::ns, true), "331.2 ns");
  EXPECT_EQ(format_value(I{50}, Format::ms, true), "50 ms");
  EXPECT_EQ(format_value(50.0123, Format::ms), "50.012");
  EXPECT_EQ(format_value(3007.34, Format::gbps, true), "3007.3 GB/s");
  EXPECT_EQ(format_value(0.92549, Format::ratio, true), "0.925 x");
  EXPECT_EQ(format_value(0.9961, Format::percent), "99.6%");
  EXPECT_EQ(format_value(0.0001, Format::percent), "0.01%");
  EXPECT_EQ(format_value(I{4} << 30, Format::bytes), "4.0 GiB");
  EXPECT_EQ(format_value(1.1920929e-07, Format::error), "1.192e-07");
  EXPECT_EQ(format_value(0.1, Format::exact), "0.10000000000000001");
  EXPECT_EQ(format_value(I{9007199254740993}, Format::exact), "9007199254740993");  // every digit of an integer
}

TEST(ReportIds, KebabCaseOnly) {
  EXPECT_TRUE(is_id("shfl-down"));
  EXPECT_TRUE(is_id("2-20"));
  EXPECT_FALSE(is_id("shfl_down"));
  EXPECT_FALSE(is_id("Shfl"));
  EXPECT_FALSE(is_id("-a"));
  EXPECT_FALSE(is_id("a--b"));
  EXPECT_FALSE(is_id(""));
}

TEST(ReportIds, ValidateIdsNamesADuplicate) {
  Report r;
  r.command = "t";
  Section s("part", "part");
  s.check("gpu-agrees", "one", true);
  s.check("gpu-agrees", "two", true);
  r.sections.push_back(s);
  try {
    validate_ids(r);
    FAIL() << "a duplicate check id must be refused";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'gpu-agrees' is not unique"), std::string::npos) << e.what();
  }
  r.sections[0].checks.pop_back();
  EXPECT_NO_THROW(validate_ids(r));
  Table t("lanes", "lanes");
  t.column("mark", "mark");
  r.sections[0].add(t);
  EXPECT_THROW(validate_ids(r), std::logic_error);  // "mark" is each JSON row's own key
}

TEST(ReportTable, RowsByColumnKey) {
  Table t("lanes", "lanes");
  t.column("lane", "lane").column("value", "value");
  t.row({{"value", 7}, {"lane", 5}});
  EXPECT_EQ(std::get<std::int64_t>(t.cell(0, "lane")), 5);
  EXPECT_EQ(std::get<std::int64_t>(t.cell(0, "value")), 7);
  t.row({{"lane", 6}});
  EXPECT_TRUE(std::holds_alternative<Undefined>(t.cell(1, "value")));
  EXPECT_THROW(t.row({{"lnae", 1}}), std::logic_error);
}

TEST(ReportStatistics, MedianOfOddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median({}), 0.0);
  EXPECT_DOUBLE_EQ(median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  Measurement m = measured("handoff", "handoff", Format::ns, {9.0, 1.0, 5.0, 7.0}, true);
  EXPECT_DOUBLE_EQ(m.median(), 6.0);
  EXPECT_FALSE(m.needs_gpu);
}

TEST(ReportStatistics, AMeasurementWithoutAGpuOrSamplesNeedsOne) {
  EXPECT_TRUE(measured("handoff", "handoff", Format::ns, {}, false).needs_gpu);
  EXPECT_FALSE(measured("handoff", "handoff", Format::ns, {}, true).needs_gpu);  // a GPU run that took none: 0 samples
}

TEST(ReportStatistics, ModelAgreementNamesWhatWasCompared) {
  const Check c = model_agreement("gpu-agrees", "lane values", false, "lane 3 differs");
  EXPECT_EQ(c.id, "gpu-agrees");
  EXPECT_EQ(c.title, "GPU agrees with the reference model: lane values");
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.detail, "lane 3 differs");
}

}  // namespace
}  // namespace cudasync::report
