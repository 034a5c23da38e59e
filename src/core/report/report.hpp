#pragma once
// The Report: what one run of a technique found, as plain data. Techniques fill it; renderers
// (text, JSON) print it; nothing here knows about CUDA, terminals or JSON.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cudasync::report {

// A cell is a number, a string, or "undefined" (a lane outside the mask has no defined value:
// it is shown as a dash and written as JSON null, never as a number).
struct Undefined {};
using Value = std::variant<Undefined, std::int64_t, double, std::string>;

// Why a row (a lane) is drawn differently. JSON writes these names; the text renderer colours them.
enum class RowMark {
  none,
  inactive,       // lane did not take part (outside the mask or beyond the block): value undefined
  kept_own,       // source lane fell outside the lane's width segment: it kept its own value
  undefined_src,  // source lane was inactive, so CUDA leaves the value undefined
  mismatch,       // GPU and reference model disagree on this lane
};
const char* to_string(RowMark mark);

struct Column {
  std::string key;    // JSON key, snake_case
  std::string title;  // text header
  std::string format; // "" (plain), "hex32" or "bin32" for 32-bit masks
};

// Rows are lanes (or warps, blocks); one Value per column.
struct LaneTable {
  std::string id;
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;
  std::vector<RowMark> marks;   // one per row
  std::vector<std::string> legend;  // lines printed under the table
  // Draw lanes across the page (as the seed prints them) instead of one row per lane.
  bool lanes_across = false;

  void add_row(std::vector<Value> values, RowMark mark = RowMark::none);
};

// A measured quantity. Where only a GPU can measure it and the run had none, `samples` is empty
// and `needs_gpu` is true: the renderers say so instead of printing a number.
struct Measurement {
  std::string name;
  std::string unit;
  std::vector<double> samples;
  bool needs_gpu = false;
  std::string note;

  std::size_t repetitions() const { return samples.size(); }
  double median() const;
  double min() const;
  double max() const;
};

struct Check {
  std::string name;
  bool passed = false;
  std::string detail;
};

// The median of samples (the mean of the middle two for an even count); 0 for none. The one
// definition every lesson and Measurement::median() use, so a table and a measurement agree.
double median(std::vector<double> samples);

// A measurement from a run: `gpu` says whether the run had a GPU; without one (and no samples)
// the renderers print "needs a GPU" instead of a number.
Measurement measured(const std::string& name, const std::string& unit, std::vector<double> samples, bool gpu,
                     const std::string& note);

// The check every lesson makes of a GPU result: "GPU agrees with the reference model: <what>".
Check model_agreement(const std::string& what, bool passed, const std::string& detail);

// A single scalar shown as "name: value" (a ballot result, a sum).
struct Fact {
  std::string name;
  Value value;
  std::string format;  // as Column::format
  std::string note;
};

struct Section {
  std::string id;     // stable key, e.g. "shfl_down"
  std::string title;
  std::vector<std::string> paragraphs;  // short explanation printed above the tables
  std::vector<Fact> facts;
  std::vector<LaneTable> tables;
  std::vector<Measurement> measurements;
  std::vector<Check> checks;
  std::vector<std::string> notes;
};

struct Waiver {
  std::string part;
  std::string reason;
};

struct Report {
  std::string technique;
  std::string title;
  std::vector<Section> sections;
  std::vector<Waiver> waived;
  // A text shown whole, as written (a lesson for `explain`); most reports leave it empty.
  std::string document;

  std::size_t checks_passed() const;
  std::size_t checks_failed() const;
  bool has_checks() const { return checks_passed() + checks_failed() > 0; }
  // Every part asked for was waived on this GPU: the run exits 77.
  bool fully_waived() const { return sections.empty() && !waived.empty(); }
};

}  // namespace cudasync::report
