#include "support/cost_fixtures.hpp"

namespace cudasync::test {

cost::Primitives measured(const std::vector<cost::Need>& needs, const CostValue& value) {
  return cost::measure_all(needs, true, [&](const cost::ProbeSpec& spec) {
    for (const cost::Need& n : needs)
      if (&n.spec == &spec) {
        const double v = value(n.key);
        return cost::ProbeResult{{v * 0.99, v, v * 1.01}, ""};
      }
    return cost::ProbeResult{{}, "not asked for"};
  });
}

CostValue slower(CostValue base, const std::string& id, double factor) {
  return [base = std::move(base), id, factor](const cost::Key& k) { return base(k) * (k.id == id ? factor : 1.0); };
}

double sum_of_terms(const cost::Prediction& p) {
  double s = 0;
  for (const cost::Term& t : p.terms) s += t.ns;
  return s;
}

}  // namespace cudasync::test
