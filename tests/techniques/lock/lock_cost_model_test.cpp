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

TEST(CostModel, EveryLockReadsOnlyWhatItNeedsAndContentionCostsMore) {
  for (LockDesign d : {LockDesign::book, LockDesign::fenced, LockDesign::acq_rel, LockDesign::ttas,
                       LockDesign::ttas_same_line, LockDesign::backoff, LockDesign::ticket,
                       LockDesign::warp_aggregated, LockDesign::combining})
    for (auto [b, t] : std::vector<std::pair<int, int>>{{1, 1}, {132, 1}, {132, 128}}) {
      const Prediction p = predict_lock(d, b, t, measured(lock_needs(d, b, t), plausible));
      SCOPED_TRACE(std::to_string(static_cast<int>(d)) + " at " + at_grid(b, t));
      ASSERT_FALSE(std::isnan(p.ns())) << p.formula();
      EXPECT_DOUBLE_EQ(p.ns(), sum_of_terms(p));
    }
  // Alone there is nobody to measure beside: one thread's primitives serve every lock.
  EXPECT_EQ(lock_background(LockDesign::ttas, 1, 1), Background::none);
  EXPECT_EQ(lock_background(LockDesign::ttas, 132, 1), Background::poll);
  EXPECT_EQ(lock_background(LockDesign::warp_aggregated, 132, 1), Background::cas);
  EXPECT_EQ(lock_background(LockDesign::warp_aggregated, 132, 128), Background::leaders);
  // A longer queue at the lock word (the waiters' CAS) makes every CAS lock's handoff longer.
  const auto cas_lock = [](LockDesign d, const Value& v) {
    return predict_lock(d, 132, 1, measured(lock_needs(d, 132, 1), v)).ns();
  };
  for (LockDesign d : {LockDesign::book, LockDesign::fenced, LockDesign::acq_rel})
    EXPECT_GT(cas_lock(d, slower("cas-round-under-cas", 3)), cas_lock(d, plausible));
  // The CAS lock pays a fence after taking and waits for its store before releasing; the book's
  // lock pays neither, and acquire / release pays only the light acquire.
  EXPECT_GT(cas_lock(LockDesign::fenced, plausible), cas_lock(LockDesign::acq_rel, plausible));
  EXPECT_GT(cas_lock(LockDesign::acq_rel, plausible), cas_lock(LockDesign::book, plausible));
  // Warp aggregation carries 32 updates per handoff; combining, every waiting thread's request.
  const Prediction wa = predict_lock(LockDesign::warp_aggregated, 132, 128,
                                     measured(lock_needs(LockDesign::warp_aggregated, 132, 128), plausible));
  EXPECT_NEAR(wa.term("take")->ns, 200.0 / 32, 1e-9);
  const Prediction comb =
      predict_lock(LockDesign::combining, 132, 128, measured(lock_needs(LockDesign::combining, 132, 128), plausible));
  EXPECT_DOUBLE_EQ(comb.term("serve")->ns, 2.0);  // one store issued per request served
  EXPECT_LT(comb.ns(), cas_lock(LockDesign::acq_rel, plausible));
}

}  // namespace
}  // namespace cudasync::lock
