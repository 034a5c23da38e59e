#include "core/cost/compare.hpp"

#include <algorithm>
#include <cmath>

#include "core/report/text_format.hpp"
#include "core/words/words.hpp"

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
  report::Table t("model-formulas", words::core("cost.formulas-title"));
  t.column("row", words::core("cost.row")).column("at", words::core("cost.at")).column("formula", words::core("cost.formula"));
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Cell& c = cells[i];
    if (i + 1 < cells.size() && cells[i + 1].row == c.row) continue;  // each row's last cell
    t.row({{"row", c.row}, {"at", c.column_title}, {"formula", c.predicted.terms_text()}});
  }
  t.legend.push_back(words::core("cost.formulas-legend-primitives"));
  t.legend.push_back(words::core("cost.formulas-legend-terms"));
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

  report::Table model("model", words::core("cost.model-title", {{"unit", spec.unit}}));
  model.column("row", words::core("cost.row"))
      .column("at", words::core("cost.at"))
      .column("predicted", words::core("cost.predicted"), spec.format)
      .column("measured", words::core("cost.measured"), spec.format)
      .column("ratio", words::core("cost.ratio"), Format::ratio)
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
  model.legend.push_back(words::core(spec.format == Format::gbps ? "cost.predicted-legend-gbps" : "cost.predicted-legend"));
  model.legend.push_back(words::core("cost.measured-legend"));
  model.legend.push_back(words::core("cost.within-legend", {{"tolerance", tol},
                                                          {"low", report::fixed(1.0 - spec.tolerance, 2)},
                                                          {"high", report::fixed(1.0 + spec.tolerance, 2)}}));
  s.add(std::move(model));

  // The terms, one table per row (each row has its own terms, and a table of every term would not
  // fit 80 columns): "terms-<row>", a column per term, a row per column of the sweep.
  for (std::size_t i = 0; i < cells.size();) {
    const std::string& row = cells[i].row;
    std::size_t end = i;
    while (end < cells.size() && cells[end].row == row) ++end;
    const std::vector<Cell> mine(cells.begin() + static_cast<std::ptrdiff_t>(i), cells.begin() + static_cast<std::ptrdiff_t>(end));
    report::Table terms("terms-" + row, words::core(spec.format == Format::gbps ? "cost.terms-title-per-call" : "cost.terms-title",
                                                    {{"row", cells[i].row_title}}));
    terms.column("at", words::core("cost.at"));
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

  report::Table prims("primitives", words::core("cost.primitives-title"));
  prims.column("primitive", words::core("cost.primitive"))
      .column("at", words::core("cost.at"))
      .column("ns", "ns", Format::ns)
      .column("what", words::core("cost.what"));
  for (const Need& n : needs) {
    const std::string why = p.skipped(n.key);
    if (!why.empty())
      prims.legend.push_back(words::core("cost.not-measured", {{"primitive", n.key.id + " " + n.key.at}, {"why", why}}));
    prims.row({{"primitive", n.key.id}, {"at", n.key.at}, {"ns", number(p.ns(n.key), gpu)}, {"what", n.title}});
  }
  s.add(std::move(prims));

  const Agreement a = agreement(cells, spec.tolerance);
  if (gpu) {
    s.fact("model-cells", words::core("cost.model-cells"), static_cast<std::int64_t>(a.compared), Format::count);
    s.fact("model-within", words::core("cost.model-within", {{"tolerance", tol}}), static_cast<std::int64_t>(a.within),
           Format::count);
    if (!a.outside.empty()) {
      std::string l;
      for (const auto& o : a.outside) l += (l.empty() ? "" : "; ") + o;
      s.note(words::core("cost.outside", {{"tolerance", tol}, {"cells", l}}));
    }
  } else {
    s.fact("model-cells", words::core("cost.model-cells"), report::NeedsGpu{}, Format::count);
    s.fact("model-within", words::core("cost.model-within", {{"tolerance", tol}}), report::NeedsGpu{}, Format::count);
  }
}

}  // namespace cudasync::cost
