#pragma once
// `cudasync bench` as pure functions: from each lesson's `--bench --json` document to its results,
// grouped into one table per benchmark, as Markdown and JSON (docs/results/<gpu-name>.md and .json)
// and as the report the command prints.
//
// The results are found by id, whatever shape a lesson's bench has (docs/lesson-shape.md):
//   a section with tables "median" and "vs-<baseline>" (core/sweep): per technique and point, the
//     median and the ratio to the baseline (NVIDIA's peer) measured in the same run;
//   a section "cost" without a sweep: per measurement, its median (no declared peer).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/report.hpp"

namespace cudasync::commands {

struct BenchRow {
  std::string lesson;
  std::string section;    // the section id: "bench", "bench-float", "cost"
  std::string technique;  // the row's title
  std::string axis;       // the sweep's column axis ("size", "blocks"); "" for a measurement
  std::string point;      // the column's title ("2^20", "132"); "" for a measurement
  report::Value median;   // a number, or NeedsGpu without a GPU
  report::Format format = report::Format::plain;
  std::string baseline;         // the peer's title, "" for none
  bool is_baseline = false;     // this row is the peer itself
  std::optional<double> ratio;  // median / the peer's median at the same point
};

// The rows of one lesson's bench document (`cudasync <lesson> --bench --json`), in its order.
std::vector<BenchRow> bench_rows(const std::string& lesson, const nlohmann::ordered_json& doc);

// One benchmark of one lesson: its techniques by its points.
struct BenchTable {
  std::string lesson, section, axis, baseline;
  std::vector<std::string> points;      // in order; empty for a cost section
  std::vector<std::string> techniques;  // in order, the peer among them
  std::vector<const BenchRow*> cells;   // techniques x max(1, points), row-major; nullptr where absent
  const BenchRow* cell(std::size_t technique, std::size_t point) const;
};
std::vector<BenchTable> bench_tables(const std::vector<BenchRow>& rows);

struct BenchLesson {
  std::string lesson;
  int exit_code = 0;
  std::string status;  // "ok", "checks failed", "waived", "no GPU", "failed", "timeout"
  double seconds = 0;
  std::string detail;  // what went wrong, when it did
};

struct BenchRun {
  std::string date;               // "2026-11-24 00:10 UTC"
  std::string command;            // the command line
  std::string gpu;                // "NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs)", or "none (reference model)"
  nlohmann::ordered_json device;  // the lessons' device block (null on the model)
  std::string driver;             // "580.65.06, CUDA 13.0"
  std::string runtime;            // "CUDA 13.0"
  bool measured = false;          // ran on a GPU
  std::vector<BenchLesson> lessons;
  std::vector<BenchRow> rows;
};

// "nvidia-h100-80gb-hbm3"; "reference-model" without a GPU name.
std::string results_file_stem(const std::string& gpu_name);

// The body of the Results section, as README holds it: per benchmark a heading
// ("### lock: bench") and a table, techniques by points, the peer's row its medians and every other
// row its ratio to the peer at that point; a cost section's table is its medians.
std::string results_markdown_tables(const std::vector<BenchRow>& rows);
// The whole .md file: the run (GPU, driver, CUDA, date, command), the Results, the lessons' status.
std::string results_markdown(const BenchRun& run);
// Every row, every point: lesson, benchmark, technique, axis, point, median, unit, vs, ratio.
nlohmann::ordered_json results_json(const BenchRun& run);

// The report `cudasync bench` prints (and gives with --json): sections "run", "lessons", "results".
report::Report bench_report(const BenchRun& run, const std::vector<std::string>& written);

}  // namespace cudasync::commands
