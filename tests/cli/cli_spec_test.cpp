// `cudasync --cli-spec`: the command line as data, walked from the CLI11 App. CLI11 2.1 gives the
// accepted values back only inside its type names, which parse_type_name() reads; the spec of the
// real binary marks lessons and hidden options, and each lesson's --part lists its parts.
#include <gtest/gtest.h>

#include "core/cli/cli_spec.hpp"
#include "support/cli_expect.hpp"

using cudasync::cli::parse_type_name;

TEST(CliSpec, TypeNamesGiveValuesAndRanges) {
  auto t = parse_type_name("INT:{2,4,8,16,32}");
  EXPECT_EQ(t.type, "INT");
  EXPECT_EQ(t.values, (std::vector<std::string>{"2", "4", "8", "16", "32"}));
  t = parse_type_name("INT:INT in [0 - 31]");
  ASSERT_TRUE(t.min && t.max);
  EXPECT_EQ(*t.min, 0);
  EXPECT_EQ(*t.max, 31);
  EXPECT_TRUE(t.values.empty());
  t = parse_type_name("TEXT:{auto->0,gpu->1}");  // IsMember over a map: the keys are typed
  EXPECT_EQ(t.values, (std::vector<std::string>{"auto", "gpu"}));
  t = parse_type_name("FLOAT:FLOAT in [0.5 - 2.5]");
  EXPECT_EQ(*t.min, 0.5);
  t = parse_type_name("");
  EXPECT_EQ(t.type, "");
  EXPECT_TRUE(t.values.empty() && !t.min);
}

TEST(CliSpec, TheBinarysSpecMarksLessonsPartsAndHiddenOptions) {
  const auto r = cudasync::test::run_cli("--cli-spec");
  ASSERT_EQ(r.exit_code, 0) << cudasync::test::shown(r);
  const auto spec = nlohmann::json::parse(r.out);
  EXPECT_EQ(spec["cli_spec_version"], cudasync::cli::kCliSpecVersion);
  EXPECT_EQ(spec["program"], "cudasync");
  bool hidden_flag = false;
  for (const auto& o : spec["options"])
    if (o["long"] == std::vector<std::string>{"cli-spec"}) hidden_flag = o["hidden"].get<bool>();
  EXPECT_TRUE(hidden_flag) << "--cli-spec is hidden";
  const auto list = nlohmann::json::parse(cudasync::test::run_cli("list --json").out);
  std::vector<std::string> listed, lessons;
  for (const auto& row : list["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"]) listed.push_back(row["lesson"]);
  for (const auto& c : spec["commands"]) {
    if (!c["lesson"].get<bool>()) continue;
    lessons.push_back(c["name"]);
    std::vector<std::string> part_ids, part_values;
    for (const auto& p : c["parts"]) part_ids.push_back(p["id"]);
    for (const auto& o : c["options"])
      if (o["long"] == std::vector<std::string>{"part"}) {
        part_values = o["values"].get<std::vector<std::string>>();
        EXPECT_TRUE(o["takes_value"].get<bool>());
        EXPECT_EQ(o["delimiter"], ",");
      }
    EXPECT_EQ(part_values, part_ids) << c["name"];
    for (const auto& o : c["options"]) {
      if (o["long"] == std::vector<std::string>{"child"}) {
        EXPECT_TRUE(o["hidden"].get<bool>()) << c["name"];
      }
    }
  }
  EXPECT_EQ(lessons, listed) << "the spec's lessons are list's lessons";
}

namespace {

// The entry of `option` in a help text: its line and the lines under it, up to the next option.
std::string help_entry(const std::string& help, const std::string& option) {
  std::string entry;
  bool in = false;
  for (const std::string& line : cudasync::test::lines_of(help)) {
    // An entry starts two spaces in ("  --phases INT..."); the lines under it are indented further.
    const bool starts_entry = line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' ';
    if (starts_entry) in = line.compare(2, option.size() + 1, option + " ") == 0;
    if (in) entry += line + "\n";
  }
  return entry;
}

}  // namespace

// Found by fuzzing: several count options had no range in --help or --cli-spec, and their usage
// errors could not say what was accepted.
TEST(CliSpec, EveryCountOptionStatesItsRangeInTheSpecAndItsHelp) {
  const auto spec = nlohmann::json::parse(cudasync::test::run_cli("--cli-spec").out);
  std::vector<std::pair<std::string, nlohmann::json>> commands{{"", spec}};
  for (const auto& c : spec["commands"]) commands.emplace_back(c["name"].get<std::string>(), c);
  int counts = 0;
  for (const auto& [name, command] : commands) {
    const std::string help = cudasync::test::run_shell("COLUMNS=1000 '" + cudasync::test::binary_path() + "' " + name +
                                                       " --help").out;
    for (const auto& o : command["options"]) {
      const std::string type = o["type"].get<std::string>();
      if (o["hidden"].get<bool>() || !o["takes_value"].get<bool>() || (type.rfind("INT", 0) != 0 && type.rfind("UINT", 0) != 0))
        continue;
      const std::string option = o["positional"].get<bool>() ? o["name"].get<std::string>()
                                                             : "--" + o["long"][0].get<std::string>();
      SCOPED_TRACE(name + " " + option);
      ++counts;
      if (o.contains("values")) continue;  // a list of accepted values
      ASSERT_TRUE(o.contains("range")) << o.dump();
      if (!o["range"]["max"].is_number_integer()) continue;  // 2^64 - 1, as JSON's double
      const std::string lo = o["range"]["min"].dump(), hi = o["range"]["max"].dump();
      const std::string entry = help_entry(help, option);
      EXPECT_TRUE(entry.find(lo + ".." + hi) != std::string::npos ||
                  entry.find("[" + lo + " - " + hi + "]") != std::string::npos)
          << "the help of " << option << " does not give its range " << lo << ".." << hi << ":\n" << entry;
    }
  }
  EXPECT_GT(counts, 30) << "the count options were found";
}

// The help is in the run's language: core's options, the exit codes, the parts and the commands'
// summaries come from the catalogs. The spec the man page and the completions are made from is
// English whatever the language asked for.
TEST(CliSpec, TheHelpIsInTheRunsLanguageAndTheSpecIsAlwaysEnglish) {
  const auto zh = cudasync::test::run_cli("lock --help --lang zh");
  ASSERT_EQ(zh.exit_code, 0) << cudasync::test::shown(zh);
  for (const char* words : {"打印这份帮助并退出", "全局选项", "退出码：", "部分（--part）：", "运行前先预测结果",
                            "用更多次重复来测量开销", "每种锁在从 1 x 1 到 132 x 128 个线程的争用程度下"})
    EXPECT_NE(zh.out.find(words), std::string::npos) << words << "\n" << zh.out;
  for (const char* english : {"Print this help message", "Global options", "Exit codes", "Measure costs"})
    EXPECT_EQ(zh.out.find(english), std::string::npos) << english << "\n" << zh.out;
  // The tools' own options and footers too.
  const auto exercise = cudasync::test::run_cli("exercise --help --lang zh");
  EXPECT_NE(exercise.out.find("显示练习 N 的提示"), std::string::npos) << exercise.out;
  EXPECT_NE(exercise.out.find("答案在被问到时运行这一课算出"), std::string::npos) << exercise.out;
  EXPECT_EQ(exercise.out.find("Show a hint"), std::string::npos) << exercise.out;
  const auto top = cudasync::test::run_cli("--help --lang zh");
  EXPECT_NE(top.out.find("课程：按顺序排列的各课"), std::string::npos) << top.out;  // list's summary
  const auto en = cudasync::test::run_cli("lock --help --lang en");
  EXPECT_NE(en.out.find("Exit codes:\n  0   ok"), std::string::npos) << en.out;
  const auto spec_en = cudasync::test::run_cli("--cli-spec --lang en");
  const auto spec_zh = cudasync::test::run_shell("LANG=zh_CN.UTF-8 '" + cudasync::test::binary_path() + "' --lang zh --cli-spec");
  ASSERT_EQ(spec_zh.exit_code, 0) << cudasync::test::shown(spec_zh);
  EXPECT_EQ(spec_zh.out, spec_en.out);
  EXPECT_NE(spec_en.out.find("\"summary\": \"the course: lessons in order, their parts, your progress\""), std::string::npos);
}
