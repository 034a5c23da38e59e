// The cost model (core/cost): a prediction is the sum of its terms, each term reads the primitives
// its design needs (and only those), and every formula moves the way its algorithm says it must
// when a primitive grows.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/cost/barrier_model.hpp"
#include "core/cost/compare.hpp"
#include "core/cost/primitive_keys.hpp"
#include "core/cost/reduce_model.hpp"

namespace cudasync::cost {
namespace {

using Value = std::function<double(const Key&)>;

// Every need measured as `value(key)`, three samples around it (the median is the value).
Primitives measured(const std::vector<Need>& needs, const Value& value) {
  return measure_all(needs, true, [&](const ProbeSpec& spec) {
    for (const Need& n : needs)
      if (&n.spec == &spec) {
        const double v = value(n.key);
        return ProbeResult{{v * 0.99, v, v * 1.01}, ""};
      }
    return ProbeResult{{}, "not asked for"};
  });
}

// A plausible GPU: 200 ns round trips, 300 ns fences (a fence after a store about 330), a 10 ns
// acquire, 1.5 ns per same-address atomic beyond the first.
double plausible(const Key& k) {
  const double at = k.at.empty() ? 1.0 : std::atof(k.at.c_str());
  if (k.id == "queue-atomic") return std::max(200.0, 1.5 * at);
  if (k.id.rfind("poll-", 0) == 0) return 300.0 + 0.2 * at;
  if (k.id == "fence-acquire") return 10.0;
  if (k.id.rfind("fence", 0) == 0) return 300.0;
  if (k.id.rfind("store-fence", 0) == 0) return 331.0;
  if (k.id.rfind("store-release", 0) == 0) return 327.0;
  if (k.id == "sync") return 20.0;
  if (k.id.rfind("read-", 0) == 0) return 5000.0 + 1e-3 * std::pow(2.0, std::atof(k.at.c_str() + 2)) * 4 / 3.0;
  if (k.id == "launch-2") return 7000.0;
  if (k.id.rfind("launch", 0) == 0) return 4000.0;
  if (k.id.rfind("empty-blocks", 0) == 0) return 4000.0 + 0.4 * kDispatchBlocks;
  if (k.id.rfind("atomic-blocks", 0) == 0) return 4000.0 + 1.9 * kAtomicProbeBlocks;
  if (k.id == "store-issue") return 2.0;
  return 200.0;
}

// The same GPU with one primitive (by id) `factor` times as slow.
Value slower(const std::string& id, double factor) {
  return [id, factor](const Key& k) { return plausible(k) * (k.id == id ? factor : 1.0); };
}

double sum_of_terms(const Prediction& p) {
  double s = 0;
  for (const Term& t : p.terms) s += t.ns;
  return s;
}

std::vector<std::string> term_ids(const Prediction& p) {
  std::vector<std::string> ids;
  for (const Term& t : p.terms) ids.push_back(t.id);
  return ids;
}

TEST(CostModel, APredictionIsTheSumOfItsTermsAndNaNUntilEveryPrimitiveIsMeasured) {
  Prediction p;
  p.add("sync", "sync", 40, "2 x sync(256)").add("fence", "fence", 300, "fence-rel(132)");
  EXPECT_DOUBLE_EQ(p.ns(), 340);
  EXPECT_EQ(p.formula(), "sync + fence");
  p.add("poll", "poll", NAN, "poll-relaxed(132)");
  EXPECT_TRUE(std::isnan(p.ns()));
  EXPECT_TRUE(std::isnan(Prediction{}.ns()));
  Primitives none;
  EXPECT_TRUE(std::isnan(none.ns({"rt-atomic", ""})));
  none.set({"rt-atomic", ""}, {150, 170, 160});
  EXPECT_DOUBLE_EQ(none.ns({"rt-atomic", ""}), 160);  // the median
  none.skip({"cluster-barrier", "132c4"}, "needs sm_90");
  EXPECT_EQ(none.skipped({"cluster-barrier", "132c4"}), "needs sm_90");
  EXPECT_TRUE(std::isnan(none.ns({"cluster-barrier", "132c4"})));
  EXPECT_TRUE(std::isnan(nan_max(NAN, 1.0)) && std::isnan(nan_max(1.0, NAN)));
  EXPECT_DOUBLE_EQ(excess(-5), 0);
}

TEST(CostModel, EveryBarrierReadsOnlyWhatItNeedsAndSumsItsTerms) {
  const BarrierShape shapes[] = {{132, 256, 1, 4, 4}, {528, 256, 2, 8, 1}, {1056, 256, 2, 2, 1}};
  for (BarrierDesign d : {BarrierDesign::xf_lock, BarrierDesign::xf_lockfree, BarrierDesign::grid_sync,
                          BarrierDesign::own, BarrierDesign::own_cluster, BarrierDesign::own_stagger,
                          BarrierDesign::own_paced})
    for (const BarrierShape& s : shapes) {
      const Prediction p = predict_barrier(d, s, measured(barrier_needs(d, s), plausible));
      SCOPED_TRACE(static_cast<int>(d));
      ASSERT_FALSE(std::isnan(p.ns())) << p.formula();  // every primitive it read was among its needs
      EXPECT_DOUBLE_EQ(p.ns(), sum_of_terms(p));
      EXPECT_GT(p.ns(), 0);
    }
  const BarrierShape s{132, 256, 1, 4, 4};
  EXPECT_EQ(term_ids(predict_barrier(BarrierDesign::own, s, Primitives{})),
            (std::vector<std::string>{"sync", "fence", "queue", "poll", "acquire"}));
  EXPECT_EQ(term_ids(predict_barrier(BarrierDesign::own_cluster, s, Primitives{})).back(), "cluster");
}

TEST(CostModel, BarrierTermsFollowTheirPrimitives) {
  const BarrierShape own132{132, 256, 1, 1, 1}, own1056{1056, 256, 2, 1, 1};
  const auto own = [](const BarrierShape& s, const Value& v) {
    return predict_barrier(BarrierDesign::own, s, measured(barrier_needs(BarrierDesign::own, s), v));
  };
  // More blocks on one counter: a longer queue of arrivals and more pollers, so more ns.
  EXPECT_GT(own(own1056, plausible).ns(), own(own132, plausible).ns());
  // The queue is what N same-address atomics take beyond one alone, never negative.
  const Prediction small = own(own132, plausible);
  EXPECT_DOUBLE_EQ(small.term("queue")->ns, 0.0);  // 132 x 1.5 ns is hidden by one 200 ns round trip
  EXPECT_DOUBLE_EQ(own(own1056, plausible).term("queue")->ns, 1.5 * 528 - 200);  // C = 2: 528 per counter
  // Slower fences, slower polls: each moves the barrier by exactly its own term.
  EXPECT_NEAR(own(own132, slower("fence-rel", 2)).ns() - small.ns(), 300, 1e-9);
  EXPECT_GT(own(own132, slower("poll-relaxed", 2)).ns(), small.ns());
  // Xiao & Feng's lock-free barrier pays three fences and two hops; its master scans more slots
  // per thread as the grid outgrows the block.
  const auto lf = [](int n) {
    const BarrierShape s{n, 256, 1, 1, 1};
    return predict_barrier(BarrierDesign::xf_lockfree, s, measured(barrier_needs(BarrierDesign::xf_lockfree, s), plausible));
  };
  EXPECT_DOUBLE_EQ(lf(132).term("fence")->ns, 3 * 300.0);
  EXPECT_DOUBLE_EQ(lf(132).term("scan")->ns, 0.0);
  EXPECT_DOUBLE_EQ(lf(1056).term("scan")->ns, 4 * 200.0);  // ceil(1056 / 256) - 1 = 4 more slots
  // grid.sync's last block waits for its atom's return, then polls once: never less than that.
  const BarrierShape gs{132, 256, 1, 1, 1};
  const Prediction g =
      predict_barrier(BarrierDesign::grid_sync, gs, measured(barrier_needs(BarrierDesign::grid_sync, gs), plausible));
  EXPECT_GE(g.term("poll")->ns, 200.0 + 200.0);
}

TEST(CostModel, ReductionsPredictGigabytesPerSecondFromBytesLaunchesAndAtomics) {
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

TEST(CostModel, TheComparisonCountsCellsWithinTheToleranceAndShowsTheStructureWithoutAGpu) {
  std::vector<Cell> cells(3);
  for (Cell& c : cells) c.predicted.add("fence", "fence", 100, "fence-sc(1)");
  cells[0].row = "a", cells[0].measured = 119.0;
  cells[1].row = "b", cells[1].measured = 79.0;
  cells[2].row = "c";  // not measured, and a primitive missing: not compared
  cells[2].predicted.add("poll", "poll", NAN, "poll-relaxed(132)");
  const Agreement a = agreement(cells, kTolerance);
  EXPECT_EQ(a.compared, 2);
  EXPECT_EQ(a.within, 1);
  ASSERT_EQ(a.outside.size(), 1u);
  EXPECT_NE(a.outside[0].find("b @"), std::string::npos);
  EXPECT_TRUE(within(1.2, 0.2));
  EXPECT_FALSE(within(0.79, 0.2));

  report::Section s("bench", "bench");
  add_model(s, cells, {"ns per barrier", report::Format::ns, kTolerance}, {prim::rt_atomic()}, Primitives{}, false);
  std::vector<std::string> tables;
  for (const auto& t : s.tables) tables.push_back(t.id);
  // One terms table per row (each fits 80 columns).
  EXPECT_EQ(tables, (std::vector<std::string>{"model-formulas", "model", "terms-a", "terms-b", "terms-c", "primitives"}));
  const report::Table& model = s.tables[1];
  EXPECT_EQ(model.rows.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(model.cell(2, "predicted")));  // no primitive measured
  EXPECT_TRUE(std::holds_alternative<double>(model.cell(0, "measured")));
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(s.tables.back().cell(0, "ns")));
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(s.tables[4].cell(0, "poll")));
}

}  // namespace
}  // namespace cudasync::cost
