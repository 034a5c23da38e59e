// cudasync bench: results found by id in each lesson's --bench document (a core/sweep section's
// "median" and "vs-<baseline>" tables, or a "cost" section's measurements), the table the command
// emits, the files it writes only where --out says (never over one without --force), and README's
// Results section: its table has the shape the command emits.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "commands/bench_results.hpp"
#include "core/report/json_renderer.hpp"
#include "core/sweep/sweep.hpp"
#include "support/cli_expect.hpp"

using namespace cudasync;
using commands::BenchRow;

namespace {

// A lesson's bench document as core builds it: a sweep of two barriers at two grid sizes, the
// baseline grid.sync(), and a cost section with one measurement.
nlohmann::ordered_json sweep_document(bool gpu) {
  sweep::Sweep s("bench", "ns per barrier", report::Format::ns, sweep::Better::lower);
  s.rows("barrier", {{"grid-sync", "grid.sync()"}, {"own", "own barrier"}}).baseline("grid-sync");
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

std::string table_head_of(const std::string& markdown_text, const std::string& after_heading) {
  std::istringstream in(markdown_text);
  std::string line, head;
  bool in_section = after_heading.empty();
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == after_heading;
    if (!in_section || line.rfind("|", 0) != 0) continue;
    head += line + "\n";
    if (line.rfind("|---", 0) == 0) return head;
  }
  return head;
}

// The rows of the first table after `heading` (head and separator left out).
std::vector<std::string> table_rows(const std::string& markdown_text, const std::string& heading) {
  std::istringstream in(markdown_text);
  std::string line;
  bool in_section = false, in_table = false;
  std::vector<std::string> rows;
  int head_lines = 0;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (in_table) break;
      in_section = line == heading;
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("|", 0) == 0) {
      in_table = true;
      if (head_lines++ >= 2) rows.push_back(line);
    } else if (in_table) {
      break;
    }
  }
  return rows;
}

// "| a | b \| c | d |" -> 3 cells ("\|" is a bar inside a cell).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (row[i] == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  for (auto& c : out) {
    c.erase(0, c.find_first_not_of(' '));
    c.erase(c.find_last_not_of(' ') + 1);
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
  EXPECT_EQ(own.at, "blocks 132");
  EXPECT_EQ(own.baseline, "grid.sync()");
  ASSERT_TRUE(own.ratio.has_value());
  EXPECT_DOUBLE_EQ(*own.ratio, 0.5);
  EXPECT_DOUBLE_EQ(std::get<double>(own.median), 500.0);
  EXPECT_EQ(own.format, report::Format::ns);
  EXPECT_DOUBLE_EQ(*rows[0].ratio, 1.0);  // the baseline against itself
  EXPECT_EQ(rows[3].at, "blocks 264");
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
  const std::string table = commands::results_table(rows);
  EXPECT_NE(table.find("| lockfree-barrier | bench | own barrier | blocks 132 | needs a GPU | grid.sync() |  |"),
            std::string::npos)
      << table;
}

TEST(BenchRows, TheTableHasOneRowOfSevenCellsPerResult) {
  const auto rows = commands::bench_rows("lockfree-barrier", sweep_document(true));
  const std::string table = commands::results_table(rows);
  EXPECT_EQ(table.rfind(commands::results_table_head(), 0), 0u);
  std::istringstream in(table);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    EXPECT_EQ(cells(line).size(), 7u) << line;
    ++n;
  }
  EXPECT_EQ(n, 2 + 5);
  EXPECT_NE(table.find("| 500.0 ns | grid.sync() | 0.500 x |"), std::string::npos) << table;
}

TEST(BenchRows, FileStemFromTheGpuName) {
  EXPECT_EQ(commands::results_file_stem("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(commands::results_file_stem("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(commands::results_file_stem(""), "reference-model");
}

TEST(BenchCli, OnTheModelItRunsEveryLessonAndWritesNothingWithoutOut) {
  const std::string cwd = scratch_dir();
  const auto r = test::run_shell("cd '" + cwd + "' && '" + test::binary_path() + "' bench --json");
  EXPECT_EQ(r.exit_code, 0) << test::shown(r);
  EXPECT_TRUE(std::filesystem::is_empty(cwd)) << "bench wrote into the working directory without --out";
  std::filesystem::remove_all(cwd);
  const auto doc = test::valid_document("bench --json", 0);
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  const auto& lessons = doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"];
  const auto listed = test::run_cli("list --json");
  const auto list_rows = nlohmann::json::parse(listed.out)["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"];
  EXPECT_EQ(lessons.size(), list_rows.size()) << "every lesson runs its --bench";
  for (const auto& l : lessons) EXPECT_EQ(l["status"], "ok") << l.dump();
}

TEST(BenchCli, OutWritesMarkdownAndJsonAndNeverOverwritesWithoutForce) {
  const std::string dir = scratch_dir() + "/results";
  const auto first = test::run_cli("bench --out '" + dir + "'");
  ASSERT_EQ(first.exit_code, 0) << test::shown(first);
  const std::string stem = dir + "/" + commands::results_file_stem(probe_gpus().devices.empty() ? "" : probe_gpus().devices[0].name);
  const std::string md = test::read_file(stem + ".md");
  EXPECT_EQ(table_head_of(md, "## Results"), commands::results_table_head());
  for (const char* line : {"| GPU |", "| driver |", "| CUDA runtime |", "| date |"})
    EXPECT_NE(md.find(line), std::string::npos) << line;
  const auto j = nlohmann::json::parse(test::read_file(stem + ".json"));
  for (const char* key : {"date", "device", "driver", "runtime", "lessons", "results"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["results"].size(), table_rows(md, "## Results").size());

  const auto again = test::run_cli("bench --out '" + dir + "'");
  EXPECT_EQ(again.exit_code, 2) << test::shown(again);
  EXPECT_NE(again.err.find("exists"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(test::read_file(stem + ".md"), md) << "the refused run must not touch the file";
  const auto forced = test::run_cli("bench --out '" + dir + "' --force");
  EXPECT_EQ(forced.exit_code, 0) << test::shown(forced);
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST(BenchCli, AnUnknownLessonIsAUsageError) {
  const auto r = test::run_cli("bench --lesson no-such-lesson");
  EXPECT_EQ(r.exit_code, 2) << test::shown(r);
  EXPECT_NE(r.err.find("warp-primitives"), std::string::npos) << "names the lessons: " << r.err;
}

// README's Results section holds the table `cudasync bench --out` writes (a model run until the
// H100 run replaces it): the same head, seven cells a row, lesson ids in the first column.
TEST(BenchReadme, TheResultsTableHasTheShapeTheCommandEmits) {
  const std::string readme = test::read_file(test::source_dir() + "/README.md");
  ASSERT_NE(readme.find("\n## Results\n"), std::string::npos) << "README has no Results section";
  EXPECT_EQ(table_head_of(readme, "## Results"), commands::results_table_head());
  const auto rows = table_rows(readme, "## Results");
  ASSERT_FALSE(rows.empty()) << "README's Results table has no rows";
  const auto spec = nlohmann::json::parse(test::run_cli("--cli-spec").out);
  std::vector<std::string> lesson_ids;  // every lesson text (explain's choices), built in or not
  for (const auto& c : spec["commands"])
    if (c["name"] == "explain")
      for (const auto& o : c["options"])
        if (o["positional"].get<bool>()) lesson_ids = o["values"].get<std::vector<std::string>>();
  for (const auto& row : rows) {
    const auto c = cells(row);
    ASSERT_EQ(c.size(), 7u) << row;
    EXPECT_NE(std::find(lesson_ids.begin(), lesson_ids.end(), c[0]), lesson_ids.end()) << "not a lesson: " << row;
  }
}
