// render_text on small hand-made Reports: folding to the width, cells, marks, colour,
// measurements and the checks summary.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/report/text_format.hpp"
#include "core/report/text_renderer.hpp"
#include "support/cli_expect.hpp"

namespace report = cudasync::report;
using report::RowMark;
using I = std::int64_t;

namespace {

std::string render(const report::Report& r, int width, bool color) {
  report::TextStyle style;
  style.width = width;
  style.color = color;
  std::ostringstream out;
  report::render_text(r, style, out);
  return out.str();
}

using cudasync::test::lines_of;

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

bool has_escape(const std::string& s) { return s.find('\x1b') != std::string::npos; }

using cudasync::test::occurrences;

// One section with a 32-lane table across the page: lane, a value of three digits, and an
// undefined cell in lanes 24-31 (marked inactive).
report::Report lane_report(bool with_marks) {
  report::Report r;
  r.command = "test";
  r.title = "test report";
  report::Section s("s", "lanes");
  report::Table t("t", "per lane");
  t.lanes_across = true;
  t.column("lane", "lane").column("value", "value");
  for (int l = 0; l < 32; ++l) {
    const bool inactive = with_marks && l >= 24;
    t.row({{"lane", l}, {"value", inactive ? report::Value{report::Undefined{}} : report::Value{100 + l}}},
          inactive ? RowMark::inactive : (with_marks && l == 3 ? RowMark::kept_own : RowMark::none));
  }
  s.add(std::move(t));
  r.sections.push_back(std::move(s));
  return r;
}


TEST(TextRenderer, ChineseParagraphsBreakBetweenCharactersNotBeforeClosingPunctuation) {
  report::Report r;
  r.title = "t";
  report::Section s("zh", "zh");
  std::string text;
  for (int i = 0; i < 12; ++i) text += "加法的顺序决定结果，";
  text += "warp 和 lane 一起。";
  s.paragraph(text);
  r.sections.push_back(s);
  const auto lines = lines_of(render(r, 40, false));
  std::string joined;
  int paragraph_lines = 0;
  for (const auto& l : lines) {
    EXPECT_LE(cudasync::test::display_columns(l), 40u) << l;
    if (l.rfind("  ", 0) != 0) continue;
    ++paragraph_lines;
    EXPECT_NE(l.substr(2, 3), "，") << "a line starts with a closing comma";
    joined += l.substr(2);
  }
  EXPECT_GT(paragraph_lines, 3);
  EXPECT_NE(joined.find("warp 和 lane"), std::string::npos) << "spaces between words are kept";
}

TEST(TextRenderer, LongLegendLinesWrapAndEveryLegendLineIsIndentedUnderItsTable) {
  report::Report r;
  r.title = "t";
  report::Section s("s", "s");
  report::Table t("t", "t");
  t.column("k", "k").row({{"k", I{1}}});
  t.legend.push_back("   indented: short");
  t.legend.push_back("a legend line long enough that it cannot fit in the forty columns");
  s.add(t);
  r.sections.push_back(s);
  const std::string out = render(r, 40, false);
  for (const auto& l : lines_of(out)) EXPECT_LE(l.size(), 40u) << l;
  EXPECT_NE(out.find("\n    indented: short\n"), std::string::npos) << out;
  EXPECT_NE(out.find("    a legend line long enough"), std::string::npos) << out;
}

}  // namespace

TEST(TextRenderer, LanesAcrossFitsTheWidthAndShowsEveryLaneOnce) {
  for (int width : {80, 120}) {
    for (bool marks : {false, true}) {
      const std::string text = render(lane_report(marks), width, false);
      std::vector<int> seen(32, 0);
      for (const auto& line : lines_of(text)) {
        EXPECT_LE(line.size(), static_cast<std::size_t>(width)) << "width " << width << ": '" << line << "'";
        const auto w = words_of(line);
        if (!w.empty() && w[0] == "lane")
          for (std::size_t i = 1; i < w.size(); ++i) ++seen[static_cast<std::size_t>(std::stoi(w[i]))];
      }
      for (int l = 0; l < 32; ++l) EXPECT_EQ(seen[static_cast<std::size_t>(l)], 1) << "lane " << l << " width " << width;
    }
  }
}

TEST(TextRenderer, NarrowWidthFoldsAtPowersOfTwo) {
  // At width 80 each cell is 4 wide ("131" + a space): 16 lanes per line, so lanes 0-15 then 16-31.
  const std::string text = render(lane_report(false), 80, false);
  std::vector<std::vector<std::string>> lane_lines;
  for (const auto& line : lines_of(text)) {
    const auto w = words_of(line);
    if (!w.empty() && w[0] == "lane") lane_lines.push_back(w);
  }
  ASSERT_EQ(lane_lines.size(), 2u);
  EXPECT_EQ(lane_lines[0][1], "0");
  EXPECT_EQ(lane_lines[0].back(), "15");
  EXPECT_EQ(lane_lines[1][1], "16");
  // At 120 the 32 lanes (4 columns each = 128) still do not fit; 16 per line again.
  std::size_t lines120 = 0;
  for (const auto& line : lines_of(render(lane_report(false), 120, false)))
    if (!words_of(line).empty() && words_of(line)[0] == "lane") ++lines120;
  EXPECT_EQ(lines120, 2u);
  // At 200 everything fits on one line.
  std::size_t lines200 = 0;
  for (const auto& line : lines_of(render(lane_report(false), 200, false)))
    if (!words_of(line).empty() && words_of(line)[0] == "lane") ++lines200;
  EXPECT_EQ(lines200, 1u);
}

TEST(TextRenderer, UndefinedCellsPrintAsDash) {
  const std::string text = render(lane_report(true), 200, false);
  for (const auto& line : lines_of(text)) {
    const auto w = words_of(line);
    if (w.empty() || w[0] != "value") continue;
    ASSERT_EQ(w.size(), 33u);
    EXPECT_EQ(w[1], "100");
    for (std::size_t i = 25; i <= 32; ++i) EXPECT_EQ(w[i], "-") << "lane " << i - 1;
  }
}

TEST(TextRenderer, FactsUseTheirFormat) {
  report::Report r;
  r.title = "t";
  report::Section s("facts", "facts");
  s.fact("ballot", "ballot", I{0xfffe}, report::Format::hex32);
  s.fact("ballot-bits", "ballot, binary", I{0x1}, report::Format::bin32, "lane 31 on the left");
  s.fact("stale", "stale reads", I{1081344}, report::Format::count);
  s.fact("cost", "fence", 331.25, report::Format::ns);
  s.fact("vs", "own x grid.sync", 0.9254, report::Format::ratio);
  s.fact("share", "stale share", 0.9961, report::Format::percent);
  s.fact("gpu-only", "on the GPU", report::NeedsGpu{});
  r.sections.push_back(s);
  const std::string text = render(r, 80, false);
  EXPECT_NE(text.find("0x0000fffe"), std::string::npos) << text;
  EXPECT_NE(text.find("00000000_00000000_00000000_00000001   (lane 31 on the left)"), std::string::npos) << text;
  // Numbers are formatted by the renderer, with their unit, never by the lesson.
  EXPECT_NE(text.find("stale reads      1,081,344"), std::string::npos) << text;
  EXPECT_NE(text.find("331.2 ns"), std::string::npos) << text;
  EXPECT_NE(text.find("0.925 x"), std::string::npos) << text;
  EXPECT_NE(text.find("99.6%"), std::string::npos) << text;
  EXPECT_NE(text.find("on the GPU       needs a GPU"), std::string::npos) << text;
}

TEST(TextRenderer, MarkRowAndLegendOnlyWhenMarksExist) {
  const std::string plain = render(lane_report(false), 200, false);
  EXPECT_EQ(plain.find("mark"), std::string::npos);
  EXPECT_EQ(plain.find("did not take part"), std::string::npos);

  const std::string marked = render(lane_report(true), 200, false);
  std::string mark_line;
  for (const auto& line : lines_of(marked))
    if (!words_of(line).empty() && words_of(line)[0] == "mark") mark_line = line;
  ASSERT_FALSE(mark_line.empty()) << marked;
  const auto m = words_of(mark_line);
  ASSERT_EQ(m.size(), 33u);
  EXPECT_EQ(m[1], ".");
  EXPECT_EQ(m[4], "k");   // lane 3 kept its own value
  EXPECT_EQ(m[25], "x");  // lane 24 inactive
  // One legend line per kind of mark present, once each.
  EXPECT_EQ(occurrences(marked, "x  lane did not take part"), 1u);
  EXPECT_EQ(occurrences(marked, "k  source lane outside the lane's segment"), 1u);
  EXPECT_EQ(occurrences(marked, "the GPU and the reference model disagree"), 0u);
}

TEST(TextRenderer, RowsTableMarkColumn) {
  report::Report r;
  r.title = "t";
  report::Section s("rows", "rows");
  report::Table t("lanes", "per lane");
  t.column("lane", "lane").column("mask", "mask", report::Format::hex32);
  t.row({{"lane", 0}, {"mask", 0x11}});
  t.row({{"lane", 1}}, RowMark::mismatch);  // a column not given is undefined
  s.add(t);
  r.sections.push_back(s);
  const std::string text = render(r, 80, false);
  EXPECT_NE(text.find("0x00000011"), std::string::npos) << text;
  EXPECT_NE(text.find("mark"), std::string::npos);
  EXPECT_NE(text.find("!  the GPU and the reference model disagree"), std::string::npos) << text;
}

TEST(TextRenderer, ColorOnlyWhenAskedFor) {
  report::Report r = lane_report(true);
  r.sections[0].check("a-check", "a check", true);
  r.sections[0].check("another", "another", false, "lanes 3 differ");
  EXPECT_FALSE(has_escape(render(r, 80, false)));
  const std::string colored = render(r, 80, true);
  EXPECT_TRUE(has_escape(colored));
  EXPECT_NE(colored.find("\x1b[1m"), std::string::npos);  // bold title
  EXPECT_NE(colored.find("\x1b[0m"), std::string::npos);  // reset
  EXPECT_NE(colored.find("\x1b[2m"), std::string::npos);  // dim inactive lanes
  EXPECT_NE(colored.find("\x1b[32m[PASS]"), std::string::npos);
}

TEST(TextRenderer, MeasurementsThatNeedAGpuPrintNoNumber) {
  report::Report r;
  r.title = "t";
  report::Section s("cost", "cost");
  s.add(report::measured("shuffle", "shuffle latency", report::Format::cycles, {}, false));
  s.add(report::measured("measured", "measured one", report::Format::cycles, {30.0, 10.0, 20.0}, true));
  r.sections.push_back(s);
  const std::string text = render(r, 80, false);
  std::string line, measured_line;
  for (const auto& l : lines_of(text)) {
    if (l.find("shuffle latency") != std::string::npos) line = l;
    if (l.find("measured one") != std::string::npos) measured_line = l;
  }
  ASSERT_FALSE(line.empty()) << text;
  EXPECT_NE(line.find("needs a GPU"), std::string::npos) << line;
  EXPECT_EQ(line.find_first_of("0123456789"), std::string::npos) << line;
  // The measured row: median 20, min 10, max 30 (cycles, one decimal), 3 repetitions.
  EXPECT_NE(measured_line.find("20.0"), std::string::npos) << measured_line;
  EXPECT_NE(measured_line.find("10.0"), std::string::npos) << measured_line;
  EXPECT_NE(measured_line.find("30.0"), std::string::npos) << measured_line;
  EXPECT_EQ(words_of(measured_line).back(), "3");
}

TEST(TextRenderer, ChecksSummaryLine) {
  report::Report r = lane_report(false);
  r.sections[0].check("first", "first", true, "32 of 32 lanes agree");
  r.sections[0].check("second", "second", true);
  report::Section more("more", "more");
  more.check("third", "third", false, "lanes 5 differ");
  r.sections.push_back(more);
  const std::string text = render(r, 80, false);
  EXPECT_NE(text.find("[PASS] first: 32 of 32 lanes agree"), std::string::npos) << text;
  EXPECT_NE(text.find("[FAIL] third: lanes 5 differ"), std::string::npos) << text;
  const auto lines = lines_of(text);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "checks: 2 passed, 1 failed");
  // No checks at all: no summary line.
  EXPECT_EQ(render(lane_report(false), 80, false).find("checks:"), std::string::npos);
  // Waived parts are counted in the summary.
  r.waived.push_back({"reduce-add", "needs compute capability 8.0"});
  EXPECT_EQ(lines_of(render(r, 80, false)).back(), "checks: 2 passed, 1 failed, 1 waived");
}

TEST(TextRenderer, ParagraphsWrapToTheWidth) {
  report::Report r;
  r.title = "t";
  report::Section s("words", "words");
  std::string para;
  for (int i = 0; i < 60; ++i) para += "word" + std::to_string(i) + " ";
  s.paragraphs.push_back(para);
  r.sections.push_back(s);
  for (int width : {40, 80}) {
    const std::string text = render(r, width, false);
    for (const auto& line : lines_of(text)) EXPECT_LE(line.size(), static_cast<std::size_t>(width)) << line;
    EXPECT_NE(text.find("word59"), std::string::npos);
  }
}

TEST(TextRenderer, DocumentIsPrintedWhole) {
  report::Report r;
  r.title = "cudasync explain x (en)";
  r.document = "# x\n\na line that is longer than forty characters and must not be wrapped at all";
  const std::string text = render(r, 40, false);
  EXPECT_NE(text.find(r.document + "\n"), std::string::npos) << text;
}

TEST(TextRenderer, RowsThatSayOnlyNeedsAGpuCollapseToOneLine) {
  report::Report r;
  r.title = "t";
  report::Section s("cost", "cost");
  report::Table t("variants", "variants");
  t.column("variant", "variant").column("model", "model", report::Format::count).column("gpu", "gpu", report::Format::count);
  t.row({{"variant", "plain"}, {"model", I{7}}, {"gpu", report::NeedsGpu{}}});
  t.row({{"variant", "fenced"}, {"model", report::NeedsGpu{}}, {"gpu", report::NeedsGpu{}}});
  t.row({{"variant", "relaxed"}, {"model", report::NeedsGpu{}}, {"gpu", report::NeedsGpu{}}});
  s.add(std::move(t));
  report::Table only("gpu-table", "timings");
  only.column("kernel", "kernel").column("ns", "ns", report::Format::ns);
  only.row({{"kernel", "a"}, {"ns", report::NeedsGpu{}}});
  only.row({{"kernel", "b"}, {"ns", report::NeedsGpu{}}});
  s.add(std::move(only));
  s.add(report::measured("m1", "one shuffle", report::Format::cycles, {}, false, "a long note"));
  s.add(report::measured("m2", "one vote", report::Format::cycles, {}, false, "another note"));
  r.sections.push_back(std::move(s));
  const std::string text = render(r, 80, false);
  // The keys of a row are its first column: "plain" keeps its row (the model says 7).
  EXPECT_NE(text.find("plain"), std::string::npos) << text;
  EXPECT_NE(text.find("and, needing a GPU: fenced, relaxed"), std::string::npos) << text;
  EXPECT_NE(text.find("every row needs a GPU: a, b"), std::string::npos) << text;
  EXPECT_NE(text.find("needs a GPU, each one: one shuffle, one vote"), std::string::npos) << text;
  EXPECT_EQ(text.find("a long note"), std::string::npos) << "the notes of measurements nobody took";
  for (const auto& line : lines_of(text)) {
    const auto w = words_of(line);
    EXPECT_FALSE(!w.empty() && w.front() == "fenced") << "a row of its own: " << line;
  }
}
