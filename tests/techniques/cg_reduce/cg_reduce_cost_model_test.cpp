// --bench's cost model (bench.cpp): a reduction's time is the sum of its terms, each term reads the
// primitives its design needs, and the formula moves the way the algorithm says it must when a
// primitive grows.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/cost/compare.hpp"
#include "support/cost_fixtures.hpp"
#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {
namespace {

using cost::Cell;
using cost::Key;
using cost::Prediction;
using Value = test::CostValue;
using test::measured;
using test::sum_of_terms;

// A plausible GPU for a reduction: launches of 4 us (7 us for two), reads of 5 us plus 1 ns per
// 750 bytes, 1.9 ns per block of same-address atomics, 0.4 per empty block.
double plausible(const Key& k) {
  if (k.id.rfind("read-", 0) == 0) return 5000.0 + 1e-3 * std::pow(2.0, std::atof(k.at.c_str() + 2)) * 4 / 3.0;
  if (k.id == "launch-2") return 7000.0;
  if (k.id.rfind("launch", 0) == 0) return 4000.0;
  if (k.id.rfind("empty-blocks", 0) == 0) return 4000.0 + 0.4 * kDispatchBlocks;
  if (k.id.rfind("atomic-blocks", 0) == 0) return 4000.0 + 1.9 * kAtomicProbeBlocks;
  if (k.id == "sync") return 20.0;
  if (k.id.rfind("fence", 0) == 0) return 300.0;
  return 200.0;
}

// The same GPU with one primitive (by id) `factor` times as slow.
Value slower(const std::string& id, double factor) { return test::slower(plausible, id, factor); }

TEST(CgReduceCostModel, ReductionsPredictGigabytesPerSecondFromBytesLaunchesAndAtomics) {
  for (ReduceDesign d : {ReduceDesign::atomic, ReduceDesign::two_pass, ReduceDesign::grid_sync, ReduceDesign::cub,
                         ReduceDesign::one_pass})
    for (int l : {20, 28}) {
      const ReduceShape s{std::int64_t{1} << l, 4, 128, 2112, "2-" + std::to_string(l)};
      const Prediction p = predict_reduce(d, s, measured(reduce_needs(d, s), plausible));
      SCOPED_TRACE(static_cast<int>(d));
      ASSERT_FALSE(std::isnan(p.ns())) << p.formula();
      EXPECT_DOUBLE_EQ(p.ns(), sum_of_terms(p));
      // The bytes are what a plain read of the input costs, less that read's own launch.
      EXPECT_DOUBLE_EQ(p.term("bytes")->ns, plausible(read_need(s).key) - 4000.0);
    }
  const ReduceShape big{std::int64_t{1} << 28, 4, 128, 2112, "2-28"};
  const auto atomic = [&](const Value& v) {
    return predict_reduce(ReduceDesign::atomic, big, measured(reduce_needs(ReduceDesign::atomic, big), v));
  };
  // 2^21 blocks x 1.9 ns of same-address atomics outlast the bytes: the atomics term is the rest.
  const Prediction a = atomic(plausible);
  EXPECT_NEAR(a.term("atomics")->ns, 2097152 * 1.9 - a.term("bytes")->ns, 1e-3);
  EXPECT_GT(atomic(slower("atomic-blocks-float", 2)).ns(), a.ns());
  // One launch instead of two, the same bytes: the one-pass kernel is predicted faster.
  const ReduceShape small{std::int64_t{1} << 20, 4, 128, 528, "2-20"};
  const auto pred = [&](ReduceDesign d) { return predict_reduce(d, small, measured(reduce_needs(d, small), plausible)); };
  EXPECT_LT(pred(ReduceDesign::one_pass).ns(), pred(ReduceDesign::two_pass).ns());
  Cell c;
  c.predicted = pred(ReduceDesign::two_pass);
  c.bytes = small.bytes();
  EXPECT_DOUBLE_EQ(c.predicted_value(), small.bytes() / c.predicted.ns());  // bytes per ns = GB/s
}

}  // namespace
}  // namespace cudasync::cg_reduce
