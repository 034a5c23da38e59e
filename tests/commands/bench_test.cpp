// cudasync bench: results found by id in each lesson's --bench document (a core/sweep section's
// "median" and "vs-<baseline>" tables, or a "cost" section's measurements), the table the command
// emits, the files it writes only where --out says (never over one without --force), and
// docs/results/, which the README's Results section links: each GPU's file has the shape the command
// emits.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "commands/bench_results.hpp"
#include "core/report/json_renderer.hpp"
#include "core/sweep/sweep.hpp"
#include "support/cli_expect.hpp"

using namespace cudasync;
using commands::BenchRow;

namespace {

// A lesson's bench document as core builds it: a sweep of two barriers at two grid sizes, the
// baseline grid.sync() (and a further ratio table against the other row, which bench leaves to
// the .json of the lesson), and a cost section with one measurement.
nlohmann::ordered_json sweep_document(bool gpu) {
  sweep::Sweep s("bench", "ns per barrier", report::Format::ns, sweep::Better::lower);
  s.rows("barrier", {{"grid-sync", "grid.sync()"}, {"own", "own barrier"}}).baseline("grid-sync").versus("own");
  s.columns("blocks", {{"b132", "132"}, {"b264", "264"}});
  s.run(gpu, [](std::size_t row, std::size_t col) {
    const double base = col == 0 ? 1000.0 : 2000.0;
    return std::vector<double>{row == 0 ? base : base * 0.5, row == 0 ? base : base * 0.5};
  });
  report::Report r;
  r.command = "lockfree-barrier";
  r.title = "t";
  report::Section bench("bench", "bench");
  s.add_to(bench, gpu);
  r.sections.push_back(std::move(bench));
  report::Section cost("cost", "cost");
  cost.add(report::measured("shfl-xor", "__shfl_xor_sync", report::Format::cycles, gpu ? std::vector<double>{31, 33, 32}
                                                                                        : std::vector<double>{},
                            gpu));
  r.sections.push_back(std::move(cost));
  return report::document_json(r, report::RunMeta{});
}

// "| bar.sync 1\\|2 | 0.9 x |" -> "| bar.sync 1\\|2 |": a row up to its first unescaped bar.
std::string first_cell(const std::string& row) {
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\') ++i;
    else if (row[i] == '|') return row.substr(0, i + 1);
  }
  return row;
}

// The skeleton of a Results section: its "### " headings, table heads and each row's first cell;
// the figures left out, so a model run and a GPU run of the same lessons have the same skeleton.
std::string results_skeleton(const std::string& markdown_text, const std::string& heading = "## Results") {
  std::istringstream in(markdown_text);
  std::string line, out;
  bool in_section = false;
  bool head = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (in_section) break;
      in_section = line == heading;
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("### ", 0) == 0) {
      out += line + "\n";
      head = true;
    } else if (line.rfind("|", 0) == 0) {
      if (head || line.rfind("|---", 0) == 0) out += line + "\n";
      else out += first_cell(line) + "\n";
      head = false;
    }
  }
  return out;
}

std::string scratch_dir() {
  char tmpl[] = "/tmp/cudasync_bench_test_XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d ? d : "/tmp";
}

}  // namespace

TEST(BenchRows, ASweepGivesEachTechniqueBesideItsPeerAtEachPoint) {
  const auto rows = commands::bench_rows("lockfree-barrier", sweep_document(true));
  ASSERT_EQ(rows.size(), 5u);  // 2 barriers x 2 points, and the cost measurement
  const BenchRow& own = rows[2];
  EXPECT_EQ(own.technique, "own barrier");
  EXPECT_EQ(own.axis, "blocks");
  EXPECT_EQ(own.point, "132");
  EXPECT_FALSE(own.is_baseline);
  EXPECT_TRUE(rows[0].is_baseline);
  EXPECT_EQ(own.baseline, "grid.sync()");
  ASSERT_TRUE(own.ratio.has_value());
  EXPECT_DOUBLE_EQ(*own.ratio, 0.5);
  EXPECT_DOUBLE_EQ(std::get<double>(own.median), 500.0);
  EXPECT_EQ(own.format, report::Format::ns);
  EXPECT_DOUBLE_EQ(*rows[0].ratio, 1.0);  // the baseline against itself
  EXPECT_EQ(rows[3].point, "264");
  const BenchRow& cost = rows[4];
  EXPECT_EQ(cost.section, "cost");
  EXPECT_EQ(cost.technique, "__shfl_xor_sync");
  EXPECT_DOUBLE_EQ(std::get<double>(cost.median), 32.0);
  EXPECT_FALSE(cost.ratio.has_value());
  EXPECT_EQ(cost.baseline, "");
}

TEST(BenchRows, WithoutAGpuEveryFigureNeedsOne) {
  const auto rows = commands::bench_rows("lockfree-barrier", sweep_document(false));
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& r : rows) {
    EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(r.median)) << r.technique;
    EXPECT_FALSE(r.ratio.has_value()) << r.technique;
  }
  const std::string md = commands::results_markdown_tables(rows);
  EXPECT_NE(md.find("| own barrier | needs a GPU | needs a GPU |"), std::string::npos) << md;
}

TEST(BenchRows, OneTablePerBenchmarkThePeersMediansAndEveryOtherRowsRatio) {
  const auto rows = commands::bench_rows("lockfree-barrier", sweep_document(true));
  const auto tables = commands::bench_tables(rows);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].points, (std::vector<std::string>{"132", "264"}));
  EXPECT_EQ(tables[0].techniques, (std::vector<std::string>{"grid.sync()", "own barrier"}));
  EXPECT_TRUE(tables[1].points.empty());
  const std::string md = commands::results_markdown_tables(rows);
  for (const char* line : {"### lockfree-barrier: bench\n", "| technique | 132 | 264 |\n", "|---|---:|---:|\n",
                           "| grid.sync() | 1000.0 ns | 2000.0 ns |\n", "| own barrier | 0.500 x | 0.500 x |\n",
                           "### lockfree-barrier: cost\n", "| technique | median |\n", "| __shfl_xor_sync | 32.0 cycles |\n"})
    EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md;
}

TEST(BenchRows, FileStemFromTheGpuName) {
  EXPECT_EQ(commands::results_file_stem("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(commands::results_file_stem("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(commands::results_file_stem(""), "reference-model");
}

TEST(BenchCli, OnTheModelItRunsEveryLessonAndWritesNothingWithoutOut) {
  const std::string cwd = scratch_dir();
  const auto r = test::run_shell("cd '" + cwd + "' && '" + test::binary_path() + "' bench --backend model --json");
  EXPECT_EQ(r.exit_code, 0) << test::shown(r);
  EXPECT_TRUE(std::filesystem::is_empty(cwd)) << "bench wrote into the working directory without --out";
  std::filesystem::remove_all(cwd);
  const auto doc = test::valid_document("bench --backend model --json", 0);
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  const auto& lessons = doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"];
  const auto listed = test::run_cli("list --json");
  const auto list_rows = nlohmann::json::parse(listed.out)["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"];
  EXPECT_EQ(lessons.size(), list_rows.size()) << "every lesson runs its --bench";
  for (const auto& l : lessons) EXPECT_EQ(l["status"], "ok") << l.dump();
}

TEST(BenchCli, OutWritesMarkdownAndJsonAndNeverOverwritesWithoutForce) {
  const std::string dir = scratch_dir() + "/results";
  const auto first = test::run_cli("bench --backend model --out '" + dir + "'");
  ASSERT_EQ(first.exit_code, 0) << test::shown(first);
  const std::string stem = dir + "/" + commands::results_file_stem(probe_gpus().devices.empty() ? "" : probe_gpus().devices[0].name);
  const std::string md = test::read_file(stem + ".md");
  EXPECT_NE(results_skeleton(md).find("### warp-primitives: cost\n| technique | median |\n|---|---:|\n"),
            std::string::npos)
      << md;
  for (const char* line : {"| GPU |", "| driver |", "| CUDA runtime |", "| date |"})
    EXPECT_NE(md.find(line), std::string::npos) << line;
  const auto j = nlohmann::json::parse(test::read_file(stem + ".json"));
  for (const char* key : {"date", "device", "driver", "runtime", "lessons", "results"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_FALSE(j["results"].empty());
  for (const auto& r : j["results"])
    for (const char* key : {"lesson", "benchmark", "technique", "axis", "point", "median", "unit", "vs", "ratio"})
      EXPECT_TRUE(r.contains(key)) << key;

  const auto again = test::run_cli("bench --backend model --out '" + dir + "'");
  EXPECT_EQ(again.exit_code, 2) << test::shown(again);
  EXPECT_NE(again.err.find("exists"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(test::read_file(stem + ".md"), md) << "the refused run must not touch the file";
  const auto forced = test::run_cli("bench --backend model --out '" + dir + "' --force");
  EXPECT_EQ(forced.exit_code, 0) << test::shown(forced);
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST(BenchCli, ADirectoryNameThatIsNotUtf8StillGetsItsJson) {
  // The command line is recorded in the .json: a byte that is not UTF-8 is replaced, not fatal.
  const std::string dir = scratch_dir() + "/x\xc3";
  const auto r = test::run_cli("bench --backend model --lesson warp-primitives --out '" + dir + "'");
  EXPECT_EQ(r.exit_code, 0) << test::shown(r);
  const std::string stem = dir + "/" + commands::results_file_stem(probe_gpus().devices.empty() ? "" : probe_gpus().devices[0].name);
  EXPECT_TRUE(nlohmann::json::accept(test::read_file(stem + ".json"))) << "the .json parses";
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST(BenchCli, AnUnknownLessonIsAUsageError) {
  const auto r = test::run_cli("bench --lesson no-such-lesson");
  EXPECT_EQ(r.exit_code, 2) << test::shown(r);
  EXPECT_NE(r.err.find("warp-primitives"), std::string::npos) << "names the lessons: " << r.err;
}

TEST(BenchCli, ALessonNamedTwiceRunsOnceAndAnUnusableOutSaysWhy) {
  const auto twice = test::run_cli("bench --lesson warp-primitives --lesson warp-primitives --backend model --json");
  EXPECT_EQ(twice.exit_code, 0) << test::shown(twice);
  const auto too_long = test::run_cli("bench --backend model --out " + std::string(300, '9'));
  EXPECT_EQ(too_long.exit_code, 2) << test::shown(too_long);
  EXPECT_NE(too_long.err.find("accepted: a directory that can be written"), std::string::npos) << too_long.err;
}

// Found by fuzzing: an --out that could not be written failed only after every benchmark had run,
// without saying what is accepted. (RLIMIT_FSIZE 0 makes even the folder's first byte fail, for root
// too; SIGXFSZ is ignored so that the write reports EFBIG instead of ending the run; stderr goes
// through a pipe, which the limit does not touch.)
TEST(BenchCli, AnOutThatCannotBeWrittenIsRefusedBeforeAnyBenchmarkRuns) {
  const std::string dir = scratch_dir();
  const auto r = test::run_shell("(trap '' XFSZ; ulimit -f 0; '" + test::binary_path() +
                                 "' bench --backend model --lesson warp-primitives --out '" + dir +
                                 "/results' >/dev/null) 2>&1 | cat");
  EXPECT_EQ(r.exit_code, 2) << test::shown(r);
  EXPECT_NE(r.out.find("--out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("accepted: a directory that can be written"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("--bench (1 of 1)"), std::string::npos) << "a benchmark ran first: " << r.out;
  EXPECT_TRUE(!std::filesystem::exists(dir + "/results") || std::filesystem::is_empty(dir + "/results"))
      << "the probe is removed";
  std::filesystem::remove_all(dir);
}

// A full disk while the results are written: no half file is left, and an earlier run's results
// (--force) are kept as they were. The disk is a 32 KiB tmpfs in a mount namespace of the test's own
// (unshare -rm needs no privileges where user namespaces are allowed); the checks run inside it.
TEST(BenchCli, AFullDiskLeavesNoPartialResultFileAndKeepsTheEarlierOnes) {
  const std::string dir = scratch_dir();
  const std::string bench = "'" + test::binary_path() + "' bench --backend model --lesson warp-primitives";
  const std::string files = "(cd d && sha256sum reference-model.md reference-model.json; ls -A | sort | tr '\\n' ' ')";
  const auto r = test::run_shell(
      "cd '" + dir + "' && mkdir d && unshare -rm bash -c \"mount -t tmpfs -o size=32k tmpfs d || exit 99; " + bench +
      " --out d >/dev/null 2>&1 || exit 98; " + files + " > before; head -c 20480 /dev/zero > d/filler; " + bench +
      " --force --out d >/dev/null 2>err; echo \\$? > code; " + files + " > after; " +
      "head -c 32768 /dev/zero > d/filler2; " + bench + " --out d/sub > /dev/null 2> full; echo \\$? >> code\"");
  if (r.exit_code != 0) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "no tmpfs in a mount namespace here (unshare -rm, mount): " << test::shown(r);
  }
  const auto codes = test::lines_of(test::read_file(dir + "/code"));
  ASSERT_EQ(codes.size(), 2u);
  EXPECT_EQ(codes[0], "2") << test::read_file(dir + "/err");
  EXPECT_NE(test::read_file(dir + "/err").find("No space left on device"), std::string::npos);
  EXPECT_NE(test::read_file(dir + "/err").find("accepted:"), std::string::npos);
  EXPECT_EQ(test::read_file(dir + "/after"),
            test::read_file(dir + "/before").substr(0, test::read_file(dir + "/before").rfind('\n') + 1) +
                "filler reference-model.json reference-model.md ")
      << "the earlier results as they were, and no partial file beside them";
  // A disk already full is refused before the first benchmark.
  const std::string full = test::read_file(dir + "/full");
  EXPECT_EQ(codes[1], "2") << full;
  EXPECT_NE(full.find("accepted: a directory that can be written"), std::string::npos) << full;
  EXPECT_EQ(full.find("--bench (1 of 1)"), std::string::npos) << "a benchmark ran first: " << full;
  std::filesystem::remove_all(dir);
}

TEST(BenchCli, AnEmptyOutIsAUsageError) {
  const auto r = test::run_cli("bench --backend model --out ''");
  EXPECT_EQ(r.exit_code, 2) << test::shown(r);
  EXPECT_NE(r.err.find("--out ''"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("accepted:"), std::string::npos) << r.err;
}

// docs/results/ holds what `cudasync bench --out` wrote on each GPU (the README links it): the same
// "### lesson: benchmark" headings, table heads and techniques, in the same order, as this binary
// emits; only the figures differ. Run the command on the GPU again when a lesson's bench changes.
TEST(BenchResults, EachGpusFileHasTheShapeTheCommandEmits) {
  const std::string dir = scratch_dir();
  const auto r = test::run_cli("bench --backend model --out '" + dir + "'");
  ASSERT_EQ(r.exit_code, 0) << test::shown(r);
  std::string md;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.path().extension() == ".md") md = test::read_file(f.path().string());
  std::filesystem::remove_all(dir);
  const std::string emitted = results_skeleton(md);
  ASSERT_FALSE(emitted.empty()) << md;
  std::size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(test::source_dir() + "/docs/results")) {
    if (f.path().extension() != ".md") continue;
    ++files;
    EXPECT_EQ(results_skeleton(test::read_file(f.path().string())), emitted)
        << f.path() << " no longer has the shape `cudasync bench --out DIR` emits: run it on that GPU again";
  }
  EXPECT_GE(files, 1u) << "docs/results/ holds no GPU's results";
  const std::string readme = test::read_file(test::source_dir() + "/README.md");
  EXPECT_NE(readme.find("docs/results/"), std::string::npos) << "the README links the results";
}
