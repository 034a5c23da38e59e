// lock's cost model (techniques/lock/bench.cpp): every lock's prediction is the sum of its terms,
// each term reads the primitives its design needs (and only those), and the formula moves the way
// the lock's algorithm says it must when a primitive grows. (Moved here from
// tests/core/cost_model_test.cpp with the formula; the same plausible GPU.)
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/cost/primitive_keys.hpp"
#include "core/cost/compare.hpp"
#include "support/cost_fixtures.hpp"
#include "techniques/lock/lesson.hpp"

namespace cudasync::lock {
namespace {

using namespace cudasync::cost;

using Value = test::CostValue;
using test::measured;
using test::sum_of_terms;

using test::plausible;

// The same GPU with one primitive (by id) `factor` times as slow.
Value slower(const std::string& id, double factor) { return test::slower(plausible, id, factor); }

constexpr LockDesign kDesigns[] = {LockDesign::book,    LockDesign::fenced,          LockDesign::acq_rel,
                                   LockDesign::ttas,    LockDesign::ttas_same_line,  LockDesign::backoff,
                                   LockDesign::ticket,  LockDesign::warp_aggregated, LockDesign::combining};

double term_ns(const Prediction& p, const char* id) {
  const Term* t = p.term(id);
  return t ? t->ns : 0.0;
}

TEST(CostModel, EveryLockIsItsHandoffMeasuredWholePlusItsSection) {
  for (LockDesign d : kDesigns)
    for (auto [b, t] : std::vector<std::pair<int, int>>{{1, 1}, {132, 1}, {132, 128}}) {
      const Prediction p = predict_lock(d, b, t, measured(lock_needs(d, b, t), plausible));
      SCOPED_TRACE(std::to_string(static_cast<int>(d)) + " at " + at_grid(b, t));
      ASSERT_FALSE(std::isnan(p.ns())) << p.formula();
      EXPECT_DOUBLE_EQ(p.ns(), sum_of_terms(p));
      // The parts cancel against the contention: what is left is the handoff and the section.
      const std::string id = "handoff-" + std::string(bench_id(variant_of(d)));
      EXPECT_NEAR(p.ns(), plausible({id, at_grid(b, t)}) + term_ns(p, "load"), 1e-9);
      ASSERT_NE(p.term("contention"), nullptr);
      EXPECT_NE(p.term("contention")->formula.find(id + "(" + at_grid(b, t) + ")"), std::string::npos);
    }
}

TEST(CostModel, ALockCostsMoreWhenItsHandoffOrItsSectionDoes) {
  const auto at = [](LockDesign d, int b, int t, const Value& v) {
    return predict_lock(d, b, t, measured(lock_needs(d, b, t), v)).ns();
  };
  for (LockDesign d : kDesigns) {
    const std::string id = "handoff-" + std::string(bench_id(variant_of(d)));
    EXPECT_GT(at(d, 132, 1, slower(id, 2)), at(d, 132, 1, plausible)) << id;
    if (d != LockDesign::book) {  // the book's section hits the L1: it reads no load
      const std::string load = "load-under-" + std::string(cost::prim::background_id(lock_background(d, 132, 1)));
      EXPECT_GT(at(d, 132, 1, slower(load, 3)), at(d, 132, 1, plausible)) << id;
    }
    // A part measured apart only moves the split between it and the contention.
    EXPECT_NEAR(at(d, 132, 1, slower("fence-acquire", 5)), at(d, 132, 1, plausible), 1e-9) << id;
  }
  // Alone there is nobody to measure beside: one thread's primitives serve every lock.
  EXPECT_EQ(lock_background(LockDesign::ttas, 1, 1), Background::none);
  EXPECT_EQ(lock_background(LockDesign::ttas, 132, 1), Background::poll);
  EXPECT_EQ(lock_background(LockDesign::warp_aggregated, 132, 1), Background::cas);
  EXPECT_EQ(lock_background(LockDesign::warp_aggregated, 132, 128), Background::leaders);
}

TEST(CostModel, TheSectionIsDividedAmongTheUpdatesOneHandoffCarries) {
  const auto predict = [](LockDesign d, int b, int t) { return predict_lock(d, b, t, measured(lock_needs(d, b, t), plausible)); };
  // The CAS lock's section reads the counter from the L2; the book's hits its SM's L1 and adds nothing.
  EXPECT_NEAR(predict(LockDesign::fenced, 132, 1).term("load")->ns, 200.0, 1e-9);
  EXPECT_EQ(predict(LockDesign::book, 132, 1).term("load"), nullptr);
  EXPECT_NEAR(predict(LockDesign::book, 132, 1).ns(), plausible({"handoff-book", "132x1"}), 1e-9);
  // Warp aggregation carries 32 updates per handoff; combining, every waiting thread's request.
  const Prediction wa = predict(LockDesign::warp_aggregated, 132, 128);
  EXPECT_NEAR(wa.term("take")->ns, 200.0 / 32, 1e-9);
  EXPECT_NEAR(wa.term("load")->ns, 200.0 / 32, 1e-9);
  const Prediction comb = predict(LockDesign::combining, 132, 128);
  EXPECT_DOUBLE_EQ(comb.term("serve")->ns, 2.0);  // one store issued per request served
  EXPECT_NEAR(comb.term("load")->ns, 200.0 / (132 * 128), 1e-9);
}

}  // namespace
}  // namespace cudasync::lock
