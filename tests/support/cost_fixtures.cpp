#include "support/cost_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

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

double plausible(const cost::Key& k) {
  const double at = k.at.empty() ? 1.0 : std::atof(k.at.c_str());
  if (k.id == "queue-atomic") return std::max(200.0, 1.5 * at);
  if (k.id == "arrive-poll-tree") {  // "1056k16": a fence, a fence and a round trip per level, a poll
    const int arity = std::atoi(k.at.c_str() + k.at.find('k') + 1);
    int levels = 0;
    for (int n = static_cast<int>(at); n > 1; n = (n + arity - 1) / arity) ++levels;
    return 300.0 + levels * (300.0 + 200.0 + 1.5 * arity) + 300.0 + 0.2 * at;
  }
  if (k.id.rfind("arrive-poll-", 0) == 0) {  // a fence, the queue on each of C counters, a poll: "1056/2"
    const auto slash = k.at.find('/');
    const double words = slash == std::string::npos ? 1.0 : std::atof(k.at.c_str() + slash + 1);
    return 300.0 + std::max(200.0, 1.5 * at / words) + 300.0 + 0.2 * at;
  }
  if (k.id.rfind("handoff-", 0) == 0) {  // a lock's protocol measured whole at "132x128": longer the more wait
    const double threads = std::atof(k.at.c_str() + k.at.find('x') + 1);
    return 500.0 + 0.5 * at * threads;
  }
  if (k.id.rfind("poll-", 0) == 0) return 300.0 + 0.2 * at;
  if (k.id == "fence-acquire") return 10.0;
  if (k.id.rfind("fence", 0) == 0) return 300.0;
  if (k.id.rfind("store-fence", 0) == 0) return 331.0;
  if (k.id.rfind("store-release", 0) == 0) return 327.0;
  if (k.id == "sync") return 20.0;
  if (k.id.rfind("read-", 0) == 0) return 5000.0 + 1e-3 * std::pow(2.0, std::atof(k.at.c_str() + 2)) * 4 / 3.0;
  if (k.id == "launch-2") return 7000.0;
  if (k.id.rfind("launch", 0) == 0) return 4000.0;
  if (k.id == "store-issue") return 2.0;
  return 200.0;
}

}  // namespace cudasync::test
