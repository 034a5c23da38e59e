// The pieces every text renderer shares: display width, wrapping (CJK too), tables that fit a
// width by wrapping, folding or one block per row, and Markdown rendered for a terminal.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/report/markdown_text.hpp"
#include "core/report/text_table.hpp"
#include "core/report/text_width.hpp"
#include "support/cli_expect.hpp"

namespace report = cudasync::report;

namespace {

using cudasync::test::lines_of;

std::size_t widest(const std::vector<std::string>& lines) {
  std::size_t w = 0;
  for (const auto& l : lines) w = std::max(w, report::display_width(l));
  return w;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST(TextWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(report::display_width("lane 5"), 6u);
  EXPECT_EQ(report::display_width("线程束"), 6u);                 // three CJK characters, two columns each
  EXPECT_EQ(report::display_width("\x1b[1mbold\x1b[0m"), 4u);     // escapes take none
  EXPECT_EQ(report::display_width("a\xe2\x86\x92" "b"), 3u);      // an arrow is one column
  EXPECT_EQ(report::pad_left("线程", 6), "  线程");
}

TEST(TextWidth, WrapsWordsAndBreaksBetweenCjkCharacters) {
  const auto en = report::wrap_text("a fence orders the calling thread's accesses", 20);
  EXPECT_EQ(en, (std::vector<std::string>{"a fence orders the", "calling thread's", "accesses"}));
  const auto zh = report::wrap_text("一个栅栏只对调用它的线程自己的内存访问排序，它不让任何人等待。", 20);
  EXPECT_GT(zh.size(), 2u);
  for (const auto& l : zh) {
    EXPECT_LE(report::display_width(l), 20u) << l;
    EXPECT_NE(l.rfind("，", 0), 0u) << "a line starts with a closing comma: " << l;
    EXPECT_NE(l.rfind("。", 0), 0u) << l;
  }
  // A word longer than the line is broken, never dropped.
  const auto long_word = report::wrap_text("0123456789abcdefghij", 8);
  EXPECT_EQ(long_word, (std::vector<std::string>{"01234567", "89abcdef", "ghij"}));
}

namespace {

report::TextTable trace(std::size_t lanes) {
  report::TextTable t;
  t.headers = {"step"};
  for (std::size_t l = 0; l < lanes; ++l) t.headers.push_back("lane " + std::to_string(l));
  t.headers.push_back("note");
  t.right.assign(t.headers.size(), false);
  t.right[0] = true;
  for (int s = 1; s <= 4; ++s) {
    std::vector<std::string> row{std::to_string(s)};
    for (std::size_t l = 0; l < lanes; ++l) row.push_back(l == 0 ? "CAS lock: 0, takes it" : "CAS lock: 1 (held by lane 0)");
    row.push_back("lanes 1-3 go to 0, lane 0 to 2; they meet again at 2");
    t.rows.push_back(row);
    t.paint.emplace_back();
  }
  return t;
}

}  // namespace

TEST(TextTable, ATableThatFitsIsOneLinePerRow) {
  const auto lines = report::layout_table(trace(1), 200);
  EXPECT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].rfind("  step", 0), 0u);
  for (const auto& l : lines) EXPECT_EQ(l.back() == ' ', false) << "trailing space: '" << l << "'";
}

TEST(TextTable, AWideTableFoldsKeepingTheKeyColumnInEveryBlock) {
  const auto lines = report::layout_table(trace(4), 80);
  EXPECT_LE(widest(lines), 80u) << joined(lines);
  std::size_t headers = 0;
  for (const auto& l : lines) headers += l.rfind("  step", 0) == 0 ? 1 : 0;
  EXPECT_GE(headers, 2u) << "folded into blocks, each starting with the key column\n" << joined(lines);
  // Every cell is still there: each lane's title appears once.
  for (int l = 0; l < 4; ++l) EXPECT_NE(joined(lines).find("lane " + std::to_string(l)), std::string::npos);
}

TEST(TextTable, RecordsPutEachRowOnLinesOfItsOwn) {
  auto t = trace(4);
  t.fold = report::Fold::records;
  const auto lines = report::layout_table(t, 60);
  EXPECT_LE(widest(lines), 60u) << joined(lines);
  EXPECT_EQ(lines[0], "  step 1");
  EXPECT_NE(lines[1].find("lane 0  "), std::string::npos) << joined(lines);
}

TEST(TextTable, TextColumnsWrapUnderThemselves) {
  report::TextTable t;
  t.headers = {"barrier", "model"};
  t.right = {false, false};
  t.rows = {{"xf-lockfree", "deadlock at step 8; block 0 passed barrier 1 before every block had arrived"}};
  t.paint = {""};
  const auto lines = report::layout_table(t, 60);
  EXPECT_LE(widest(lines), 60u) << joined(lines);
  EXPECT_EQ(lines.size(), 3u) << joined(lines);  // the header, and the row on two lines
  EXPECT_EQ(lines[2].find_first_not_of(' '), lines[1].find("deadlock")) << joined(lines);
}

TEST(MarkdownText, RendersBlocksForATerminal) {
  const std::string md =
      "# A title\n\nSome *text* with `code` in it, long enough to wrap at forty columns for sure.\n\n"
      "## Part\n\n- one item\n- two items, the second long enough to wrap under its own text\n\n"
      "```cpp\nwhile (atomicCAS(mutex, 0, 1) != 0); // a code line that is far too long for the width\n```\n\n"
      "| test | weak outcome |\n|---|---|\n| mp | `r1 = 0` |\n";
  const auto lines = lines_of(report::render_markdown_text(md, 40, false));
  const std::string all = joined(lines);
  EXPECT_LE(widest(lines), 40u) << all;
  EXPECT_EQ(lines[0], "A title");
  EXPECT_EQ(lines[1], "=======");
  EXPECT_NE(all.find("Part\n----"), std::string::npos) << all;
  EXPECT_NE(all.find("`code`"), std::string::npos) << all;    // without colour code keeps its backquotes
  EXPECT_EQ(all.find("*text*"), std::string::npos) << all;    // emphasis markers are gone
  EXPECT_NE(all.find("\n- one item\n- two items"), std::string::npos) << all;
  EXPECT_NE(all.find("\n  "), std::string::npos) << "a wrapped item continues under its text\n" << all;
  EXPECT_NE(all.find("    while (atomicCAS"), std::string::npos) << all;
  EXPECT_NE(all.find(" \\\n"), std::string::npos) << "a long code line breaks with a trailing backslash\n" << all;
  EXPECT_NE(all.find("  test  weak outcome"), std::string::npos) << all;
  EXPECT_EQ(all.find("|---"), std::string::npos) << all;
}

TEST(MarkdownText, ColourBalancesEveryLine) {
  const std::string md = "Some **bold text that is long enough to wrap over more than one line** here.\n";
  for (const auto& l : lines_of(report::render_markdown_text(md, 30, true))) {
    const bool opens = l.find("\x1b[1m") != std::string::npos;
    EXPECT_TRUE(!opens || l.find("\x1b[0m") != std::string::npos) << "a line leaves bold open: " << l;
  }
}

TEST(MarkdownText, ChineseFitsItsWidth) {
  const std::string md = "# 锁\n\n这个锁是 CUDA by Example 中的自旋锁：一个全局内存中的字，用 `atomicCAS(mutex, 0, 1)` 获取，"
                         "直到它返回 0；用 `atomicExch(mutex, 0)` 释放。\n";
  const auto lines = lines_of(report::render_markdown_text(md, 30, false));
  EXPECT_LE(widest(lines), 30u) << joined(lines);
  EXPECT_GT(lines.size(), 4u);
}

TEST(MarkdownText, ALineBreakBetweenChineseCharactersJoinsWithoutASpace) {
  // Source texts break lines anywhere; rendered, a break between two CJK characters is nothing,
  // between words a space.
  const std::string md = "它把锁封\n装成类。\n这个锁\nis one word.\n";
  const std::string out = report::render_markdown_text(md, 80, false);
  EXPECT_NE(out.find("它把锁封装成类。这个锁 is one word."), std::string::npos) << out;
}

TEST(MarkdownText, WithoutMd4cTheMarkdownIsShownAsWrittenWithinTheWidth) {
  // What explain prints where libmd4c.so.0 cannot be loaded: the source, long lines wrapped.
  const std::string md = "# Title\n\n- an item long enough to wrap at twenty columns\n\n    code\n";
  const auto lines = lines_of(report::plain_markdown_text(md, 20));
  EXPECT_LE(widest(lines), 20u) << joined(lines);
  EXPECT_EQ(lines[0], "# Title");
  EXPECT_EQ(lines.back(), "    code");
  EXPECT_NE(joined(lines).find("- an item long"), std::string::npos) << joined(lines);
}
