// The files a run writes its renderings to (core/cli/deliver.hpp): each opened once; two outputs
// that are one file, whatever their names (./x beside x, a symlink, a hard link, the file stdout
// goes to), are a usage error naming both, and nothing already there is destroyed; a FIFO that no
// process reads is refused at once instead of waited on, while one with a reader gets its document.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_expect.hpp"
#include "support/temp_dir.hpp"

namespace cudasync::test {
namespace {

namespace fs = std::filesystem;

// `cudasync <args>` run in the folder `dir`.
CliResult run_in_folder(const std::string& dir, const std::string& args) {
  return run_shell("cd '" + dir + "' && '" + binary_path() + "' " + args);
}

void put_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(OutputFiles, TwoRenderingsOnOneFileAreRefusedWhateverTheFilesName) {
  struct Case {
    const char* setup;  // shell commands run in the folder first
    const char* args;
    const char* first;  // the two options the message names
    const char* second;
  };
  const Case cases[] = {
      {"", "--html=report --csv=./report", "--html=report", "--csv=./report"},
      {"", "--markdown=report --html=sub/../report", "--html=sub/../report", "--markdown=report"},
      {"ln -s report link", "--html=report --markdown=link", "--html=report", "--markdown=link"},
      {"ln report hard", "--csv=hard --markdown=report", "--markdown=report", "--csv=hard"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    TempDir d;
    fs::create_directories(d.path + "/sub");
    put_text(d.path + "/report", "an earlier report");
    if (*c.setup) {
      ASSERT_EQ(run_shell("cd '" + d.path + "' && " + c.setup).exit_code, 0);
    }
    const CliResult r = run_in_folder(d.path, std::string("lock --backend model -q ") + c.args);
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, c.first)) << r.err;
    EXPECT_TRUE(contains(r.err, c.second)) << r.err;
    EXPECT_TRUE(contains(r.err, "accepted:")) << r.err;
    EXPECT_FALSE(contains(r.out, "== ")) << "no run";
    EXPECT_EQ(read_file(d.path + "/report"), "an earlier report") << "nothing is destroyed";
  }
}

TEST(OutputFiles, AJsonFileThatIsAlsoAnotherOutputGetsOneErrorDocument) {
  for (const std::string other : {"--html=./out.json", "--csv=./out.json", "--markdown=link.json"}) {
    SCOPED_TRACE(other);
    TempDir d;
    ASSERT_EQ(run_shell("cd '" + d.path + "' && ln -s out.json link.json").exit_code, 0);
    const CliResult r = run_in_folder(d.path, "warp-primitives --backend model --json=out.json " + other);
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "--json=out.json")) << r.err;
    EXPECT_TRUE(contains(r.err, other)) << r.err;
    const auto doc = nlohmann::json::parse(read_file(d.path + "/out.json"), nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << "exactly one JSON document, not the HTML's tail after it";
    EXPECT_EQ(doc["error"]["exit_code"], 2);
  }
}

TEST(OutputFiles, AFileThatStdoutAlsoGoesToIsRefused) {
  TempDir d;
  const CliResult r = run_in_folder(d.path, "lock --backend model -q --html=page.html > page.html");
  EXPECT_EQ(r.exit_code, 2) << shown(r);
  EXPECT_TRUE(contains(r.err, "--html=page.html")) << r.err;
  EXPECT_TRUE(contains(r.err, "stdout")) << r.err;
  EXPECT_TRUE(contains(r.err, "accepted:")) << r.err;
}

TEST(OutputFiles, ARefusedRunLeavesNoFileItCreated) {
  TempDir d;
  const CliResult r = run_in_folder(d.path, "lock --backend model -q --html=new.html --csv=./new.html");
  EXPECT_EQ(r.exit_code, 2) << shown(r);
  EXPECT_FALSE(fs::exists(d.path + "/new.html"));
}

TEST(OutputFiles, AFifoWithoutAReaderIsRefusedNotWaitedOn) {
  TempDir d;
  ASSERT_EQ(run_shell("mkfifo '" + d.path + "/f'").exit_code, 0);
  for (const std::string option : {"--json", "--html", "--markdown", "--csv"}) {
    SCOPED_TRACE(option);
    // The timeout only ends a run that hangs, which is the failure: it exits 124 then.
    const CliResult r = run_shell("cd '" + d.path + "' && timeout 30 '" + binary_path() + "' list " + option + "=f");
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, option + "=f")) << r.err;
    EXPECT_TRUE(contains(r.err, "no process is reading")) << r.err;
    EXPECT_TRUE(contains(r.err, "accepted:")) << r.err;
  }
}

TEST(OutputFiles, AFifoWithAReaderGetsItsDocument) {
  // bash's process substitution: a pipe whose reader is already there, as in --json=>(jq .).
  const CliResult r = run_shell("'" + binary_path() + "' list --json=>(cat) > /dev/null");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  const auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out.substr(0, 300);
  EXPECT_EQ(doc["report"]["command"], "list");
  const CliResult html = run_shell("'" + binary_path() + "' lock --backend model -q --html=>(cat) > /dev/null");
  EXPECT_EQ(html.exit_code, 0) << shown(html);
  EXPECT_TRUE(contains(html.out, "</html>"));
}

}  // namespace
}  // namespace cudasync::test
