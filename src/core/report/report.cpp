#include "core/report/report.hpp"

#include <algorithm>
#include <stdexcept>

namespace cudasync::report {

const char* to_string(RowMark mark) {
  switch (mark) {
    case RowMark::none: return "none";
    case RowMark::inactive: return "inactive";
    case RowMark::kept_own: return "kept_own";
    case RowMark::undefined_src: return "undefined_source";
    case RowMark::mismatch: return "mismatch";
  }
  return "none";
}

void LaneTable::add_row(std::vector<Value> values, RowMark mark) {
  if (values.size() != columns.size()) {
    throw std::logic_error("table '" + id + "': row has " + std::to_string(values.size()) +
                           " values for " + std::to_string(columns.size()) + " columns");
  }
  rows.push_back(std::move(values));
  marks.push_back(mark);
}

double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

Measurement measured(const std::string& name, const std::string& unit, std::vector<double> samples, bool gpu,
                     const std::string& note) {
  Measurement m;
  m.name = name;
  m.unit = unit;
  m.samples = std::move(samples);
  m.needs_gpu = !gpu && m.samples.empty();
  m.note = note;
  return m;
}

Check model_agreement(const std::string& what, bool passed, const std::string& detail) {
  return {"GPU agrees with the reference model: " + what, passed, detail};
}

double Measurement::median() const { return report::median(samples); }
double Measurement::min() const {
  return samples.empty() ? 0.0 : *std::min_element(samples.begin(), samples.end());
}
double Measurement::max() const {
  return samples.empty() ? 0.0 : *std::max_element(samples.begin(), samples.end());
}

std::size_t Report::checks_passed() const {
  std::size_t n = 0;
  for (const auto& s : sections)
    for (const auto& c : s.checks) n += c.passed ? 1 : 0;
  return n;
}
std::size_t Report::checks_failed() const {
  std::size_t n = 0;
  for (const auto& s : sections)
    for (const auto& c : s.checks) n += c.passed ? 0 : 1;
  return n;
}

}  // namespace cudasync::report
