// The HTML renderer on hand-made reports shaped like a GPU run (this machine has none): the
// pictures draw what the numbers say, and the page stays self-contained.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"

#include <sstream>
#include <string>

#include "core/report/html_renderer.hpp"
#include "core/report/table_export.hpp"
#include "support/sample_reports.hpp"

namespace report = cudasync::report;
using I = std::int64_t;

namespace {

using cudasync::test::occurrences;

}  // namespace


TEST(HtmlRenderer, PicturesDrawWhatTheNumbersSay) {
  const report::Report r = report::testing::gpu_shaped();
  std::ostringstream out;
  report::render_html(r, {}, out);
  const std::string html = out.str();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("pictures &lt;of&gt; a GPU run"), std::string::npos) << "titles are escaped";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  // timeline: two released blocks have a bar, one never released, one never arrived.
  EXPECT_EQ(occurrences(html, "class=\"wait\""), 2u);
  EXPECT_EQ(occurrences(html, "class=\"never\""), 1u);
  EXPECT_NE(html.find("never arrived"), std::string::npos);
  EXPECT_NE(html.find("last arrival"), std::string::npos);
  // outcomes: counts drawn as bars, the forbidden one red.
  EXPECT_EQ(occurrences(html, "class=\"bar forbidden\""), 1u);
  EXPECT_EQ(occurrences(html, "class=\"bar allowed\""), 1u);
  // bars: the baseline's bars grey, a missing value in words, the measurement as a bar.
  EXPECT_EQ(occurrences(html, "class=\"bar base\""), 2u);
  EXPECT_NE(html.find("needs a GPU"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"measurements\""), std::string::npos);
  // every table is there as a table too
  EXPECT_EQ(occurrences(html, "<table>"), 4u);
}

TEST(HtmlRenderer, APictureNamingNoColumnIsAProgrammingError) {
  report::Table t("t", "t");
  t.column("lane", "lane");
  t.picture = report::shuffle_picture("lane", "no-such-column", 8);
  EXPECT_THROW(report::validate_ids(report::testing::with_table(std::move(t))), std::logic_error);
}

TEST(TableExport, CsvQuotesWhatNeedsIt) {
  EXPECT_EQ(report::csv_field("plain"), "plain");
  EXPECT_EQ(report::csv_field("a, b"), "\"a, b\"");
  EXPECT_EQ(report::csv_field("say \"x\""), "\"say \"\"x\"\"\"");
  std::ostringstream csv;
  report::render_csv(report::testing::gpu_shaped(), csv);
  EXPECT_NE(csv.str().find("cell,pictures,median,1,p128,128,,ns,ns,true,none\r\n"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find("cell,pictures,median,0,p64,64,20.5,ns,ns,false,none\r\n"), std::string::npos) << csv.str();
}

TEST(HtmlRenderer, ProseSetsBackquotedCodeAsCodeAndEscapesTheRest) {
  report::Report r;
  r.command = "test";
  report::Section s("s", "s");
  s.paragraph("lanes of a `width < 32` segment & `tid % width`; a lone ` stays");
  r.sections.push_back(s);
  std::ostringstream out;
  report::render_html(r, {}, out);
  EXPECT_NE(out.str().find("<p>lanes of a <code>width &lt; 32</code> segment &amp; <code>tid % width</code>; a lone ` "
                           "stays</p>"),
            std::string::npos)
      << out.str();
}
