#include "core/cost/compare.hpp"

#include <algorithm>
#include <cmath>

#include "core/report/text_format.hpp"

namespace cudasync::cost {

using report::Format;
using report::Value;

namespace {

// A model number: NeedsGpu on the model, Undefined where a GPU could not measure it.
Value number(double v, bool gpu) {
  if (!std::isnan(v)) return v;
  return gpu ? Value{report::Undefined{}} : Value{report::NeedsGpu{}};
}

std::vector<std::string> term_columns(const std::vector<Cell>& cells) {
  std::vector<std::string> ids;
  for (const Cell& c : cells)
    for (const Term& t : c.predicted.terms)
      if (std::find(ids.begin(), ids.end(), t.id) == ids.end()) ids.push_back(t.id);
  return ids;
}

report::Table formulas(const std::vector<Cell>& cells) {
  report::Table t("model-formulas", "the model: each row's terms (at its last column)");
  t.column("row", "row").column("at", "at").column("formula", "terms: how each is computed");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Cell& c = cells[i];
    if (i + 1 < cells.size() && cells[i + 1].row == c.row) continue;  // each row's last cell
    t.row({{"row", c.row}, {"at", c.column_title}, {"formula", c.predicted.terms_text()}});
  }
  t.legend.push_back("each primitive is measured in this run (table primitives);");
  t.legend.push_back("the terms' values are in the tables terms-<row>");
  return t;
}

}  // namespace

double Cell::predicted_value() const {
  const double ns = predicted.ns();
  if (bytes <= 0.0) return ns;
  return ns > 0.0 ? bytes / ns : NAN;  // bytes per ns = GB/s
}

std::optional<double> Cell::ratio() const {
  const double p = predicted_value();
  if (!measured || std::isnan(p) || p <= 0.0) return std::nullopt;
  return *measured / p;
}

bool within(double ratio, double tolerance) { return std::fabs(ratio - 1.0) <= tolerance + 1e-12; }

Agreement agreement(const std::vector<Cell>& cells, double tolerance) {
  Agreement a;
  for (const Cell& c : cells) {
    const auto r = c.ratio();
    if (!r) continue;
    ++a.compared;
    if (within(*r, tolerance)) ++a.within;
    else a.outside.push_back(c.row + " @ " + c.column_title + ": " + report::fixed(*r, 2));
  }
  return a;
}

void add_model(report::Section& s, const std::vector<Cell>& cells, const ModelTable& spec, const std::vector<Need>& needs,
               const Primitives& p, bool gpu) {
  const std::string tol = report::fixed(100.0 * spec.tolerance, 0) + " %";
  s.add(formulas(cells));

  report::Table model("model", "the model beside the measurement, " + spec.unit);
  model.column("row", "row")
      .column("at", "at")
      .column("predicted", "predicted", spec.format)
      .column("measured", "measured", spec.format)
      .column("ratio", "ratio", Format::ratio)
      .column("within", "+-" + tol);
  for (const Cell& c : cells) {
    const auto r = c.ratio();
    const Value measured = c.measured ? Value{*c.measured} : number(NAN, gpu);
    model.row({{"row", c.row},
               {"at", c.column_title},
               {"predicted", number(c.predicted_value(), gpu)},
               {"measured", measured},
               {"ratio", r ? Value{*r} : number(NAN, gpu)},
               {"within", r ? Value{within(*r, spec.tolerance)} : number(NAN, gpu)}});
  }
  model.legend.push_back("predicted: the sum of the row's terms (tables terms-<row>)" +
                         std::string(spec.format == Format::gbps ? ", as bytes / time" : ""));
  model.legend.push_back("measured: the sweep's median; ratio: measured / predicted");
  model.legend.push_back("+-" + tol + ": the ratio between " + report::fixed(1.0 - spec.tolerance, 2) + " and " +
                         report::fixed(1.0 + spec.tolerance, 2));
  s.add(std::move(model));

  // The terms, one table per row (each row has its own terms, and a table of every term would not
  // fit 80 columns): "terms-<row>", a column per term, a row per column of the sweep.
  for (std::size_t i = 0; i < cells.size();) {
    const std::string& row = cells[i].row;
    std::size_t end = i;
    while (end < cells.size() && cells[end].row == row) ++end;
    const std::vector<Cell> mine(cells.begin() + static_cast<std::ptrdiff_t>(i), cells.begin() + static_cast<std::ptrdiff_t>(end));
    report::Table terms("terms-" + row, cells[i].row_title + ": the terms, ns" +
                                           std::string(spec.format == Format::gbps ? " per call" : ""));
    terms.column("at", "at");
    const std::vector<std::string> ids = term_columns(mine);
    for (const std::string& id : ids) terms.column(id, id, Format::ns);
    for (const Cell& c : mine) {
      std::vector<std::pair<std::string, Value>> r{{"at", c.column_title}};
      for (const std::string& id : ids) {
        const Term* t = c.predicted.term(id);
        r.emplace_back(id, t ? number(t->ns, gpu) : Value{report::Undefined{}});
      }
      terms.row(r);
    }
    s.add(std::move(terms));
    i = end;
  }

  report::Table prims("primitives", "the primitives, measured in this run (median ns)");
  prims.column("primitive", "primitive").column("at", "at").column("ns", "ns", Format::ns).column("what", "what");
  for (const Need& n : needs) {
    const std::string why = p.skipped(n.key);
    if (!why.empty()) prims.legend.push_back(n.key.id + " " + n.key.at + ": not measured: " + why);
    prims.row({{"primitive", n.key.id}, {"at", n.key.at}, {"ns", number(p.ns(n.key), gpu)}, {"what", n.title}});
  }
  s.add(std::move(prims));

  const Agreement a = agreement(cells, spec.tolerance);
  if (gpu) {
    s.fact("model-cells", "cells predicted and measured", static_cast<std::int64_t>(a.compared), Format::count);
    s.fact("model-within", "of them within +-" + tol, static_cast<std::int64_t>(a.within),
           Format::count);
    if (!a.outside.empty()) {
      std::string l;
      for (const auto& o : a.outside) l += (l.empty() ? "" : "; ") + o;
      s.note("outside " + tol + " (measured / predicted): " + l);
    }
  } else {
    s.fact("model-cells", "cells predicted and measured", report::NeedsGpu{}, Format::count);
    s.fact("model-within", "of them within +-" + tol, report::NeedsGpu{}, Format::count);
  }
}

}  // namespace cudasync::cost
