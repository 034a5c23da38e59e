// What a person at a terminal gets, run on a real pseudo-terminal (util-linux script(1)): long
// text goes through the pager with its colours, short text and --no-pager and --json do not;
// help as a command and with every lesson's global options; --markdown, --csv and --html files.
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/cli_expect.hpp"
#include "support/temp_dir.hpp"

#include <cstdio>
#include <map>
#include <regex>
#include <vector>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/run_cli.hpp"

namespace cudasync::test {
namespace {

using cudasync::test::contains;

// `args` run on a 80x24 terminal, with CUDASYNC_PAGER writing what it is given to a file; returns
// what the pager got ("" when it was not run) and fills `screen` with what reached the terminal.
std::string paged(const std::string& args, std::string& screen, const std::string& env = "") {
  char path[] = "/tmp/cudasync_pager_XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  std::remove(path);
  const CliResult r = run_shell("script -qec \"stty rows 24 cols 80; " + env + " CUDASYNC_PAGER='cat > " + path + "' '" +
                                binary_path() + "' " + args + "\" /dev/null");
  screen = r.out;
  std::string got;
  try {
    got = read_file(path);
  } catch (...) {
  }
  std::remove(path);
  return got;
}

TEST(PagerOnATerminal, LongOutputOnATerminalGoesThroughThePagerInColour) {
  std::string screen;
  const std::string got = paged("lock --backend model -q", screen);
  EXPECT_TRUE(contains(got, "checks: ")) << "the pager got the whole text";
  EXPECT_TRUE(contains(got, "\x1b[")) << "colours are kept for less -R";
  EXPECT_FALSE(contains(screen, "checks: ")) << "nothing but the pager wrote the text";
}

TEST(PagerOnATerminal, NotWithNoPagerNorForJsonNorForShortText) {
  std::string screen;
  EXPECT_EQ(paged("lock --backend model -q --no-pager", screen), "");
  EXPECT_TRUE(contains(screen, "checks: "));
  EXPECT_EQ(paged("lock --backend model -q --json", screen), "");
  EXPECT_TRUE(contains(screen, "schema_version"));
  EXPECT_EQ(paged("devices", screen), "");  // a few lines fit the screen
  EXPECT_FALSE(screen.empty());
  // Off a terminal there is no pager at all: the tests' own runs read stdout directly.
  const CliResult r = run_shell("CUDASYNC_PAGER=false '" + binary_path() + "' lock --backend model -q");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "checks: "));
}

// Found by fuzzing: PAGER=false on a terminal printed nothing and exited 0.
TEST(PagerOnATerminal, APagerThatFailsLeavesTheTextToTheTerminal) {
  for (const std::string env : {"PAGER=false", "CUDASYNC_PAGER=false", "CUDASYNC_PAGER='exit 3'",
                                "CUDASYNC_PAGER=no-such-pager-here"}) {
    SCOPED_TRACE(env);
    const CliResult r = run_shell("script -qec \"stty rows 24 cols 80; env -u CUDASYNC_PAGER -u PAGER " + env + " '" +
                                  binary_path() + "' lock --backend model; echo exit=\\$?\" /dev/null");
    EXPECT_TRUE(contains(r.out, "checks: ")) << "the text reached the terminal\n" << r.out.substr(0, 400);
    EXPECT_TRUE(contains(r.out, "exit=0")) << r.out.substr(r.out.size() > 400 ? r.out.size() - 400 : 0);
    EXPECT_TRUE(contains(r.out, "pager")) << "stderr says why the text came without it";
  }
}

TEST(Help, HelpCommandIsTheCommandsHelp) {
  const CliResult a = run_cli("help lock");
  const CliResult b = run_cli("lock --help");
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(run_cli("help").exit_code, 0);
  EXPECT_TRUE(contains(run_cli("help").out, "Subcommands:"));
  const CliResult bad = run_cli("help no-such-lesson");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "accepted: ")) << bad.err;
}

TEST(Help, EveryLessonsHelpShowsTheGlobalOptions) {
  for (const std::string lesson : {"warp-primitives", "lock", "deadlock-demo"}) {
    const CliResult r = run_cli(lesson + " --help");
    for (const char* s : {"Global options", "--json[=FILE]", "--backend", "--seed", "--html[=FILE]", "--no-pager"})
      EXPECT_TRUE(contains(r.out, s)) << lesson << ": " << s;
  }
}

TEST(Help, WrapsToTheTerminal) {
  const CliResult r = run_shell("COLUMNS=60 '" + binary_path() + "' lock --help");
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), 60u) << line;
}

TEST(Exports, MarkdownHasEveryTableWhole) {
  const CliResult r = run_cli("warp-primitives --part shfl-down --backend model -q --markdown");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "## __shfl_down_sync")) << r.out;
  EXPECT_TRUE(contains(r.out, "| thread | lane | src | var | model | mark |")) << r.out;
  EXPECT_TRUE(contains(r.out, "|---:|")) << "numbers align right";
  EXPECT_FALSE(contains(r.out, "== ")) << "no text report beside it on stdout";
}

TEST(Exports, CsvHasOneRowPerCellWithRawNumbers) {
  const CliResult r = run_shell("'" + binary_path() +
                                "' lock --backend model -q --csv | python3 -c \"import csv,sys; rows=list(csv.reader(sys.stdin)); "
                                "assert rows[0][:3]==['kind','section','table'], rows[0]; "
                                "assert all(len(x)==11 for x in rows); "
                                "print(sum(1 for x in rows if x[0]=='cell'), sum(1 for x in rows if x[0]=='check'))\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream counts(r.out);
  int cells = 0, checks = 0;
  counts >> cells >> checks;
  EXPECT_GT(cells, 100);
  EXPECT_GT(checks, 3);
}

TEST(Exports, FilesBesideTheTextAndOneThingOnStdout) {
  char dir_template[] = "/tmp/cudasync_exports_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const CliResult r = run_cli("lock --backend model -q --html=" + dir + "/a.html --markdown=" + dir + "/a.md --csv=" + dir +
                              "/a.csv --json=" + dir + "/a.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "checks: ")) << "the text stays on stdout";
  EXPECT_TRUE(contains(read_file(dir + "/a.html"), "<svg"));
  EXPECT_TRUE(contains(read_file(dir + "/a.md"), "| step |"));
  EXPECT_TRUE(contains(read_file(dir + "/a.csv"), "kind,section"));
  EXPECT_TRUE(contains(read_file(dir + "/a.json"), "\"picture\""));
  run_shell("rm -rf '" + dir + "'");
  const CliResult both = run_cli("lock --backend model -q --json --html");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "both ask for stdout")) << both.err;
  const TempDir scratch;  // a folder that is not there, inside one of this test's own
  const std::string missing = scratch.path + "/missing/a.html";
  const CliResult unwritable = run_cli("lock --backend model -q --html=" + missing);
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_TRUE(contains(unwritable.err, "--html=" + missing)) << unwritable.err;
  // Two outputs on one file, and an option with '=' but no file, are usage errors; with --json
  // on stdout the error is its document.
  const CliResult one_file = run_cli("lock --backend model -q --csv=x.out --markdown=x.out --json");
  EXPECT_EQ(one_file.exit_code, 2);
  EXPECT_TRUE(contains(one_file.err, "name one file")) << one_file.err;
  EXPECT_TRUE(contains(one_file.out, "\"exit_code\": 2")) << one_file.out;
  const CliResult no_file = run_cli("lock --backend model -q --html=");
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_TRUE(contains(no_file.err, "--html= names no file")) << no_file.err;
  EXPECT_EQ(no_file.out, "");
}

TEST(Exports, ShuffleDiagramKeepsEveryArrowInsideItsWidthSegment) {
  // Width 8, lanes 0..19 in the mask: four segments; lane 19 reads lane 20, which is not in the
  // mask (undefined); the last lane of a segment keeps its own value; lanes 20..31 are marked off.
  const CliResult r =
      run_cli("warp-primitives --part shfl-down --width 8 --mask 0x000fffff --backend model -q --html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex seg_re("<rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"[^>]*class=\"seg-(even|odd)\"");
  std::vector<std::pair<double, double>> segments;
  for (auto m = std::sregex_iterator(r.out.begin(), r.out.end(), seg_re); m != std::sregex_iterator(); ++m)
    segments.emplace_back(std::stod((*m)[1]), std::stod((*m)[1]) + std::stod((*m)[2]));
  ASSERT_EQ(segments.size(), 4u) << r.out.substr(0, 3000);
  const auto segment_of = [&](double x) {
    for (std::size_t i = 0; i < segments.size(); ++i)
      if (x >= segments[i].first && x < segments[i].second) return static_cast<int>(i);
    return -1;
  };
  const std::regex arrow_re("<line x1=\"([0-9.]+)\" y1=\"[0-9.]+\" x2=\"([0-9.]+)\"[^>]*class=\"arrow ([a-z]+)\"");
  std::map<std::string, int> kinds;
  for (auto m = std::sregex_iterator(r.out.begin(), r.out.end(), arrow_re); m != std::sregex_iterator(); ++m) {
    const double from = std::stod((*m)[1]), to = std::stod((*m)[2]);
    EXPECT_NE(segment_of(to), -1) << (*m)[0];
    EXPECT_EQ(segment_of(from), segment_of(to)) << "an arrow leaves its segment: " << (*m)[0];
    ++kinds[(*m)[3]];
  }
  EXPECT_EQ(kinds["recv"] + kinds["kept"] + kinds["undef"], 20) << "one arrow per lane in the mask";
  EXPECT_EQ(kinds["undef"], 1) << "lane 19 reads lane 20, not in the mask";
  EXPECT_EQ(kinds["kept"], 2) << "lanes 7 and 15 keep their own value";
  std::size_t off = 0;
  for (std::size_t p = r.out.find("class=\"lane off\""); p != std::string::npos; p = r.out.find("class=\"lane off\"", p + 1))
    ++off;
  EXPECT_EQ(off, 24u) << "lanes 20..31 marked off, above and below";
}

TEST(Exports, JsonNamesEachTablesPicture) {
  const CliResult r = run_cli("warp-primitives --part shfl-xor --width 8 --backend model -q --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], "2.3.0");
  const auto& p = doc["report"]["sections"]["shfl-xor"]["tables"]["lanes"]["picture"];
  EXPECT_EQ(p["kind"], "shuffle");
  EXPECT_EQ(p["roles"]["lane"], "thread");
  EXPECT_EQ(p["roles"]["source"], "source-lane");
  EXPECT_EQ(p["width"], 8);
}

}  // namespace
}  // namespace cudasync::test

namespace cudasync::test {
namespace {

// explain at 80x24 in a real terminal (tmux) with the real pager: the first screen is the text's
// start, no line is cut, and less waits at its prompt.
TEST(ExplainOnATerminal, FirstScreenAt80x24ThroughLess) {
  if (run_shell("command -v tmux").exit_code != 0) GTEST_SKIP() << "no tmux here: scripts/setup.sh installs it";
  const std::string session = "cudasync-test-" + std::to_string(getpid());
  run_shell("tmux new-session -d -s " + session + " -x 80 -y 24 \"env -u CUDASYNC_PAGER -u PAGER -u LESS TERM=xterm '" +
            binary_path() + "' explain lock; sleep 5\"");
  run_shell("sleep 1.5");
  const CliResult screen = run_shell("tmux capture-pane -p -t " + session);
  run_shell("tmux send-keys -t " + session + " q; tmux kill-session -t " + session);
  std::istringstream in(screen.out);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 24u) << screen.out;
  EXPECT_EQ(lines[0], "cudasync explain lock (en)") << screen.out;
  EXPECT_EQ(lines[23].rfind(":", 0), 0u) << "less waits at its prompt\n" << screen.out;
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("# "), std::string::npos) << "raw Markdown heading: " << l;
    EXPECT_EQ(l.find("```"), std::string::npos) << "raw Markdown fence: " << l;
  }
}

}  // namespace
}  // namespace cudasync::test
