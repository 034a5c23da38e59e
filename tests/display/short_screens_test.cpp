// What a student reads first fits one 80x24 screen: each stop of the tour, and every lesson's
// one-screen summary (`--brief`, and the first section of a default run of several parts), in
// English and in Chinese (a CJK character counts two columns), on the model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_expect.hpp"

namespace cudasync::test {
namespace {

constexpr std::size_t kScreenLines = 24;

std::vector<std::string> lessons_in_order() {
  const auto doc = nlohmann::json::parse(run_cli("list --json").out);
  std::vector<std::string> out;
  for (const auto& row : doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"])
    out.push_back(row["lesson"].get<std::string>());
  return out;
}

TEST(ShortScreens, EachTourStopFitsOneScreenInBothLanguages) {
  const auto lessons = lessons_in_order();
  ASSERT_GE(lessons.size(), 7u);
  for (const std::string lang : {"en", "zh"}) {
    SCOPED_TRACE(lang);
    const CliResult r = run_shell("COLUMNS=80 '" + binary_path() + "' tour --backend model --color never -q --lang " + lang);
    ASSERT_EQ(r.exit_code, 0) << shown(r);
    const auto lines = lines_of(r.out);
    // A stop runs from its "== k/N lesson ==" line to the line before the next one (or the tour's end).
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < lines.size(); ++i)
      for (std::size_t k = 0; k < lessons.size(); ++k)
        if (lines[i] == "== " + std::to_string(k + 1) + "/" + std::to_string(lessons.size()) + " " + lessons[k] + " ==")
          starts.push_back(i);
    ASSERT_EQ(starts.size(), lessons.size()) << r.out;
    for (std::size_t k = 0; k < starts.size(); ++k) {
      std::size_t end = k + 1 < starts.size() ? starts[k + 1] : lines.size();
      if (k + 1 == starts.size())  // the last stop ends before the tour's closing section
        for (std::size_t i = starts[k] + 1; i < lines.size(); ++i)
          if (lines[i].rfind("== ", 0) == 0 && lines[i].find("remember") == std::string::npos &&
              lines[i].find("记住") == std::string::npos) {
            end = i;
            break;
          }
      while (end > starts[k] && lines[end - 1].empty()) --end;
      std::string stop;
      for (std::size_t i = starts[k]; i < end; ++i) stop += lines[i] + "\n";
      EXPECT_LE(end - starts[k], kScreenLines) << lessons[k] << "'s stop:\n" << stop;
      for (std::size_t i = starts[k]; i < end; ++i) EXPECT_LE(display_columns(lines[i]), 80u) << lines[i];
    }
  }
}

TEST(ShortScreens, EveryLessonsBriefRunIsOneScreenInBothLanguages) {
  for (const std::string& lesson : lessons_in_order())
    for (const std::string lang : {"en", "zh"}) {
      SCOPED_TRACE(lesson + " " + lang);
      const CliResult r = run_shell("COLUMNS=80 '" + binary_path() + "' " + lesson +
                                    " --brief --backend model --color never -q --lang " + lang);
      ASSERT_EQ(r.exit_code, 0) << shown(r);
      const auto lines = lines_of(r.out);
      EXPECT_LE(lines.size(), kScreenLines) << r.out;
      for (const auto& l : lines) EXPECT_LE(display_columns(l), 80u) << l;
      EXPECT_NE(r.out.find("cudasync explain " + lesson), std::string::npos) << "it says what to run next";
    }
}

TEST(ShortScreens, ADefaultRunOpensWithItsSummaryAndBriefIsTheSummaryAlone) {
  for (const std::string& lesson : lessons_in_order()) {
    SCOPED_TRACE(lesson);
    const nlohmann::ordered_json full = valid_document(lesson + " --backend model --json");
    ASSERT_FALSE(full["report"]["sections"].empty());
    EXPECT_EQ(full["report"]["sections"].begin().key(), "overview") << "the summary comes first";
    const auto& s = full["report"]["sections"]["overview"];
    EXPECT_TRUE(s["facts"]["checks-passed"]["value"].is_number());
    const nlohmann::ordered_json brief = valid_document(lesson + " --brief --backend model --json");
    EXPECT_EQ(brief["report"]["sections"].size(), 1u);
    EXPECT_EQ(brief["report"]["sections"]["overview"]["facts"]["checks-passed"], s["facts"]["checks-passed"]);
  }
  // A run of one part is its own short screen: no summary before it.
  const nlohmann::ordered_json one = valid_document("lock --part stale-reads --backend model --json");
  EXPECT_FALSE(one["report"]["sections"].contains("overview"));
}

TEST(ShortScreens, BriefDoesNotCombineWithBenchOrPredict) {
  expect_usage_error({"lock --brief --bench", {"--brief", "accepted: --brief without --bench and --predict"}});
  expect_usage_error({"lock --brief --predict --prediction deadlocks", {"--brief", "accepted"}});
}

}  // namespace
}  // namespace cudasync::test
