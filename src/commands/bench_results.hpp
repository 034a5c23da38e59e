#pragma once
// `cudasync bench` as pure functions: from each lesson's `--bench --json` document to one table of
// results, and that table as Markdown and JSON (docs/results/<gpu-name>.md and .json).
//
// The results are found by id, whatever shape a lesson's bench has (docs/lesson-shape.md):
//   a section with tables "median" and "vs-<baseline>" (core/sweep): one row per technique and
//     point, its median and its ratio to the baseline (NVIDIA's peer) measured in the same run;
//   a section "cost" without a sweep: one row per measurement, its median (no declared peer).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/report.hpp"

namespace cudasync::commands {

struct BenchRow {
  std::string lesson;
  std::string section;    // the section id: "bench", "cost"
  std::string technique;  // the row's title
  std::string at;         // "blocks 132" for a sweep's point, "" for a measurement
  report::Value median;   // a number, or NeedsGpu without a GPU
  report::Format format = report::Format::plain;
  std::string baseline;            // the peer the ratio divides by, "" for none
  std::optional<double> ratio;     // median / the baseline's median at the same point
};

// The rows of one lesson's bench document (`cudasync <lesson> --bench --json`).
std::vector<BenchRow> bench_rows(const std::string& lesson, const nlohmann::ordered_json& doc);

struct BenchLesson {
  std::string lesson;
  int exit_code = 0;
  std::string status;  // "ok", "checks failed", "waived", "no GPU", "failed", "timeout"
  double seconds = 0;
  std::string detail;  // what went wrong, when it did
};

struct BenchRun {
  std::string date;                   // "2026-11-24 00:10 UTC"
  std::string command;                // the command line
  std::string gpu;                    // "NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs)", or "none (reference model)"
  nlohmann::ordered_json device;      // the lessons' device block (null on the model)
  std::string driver;                 // "580.65.06, CUDA 13.0"
  std::string runtime;                // "CUDA 13.0"
  bool measured = false;              // ran on a GPU
  std::vector<BenchLesson> lessons;
  std::vector<BenchRow> rows;
};

// "nvidia-h100-80gb-hbm3"; "reference-model" without a GPU name.
std::string results_file_stem(const std::string& gpu_name);

// The header and separator lines of the results table, as results_markdown() writes them.
std::string results_table_head();
// The results table alone (head and rows): what README's Results section holds.
std::string results_table(const std::vector<BenchRow>& rows);
// The whole .md file: the run (GPU, driver, CUDA, date, command), the table, the lessons' status.
std::string results_markdown(const BenchRun& run);
nlohmann::ordered_json results_json(const BenchRun& run);

// The report `cudasync bench` prints (and gives with --json): sections "run", "lessons", "results".
report::Report bench_report(const BenchRun& run, const std::vector<std::string>& written);

}  // namespace cudasync::commands
