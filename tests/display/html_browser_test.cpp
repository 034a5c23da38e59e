// --html in a real browser: one page per lesson (from `cudasync list --json`; lockfree-barrier's
// with --trace, the per-block timeline) and `explain lock --lang zh`, loaded by headless Chromium
// (Debian's chromium, installed by scripts/setup.sh; without it the tests skip and say so). A
// console message of any kind fails the test: the pages carry no script, and their
// Content-Security-Policy turns any attempt to load something into a console error. Each page leaves a screenshot in
// <build>/html-screenshots/ to look at (4000 pixels tall: the first pictures are in it). A page
// costs a browser start (2-3 s): keep them few.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include <fstream>

#include "core/report/html_renderer.hpp"
#include "support/run_cli.hpp"
#include "support/sample_reports.hpp"

namespace cudasync::test {
namespace {

std::string browser() {
  static const std::string path = [] {
    const CliResult r = run_shell("command -v chromium || command -v chromium-browser || command -v google-chrome");
    std::string p = r.out.substr(0, r.out.find('\n'));
    return p;
  }();
  return path;
}

std::string screenshot_dir() {
  std::string bin = binary_path();
  std::string dir = bin.substr(0, bin.rfind('/')) + "/../html-screenshots";
  mkdir(dir.c_str(), 0755);
  return dir;
}

struct Page {
  std::string name;  // file stem
  std::string args;  // the cudasync command line, without --html
};

std::vector<Page> pages() {
  std::vector<Page> out;
  const CliResult r = run_cli("list --json");
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& row : doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"]) {
    const std::string id = row["lesson"];
    if (id == "lockfree-barrier") out.push_back({"lockfree-barrier-trace", id + " --trace --blocks 8 --backend model -q"});
    else out.push_back({id, id + " --backend model -q"});
  }
  out.push_back({"explain-lock-zh", "explain lock --lang zh"});
  return out;
}

struct Loaded {
  std::string html;
  std::string console;  // the browser's console lines
  bool screenshot = false;
};

Loaded load(const Page& p) {
  Loaded l;
  char dir_template[] = "/tmp/cudasync_html_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string html = dir + "/" + p.name + ".html";
  const CliResult made = run_cli(p.args + " --html=" + html);
  EXPECT_TRUE(made.exit_code == 0 || made.exit_code == 77) << p.args << ": exit " << made.exit_code << "\n" << made.err;
  l.html = read_file(html);
  const std::string png = screenshot_dir() + "/" + p.name + ".png";
  std::remove(png.c_str());
  const CliResult b = run_shell("timeout 90 '" + browser() +
                                "' --headless --disable-gpu --no-sandbox --disable-dev-shm-usage --no-first-run "
                                "--no-default-browser-check --hide-scrollbars --user-data-dir='" + dir +
                                "/profile' --enable-logging=stderr --v=0 --window-size=1280,4000 --screenshot='" + png +
                                "' 'file://" + html + "'");
  EXPECT_EQ(b.exit_code, 0) << p.name << ": the browser failed\n" << b.err.substr(0, 3000);
  std::istringstream err(b.err);
  for (std::string line; std::getline(err, line);)
    if (line.find(":CONSOLE") != std::string::npos) l.console += line + "\n";
  struct stat st {};
  l.screenshot = stat(png.c_str(), &st) == 0 && st.st_size > 10000;
  run_shell("rm -rf '" + dir + "'");
  return l;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

TEST(HtmlInBrowser, EveryPageLoadsWithACleanConsoleAndLeavesAScreenshot) {
  if (browser().empty()) GTEST_SKIP() << "no chromium here: scripts/setup.sh installs Debian's chromium";
  for (const Page& p : pages()) {
    const Loaded l = load(p);
    EXPECT_TRUE(l.console.empty()) << p.name << ": the console said\n" << l.console;
    EXPECT_TRUE(l.screenshot) << p.name << ": no screenshot";
    // Self-contained: nothing to fetch, no script.
    EXPECT_EQ(l.html.find("<script"), std::string::npos) << p.name;
    EXPECT_EQ(l.html.find(" src="), std::string::npos) << p.name;
    EXPECT_EQ(l.html.find("<link"), std::string::npos) << p.name;
    // The pictures each lesson's tables ask for are drawn.
    const std::size_t shuffles = count(l.html, "aria-label=\"shuffle"), timelines = count(l.html, "aria-label=\"timeline"),
                      outcomes = count(l.html, "aria-label=\"outcomes"), grids = count(l.html, "aria-label=\"step by lane");
    if (p.name == "warp-primitives") {
      EXPECT_GE(shuffles, 4u);
    } else if (p.name == "lockfree-barrier-trace") {
      EXPECT_GE(timelines, 1u);
      // The model's blocks arrive one action after another, not all at once: the arrival dots of
      // one timeline stand at different places.
      std::set<std::string> arrivals;
      const std::string dot = "\" r=\"4\" class=\"arrive\"";
      for (std::size_t at = l.html.find(dot); at != std::string::npos; at = l.html.find(dot, at + 1)) {
        const std::size_t cx = l.html.rfind("cx=\"", at);
        arrivals.insert(l.html.substr(cx, l.html.find('"', cx + 4) - cx));
      }
      EXPECT_GE(arrivals.size(), 8u) << "8 blocks, 8 arrival times";
    } else if (p.name == "cg-reduce") {
      EXPECT_GE(count(l.html, "aria-label=\"reduction tree"), 1u);
    } else if (p.name == "threadfence") {
      EXPECT_GE(outcomes, 1u);
      // mp's reader waits for the flag: 00 and 01 cannot happen, which is not "forbidden"; the
      // scope grid names each row's placement.
      EXPECT_NE(l.html.find(">cannot happen<"), std::string::npos);
      EXPECT_NE(l.html.find(">mp none one block<"), std::string::npos);
      EXPECT_NE(l.html.find(">mp none two blocks<"), std::string::npos);
    } else if (p.name == "lock" || p.name == "deadlock-demo") {
      EXPECT_GE(grids, 1u);
    }
    if (p.name == "deadlock-demo") {
      EXPECT_GE(count(l.html, "aria-label=\"wait-for graph"), 3u) << "each cycle drawn";
    }
  }
}

TEST(HtmlInBrowser, GpuShapedPicturesLoadToo) {
  // What only a GPU run draws (ns timelines, litmus counts, sweep bars, measurements), from a
  // hand-made report: the same checks, and a screenshot to look at.
  if (browser().empty()) GTEST_SKIP() << "no chromium here: scripts/setup.sh installs Debian's chromium";
  char dir_template[] = "/tmp/cudasync_html_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  {
    std::ofstream f(dir + "/gpu-shaped.html");
    report::render_html(report::testing::gpu_shaped(), {}, f);
  }
  const std::string png = screenshot_dir() + "/gpu-shaped.png";
  const CliResult b = run_shell("timeout 90 '" + browser() +
                                "' --headless --disable-gpu --no-sandbox --disable-dev-shm-usage --no-first-run "
                                "--hide-scrollbars --user-data-dir='" + dir + "/profile' --enable-logging=stderr --v=0 "
                                "--window-size=1000,1100 --screenshot='" + png + "' 'file://" + dir + "/gpu-shaped.html'");
  run_shell("rm -rf '" + dir + "'");
  EXPECT_EQ(b.exit_code, 0) << b.err.substr(0, 3000);
  EXPECT_EQ(b.err.find(":CONSOLE"), std::string::npos) << b.err.substr(0, 3000);
  struct stat st {};
  EXPECT_TRUE(stat(png.c_str(), &st) == 0 && st.st_size > 10000);
}

TEST(HtmlInBrowser, AConsoleErrorIsCaught) {
  // The check above can fail: a page that tries to load an image is refused by its policy, and
  // the browser says so on its console.
  if (browser().empty()) GTEST_SKIP() << "no chromium here: scripts/setup.sh installs Debian's chromium";
  char dir_template[] = "/tmp/cudasync_html_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const CliResult made = run_cli("list --html=" + dir + "/list.html");
  ASSERT_EQ(made.exit_code, 0);
  run_shell("sed -i 's|</body>|<img alt=x src=\"http://127.0.0.1:9/x.png\"></body>|' '" + dir + "/list.html'");
  const CliResult b = run_shell("timeout 90 '" + browser() +
                                "' --headless --disable-gpu --no-sandbox --disable-dev-shm-usage --no-first-run "
                                "--user-data-dir='" + dir + "/profile' --enable-logging=stderr --v=0 --dump-dom 'file://" +
                                dir + "/list.html' > /dev/null");
  run_shell("rm -rf '" + dir + "'");
  EXPECT_NE(b.err.find(":CONSOLE"), std::string::npos) << b.err.substr(0, 3000);
}

}  // namespace
}  // namespace cudasync::test
