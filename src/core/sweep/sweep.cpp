#include "core/sweep/sweep.hpp"

#include "core/words/words.hpp"

#include <algorithm>
#include <stdexcept>

namespace cudasync::sweep {

using report::Format;
using report::Value;

Sweep::Sweep(std::string id, std::string title, Format format, Better better)
    : id_(std::move(id)), title_(std::move(title)), format_(format), better_(better) {}

Sweep& Sweep::rows(std::string axis_title, std::vector<Point> points) {
  row_axis_ = std::move(axis_title);
  rows_ = std::move(points);
  cells_.assign(rows_.size() * columns_.size(), Cell{});
  return *this;
}

Sweep& Sweep::columns(std::string axis_title, std::vector<Point> points) {
  column_axis_ = std::move(axis_title);
  columns_ = std::move(points);
  cells_.assign(rows_.size() * columns_.size(), Cell{});
  return *this;
}

std::size_t Sweep::row_index(const std::string& row_id) const {
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].id == row_id) return r;
  throw std::logic_error("sweep '" + id_ + "': no row '" + row_id + "' to compare with");
}

Sweep& Sweep::baseline(const std::string& row_id) {
  baseline_ = row_index(row_id);
  return *this;
}

Sweep& Sweep::versus(const std::string& row_id) {
  versus_.push_back(row_index(row_id));
  return *this;
}

Sweep& Sweep::reference(const std::string& row_id) {
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].id == row_id) {
      reference_.push_back(r);
      return *this;
    }
  throw std::logic_error("sweep '" + id_ + "': no row '" + row_id + "' for a reference row");
}

Sweep::Cell& Sweep::cell(std::size_t row, std::size_t column) { return cells_.at(row * columns_.size() + column); }
const Sweep::Cell& Sweep::cell(std::size_t row, std::size_t column) const {
  return cells_.at(row * columns_.size() + column);
}

void Sweep::run(bool gpu, const std::function<std::vector<double>(std::size_t, std::size_t)>& measure) {
  if (!gpu) return;
  for (std::size_t r = 0; r < rows_.size(); ++r)
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (cell(r, c).skipped.empty()) cell(r, c).samples = measure(r, c);
}

void Sweep::record(std::size_t row, std::size_t column, std::vector<double> samples) {
  cell(row, column).samples = std::move(samples);
}

void Sweep::skip(std::size_t row, std::size_t column, std::string reason) { cell(row, column).skipped = std::move(reason); }

std::optional<double> Sweep::median(std::size_t row, std::size_t column) const {
  const Cell& c = cell(row, column);
  if (c.samples.empty()) return std::nullopt;
  return report::median(c.samples);
}

std::optional<double> Sweep::ratio(std::size_t row, std::size_t column) const {
  if (!baseline_) return std::nullopt;
  return ratio_to(row, column, *baseline_);
}

std::optional<double> Sweep::ratio_to(std::size_t row, std::size_t column, std::size_t reference) const {
  const auto v = median(row, column), base = median(reference, column);
  if (!v || !base || *base == 0.0) return std::nullopt;
  return *v / *base;
}

std::optional<std::size_t> Sweep::best(std::size_t column) const {
  std::optional<std::size_t> b;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    if (r == baseline_ || std::find(reference_.begin(), reference_.end(), r) != reference_.end()) continue;
    const auto v = median(r, column);
    if (!v) continue;
    const bool better = !b || (better_ == Better::lower ? *v < *median(*b, column) : *v > *median(*b, column));
    if (better) b = r;
  }
  return b;
}

Value Sweep::median_value(std::size_t row, std::size_t column, bool gpu) const {
  if (const auto v = median(row, column)) return *v;
  if (!gpu && cell(row, column).skipped.empty()) return report::NeedsGpu{};
  return report::Undefined{};
}

report::Table Sweep::ratio_table(std::size_t reference, bool gpu) const {
  const Point& base = rows_[reference];
  report::Table ratios("vs-" + base.id,
                       words::core(better_ == Better::lower ? "sweep.ratio-title-lower" : "sweep.ratio-title-higher",
                                   {{"row", base.title}}));
  ratios.column("row", row_axis_);
  for (const auto& c : columns_) ratios.column(c.id, c.title, Format::ratio);
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    std::vector<std::pair<std::string, Value>> cells{{"row", rows_[r].title}};
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const auto q = ratio_to(r, c, reference);
      cells.emplace_back(columns_[c].id, q ? Value{*q} : median_value(r, c, gpu));
    }
    ratios.row(cells);
  }
  return ratios;
}

void Sweep::add_to(report::Section& s, bool gpu) const {
  const std::string unit = report::unit_of(format_);
  report::Table medians("median", unit.empty() ? words::core("sweep.median-title", {{"what", title_}, {"axis", column_axis_}})
                                              : words::core("sweep.median-title-unit",
                                                            {{"what", title_}, {"unit", unit}, {"axis", column_axis_}}));
  medians.column("row", row_axis_);
  for (const auto& c : columns_) medians.column(c.id, c.title, format_);
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    std::vector<std::pair<std::string, Value>> cells{{"row", rows_[r].title}};
    for (std::size_t c = 0; c < columns_.size(); ++c) cells.emplace_back(columns_[c].id, median_value(r, c, gpu));
    medians.row(cells);
  }
  std::vector<std::string> points;
  for (const auto& c : columns_) points.push_back(c.id);
  medians.picture = report::bars_picture({"row"}, points, baseline_ ? rows_[*baseline_].title : "");
  for (std::size_t r = 0; r < rows_.size(); ++r)
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (!cell(r, c).skipped.empty()) {
        medians.legend.push_back(rows_[r].title + " @ " + columns_[c].title + ": " + cell(r, c).skipped);
        break;
      }
  s.add(std::move(medians));

  if (baseline_) s.add(ratio_table(*baseline_, gpu));
  for (std::size_t v : versus_) s.add(ratio_table(v, gpu));

  const bool lower = better_ == Better::lower;
  report::Table winners("best", baseline_ ? words::core(lower ? "sweep.fastest-other" : "sweep.highest-other",
                                                        {{"row", row_axis_}, {"baseline", rows_[*baseline_].title},
                                                         {"axis", column_axis_}})
                                          : words::core(lower ? "sweep.fastest" : "sweep.highest",
                                                        {{"row", row_axis_}, {"axis", column_axis_}}));
  winners.column("column", column_axis_).column("best", row_axis_).column("median", unit.empty() ? words::core("sweep.median") : unit, format_);
  if (baseline_) winners.column("ratio", "x " + rows_[*baseline_].title, Format::ratio);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const auto b = best(c);
    if (!b) {
      winners.row({{"column", columns_[c].title}, {"best", gpu ? Value{report::Undefined{}} : Value{report::NeedsGpu{}}}});
      continue;
    }
    std::vector<std::pair<std::string, Value>> cells{
        {"column", columns_[c].title}, {"best", rows_[*b].title}, {"median", *median(*b, c)}};
    if (baseline_) cells.emplace_back("ratio", ratio(*b, c) ? Value{*ratio(*b, c)} : Value{report::Undefined{}});
    winners.row(cells);
  }
  s.add(std::move(winners));

  for (std::size_t r = 0; r < rows_.size(); ++r)
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const Cell& x = cell(r, c);
      auto m = report::measured(rows_[r].id + "-at-" + columns_[c].id, rows_[r].title + " @ " + columns_[c].title,
                                format_, x.samples, gpu, x.skipped.empty() ? "" : words::core("sweep.not-run", {{"why", x.skipped}}));
      if (!x.skipped.empty()) m.needs_gpu = false;
      s.add(std::move(m));
    }
}

}  // namespace cudasync::sweep
