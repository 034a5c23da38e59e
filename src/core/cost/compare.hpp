#pragma once
// A model beside a sweep: what a bench adds to its section so that every cell it measured shows
// the model's prediction, the ratio and its terms, and the primitives behind them (the three
// benches: lockfree-barrier, lock, cg-reduce).
//
//   tables  model-formulas  each row's terms and how each is computed (also on the model: the structure)
//           model           row, column, predicted, measured, ratio (measured / predicted), within +-20 %
//           terms-<row>     per row: a column per term (ns), a row per column of the sweep
//           primitives      every primitive measured for the model, its median (ns)
//   facts   model-cells, model-within (how many cells were predicted within the tolerance)
//
// Whether a cell is within the tolerance is a measured fact, not a check: a prediction that misses
// names a term the model lacks, which is a finding about the hardware, not a fault of the run;
// the checks of a bench stay about correctness (counts, sums, deadlines), so its exit code does too.
#include <optional>
#include <string>
#include <vector>

#include "core/cost/model.hpp"
#include "core/report/report.hpp"

namespace cudasync::cost {

inline constexpr double kTolerance = 0.2;  // within +-20 % of the prediction

struct Cell {
  std::string row, row_title;
  std::string column, column_title;
  Prediction predicted;             // ns per event (a barrier, an update, a call)
  std::optional<double> measured;   // the sweep's median, in the table's unit
  double bytes = 0.0;               // > 0: the unit is GB/s, and the prediction is bytes / ns
  double predicted_value() const;   // ns, or GB/s; NaN while a primitive is missing
  std::optional<double> ratio() const;  // measured / predicted
};

struct ModelTable {
  std::string unit;      // "ns per barrier", "GB/s"
  report::Format format = report::Format::ns;
  double tolerance = kTolerance;
};

bool within(double ratio, double tolerance);

struct Agreement {
  int compared = 0;  // cells with a prediction and a measurement
  int within = 0;
  std::vector<std::string> outside;  // "xf-lock @ 1056 blocks: 1.31"
};
Agreement agreement(const std::vector<Cell>& cells, double tolerance);

// Adds the tables and facts above to `s`. On the model (gpu false) every number is NeedsGpu and
// the tables show the model's structure: its rows, terms and formulas.
void add_model(report::Section& s, const std::vector<Cell>& cells, const ModelTable& t, const std::vector<Need>& needs,
               const Primitives& p, bool gpu);

}  // namespace cudasync::cost
