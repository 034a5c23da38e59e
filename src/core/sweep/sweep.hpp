#pragma once
// A benchmark declared by its axes, as nvbench declares them (add_axis), instead of a loop and
// three hand-built tables per lesson: rows are the things compared (locks, barriers, rungs),
// columns the points they are measured at (contention, grid size, n), and one row is the
// baseline every ratio divides by, measured in the same run.
//
//   sweep::Sweep s("bench", "ns per barrier", report::Format::ns, sweep::Better::lower);
//   s.rows("barrier", {{"grid-sync", "grid.sync()"}, {"own", "own"}}).baseline("grid-sync");
//   s.columns("blocks", {{"132", "132"}, {"1056", "1056"}});
//   s.run(ctx.gpu, [&](std::size_t row, std::size_t col) { return time_barrier(row, col); });
//   s.add_to(section, ctx.gpu);   // tables "median", "vs-grid-sync", "best"; a measurement per cell
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"

namespace cudasync::sweep {

enum class Better { lower, higher };

struct Point {
  std::string id;     // kebab-case
  std::string title;  // as a column header or row label
};

class Sweep {
 public:
  Sweep(std::string id, std::string title, report::Format format, Better better);

  Sweep& rows(std::string axis_title, std::vector<Point> points);
  Sweep& columns(std::string axis_title, std::vector<Point> points);
  Sweep& baseline(const std::string& row_id);
  // A row shown beside the others for reference only (a lock that is not correct): measured and
  // divided by the baseline like every row, but never the best.
  Sweep& reference(const std::string& row_id);
  // A further row to compare with (a peer measured in the same run, beside the baseline):
  // add_to() adds a table "vs-<row>" of every median over that row's. Repeatable.
  Sweep& versus(const std::string& row_id);

  // Every cell's samples from `measure`, in row-major order, when `gpu`; without a GPU the cells
  // stay empty and the tables say "needs a GPU".
  void run(bool gpu, const std::function<std::vector<double>(std::size_t row, std::size_t column)>& measure);
  void record(std::size_t row, std::size_t column, std::vector<double> samples);
  void skip(std::size_t row, std::size_t column, std::string reason);  // not run here (a waived cell)

  std::size_t row_count() const { return rows_.size(); }
  std::size_t column_count() const { return columns_.size(); }
  std::optional<double> median(std::size_t row, std::size_t column) const;
  std::optional<double> ratio(std::size_t row, std::size_t column) const;  // median / the baseline's
  // median / the median of row `reference` at the same column.
  std::optional<double> ratio_to(std::size_t row, std::size_t column, std::size_t reference) const;
  // The best row other than the baseline and the reference rows at `column`; nullopt where nothing
  // was measured.
  std::optional<std::size_t> best(std::size_t column) const;

  // Tables "median", "vs-<baseline>", "vs-<row>" for each versus() row, and "best", and one
  // measurement per cell ("<row>-at-<column>") into `s`.
  void add_to(report::Section& s, bool gpu) const;

 private:
  struct Cell {
    std::vector<double> samples;
    std::string skipped;  // why the cell was not run
  };
  Cell& cell(std::size_t row, std::size_t column);
  const Cell& cell(std::size_t row, std::size_t column) const;
  report::Value median_value(std::size_t row, std::size_t column, bool gpu) const;
  std::size_t row_index(const std::string& row_id) const;
  report::Table ratio_table(std::size_t reference, bool gpu) const;

  std::string id_, title_;
  report::Format format_;
  Better better_;
  std::string row_axis_ = "row", column_axis_ = "column";
  std::vector<Point> rows_, columns_;
  std::optional<std::size_t> baseline_;
  std::vector<std::size_t> reference_;
  std::vector<std::size_t> versus_;
  std::vector<Cell> cells_;
};

}  // namespace cudasync::sweep
