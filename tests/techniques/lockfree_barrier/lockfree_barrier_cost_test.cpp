// lockfree-barrier's cost model (bench.cpp): a prediction is the sum of its terms, each term reads
// the primitives its barrier needs (and only those), and every formula moves the way its algorithm
// says it must when a primitive grows.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/cost/primitive_keys.hpp"
#include "support/cost_fixtures.hpp"
#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {
namespace {

using cost::Key;
using cost::Prediction;
using cost::Primitives;
using cost::Term;

using Value = test::CostValue;
using test::measured;
using test::sum_of_terms;

using test::plausible;

// The same GPU with one primitive (by id) `factor` times as slow.
Value slower(const std::string& id, double factor) { return test::slower(plausible, id, factor); }

std::vector<std::string> term_ids(const Prediction& p) {
  std::vector<std::string> ids;
  for (const Term& t : p.terms) ids.push_back(t.id);
  return ids;
}

TEST(LockfreeBarrierCost, EveryBarrierReadsOnlyWhatItNeedsAndSumsItsTerms) {
  const BarrierShape shapes[] = {{132, 256, 1, 4, 4}, {528, 256, 2, 8, 1}, {1056, 256, 2, 2, 1}};
  for (Barrier d : {Barrier::xf_lock, Barrier::xf_lockfree, Barrier::grid_sync,
                          Barrier::own, Barrier::own_cluster, Barrier::own_stagger,
                          Barrier::own_paced, Barrier::own_tree})
    for (const BarrierShape& s : shapes) {
      const Prediction p = predict_barrier(d, s, measured(barrier_needs(d, s), plausible));
      SCOPED_TRACE(static_cast<int>(d));
      ASSERT_FALSE(std::isnan(p.ns())) << p.formula();  // every primitive it read was among its needs
      EXPECT_DOUBLE_EQ(p.ns(), sum_of_terms(p));
      EXPECT_GT(p.ns(), 0);
    }
  const BarrierShape s{132, 256, 1, 4, 4};
  EXPECT_EQ(term_ids(predict_barrier(Barrier::own, s, Primitives{})),
            (std::vector<std::string>{"sync", "arrive-poll", "acquire"}));
  EXPECT_EQ(term_ids(predict_barrier(Barrier::grid_sync, s, Primitives{})),
            (std::vector<std::string>{"sync", "arrive-poll"}));
  EXPECT_EQ(term_ids(predict_barrier(Barrier::own_cluster, s, Primitives{})).back(), "cluster");
}

TEST(LockfreeBarrierCost, BarrierTermsFollowTheirPrimitives) {
  const BarrierShape own132{132, 256, 1, 1, 1}, own1056{1056, 256, 2, 1, 1};
  const auto own = [](const BarrierShape& s, const Value& v) {
    return predict_barrier(Barrier::own, s, measured(barrier_needs(Barrier::own, s), v));
  };
  // More blocks: a longer queue of arrivals on each counter and more pollers, so more ns.
  EXPECT_GT(own(own1056, plausible).ns(), own(own132, plausible).ns());
  // The arrivals and the polls are one primitive, measured together at the barrier's own grid and
  // counters; a slower one moves the barrier by exactly its own term.
  const Prediction small = own(own132, plausible);
  EXPECT_EQ(small.term("arrive-poll")->formula, "arrive-red-rel-poll-relaxed(132)");
  EXPECT_EQ(own(own1056, plausible).term("arrive-poll")->formula, "arrive-red-rel-poll-relaxed(1056/2)");
  EXPECT_NEAR(own(own132, slower("arrive-red-rel-poll-relaxed", 2)).ns() - small.ns(),
              small.term("arrive-poll")->ns, 1e-9);
  // Each barrier measures its own arrival and polls: grid.sync() waits for its atom's value and
  // polls with acquire loads; Xiao & Feng's lock-based fences, adds and polls volatile, then fences
  // once more after the spin.
  const auto ap_id = [](Barrier d) {
    const BarrierShape s{132, 256, 1, 1, 1};
    return predict_barrier(d, s, measured(barrier_needs(d, s), plausible)).term("arrive-poll")->formula;
  };
  EXPECT_EQ(ap_id(Barrier::grid_sync), "arrive-atom-rel-poll-acquire(132)");
  EXPECT_EQ(ap_id(Barrier::xf_lock), "arrive-sc-atom-poll-volatile(132)");
  const BarrierShape xs{132, 256, 1, 1, 1};
  EXPECT_DOUBLE_EQ(
      predict_barrier(Barrier::xf_lock, xs, measured(barrier_needs(Barrier::xf_lock, xs), plausible)).term("fence")->ns,
      300.0);
  // Xiao & Feng's lock-free barrier pays three fences and two hops; its master scans more slots
  // per thread as the grid outgrows the block.
  const auto lf = [](int n) {
    const BarrierShape s{n, 256, 1, 1, 1};
    return predict_barrier(Barrier::xf_lockfree, s, measured(barrier_needs(Barrier::xf_lockfree, s), plausible));
  };
  EXPECT_DOUBLE_EQ(lf(132).term("fence")->ns, 3 * 300.0);
  EXPECT_DOUBLE_EQ(lf(132).term("scan")->ns, 0.0);
  EXPECT_DOUBLE_EQ(lf(1056).term("scan")->ns, 4 * 200.0);  // ceil(1056 / 256) - 1 = 4 more slots
}

// own-tree's shape: levels and nodes of the combining tree, and the words the kernel keeps for it.
TEST(LockfreeBarrierCost, TheTreesLevelsAndNodes) {
  EXPECT_EQ(tree_levels(1, 8), 0);     // one block releases at once
  EXPECT_EQ(tree_levels(8, 8), 1);
  EXPECT_EQ(tree_levels(9, 8), 2);
  EXPECT_EQ(tree_levels(1056, 8), 4);  // 1056 -> 132 -> 17 -> 3 -> 1
  EXPECT_EQ(tree_nodes(1056, 8), 132 + 17 + 3 + 1);
  EXPECT_EQ(tree_levels(132, 32), 2);  // 132 -> 5 -> 1
  // The kernel keeps room for 2 x blocks nodes: enough at every arity it may be given.
  for (int arity : kTreeArities)
    for (int blocks = 1; blocks <= 4096; ++blocks) ASSERT_LE(tree_nodes(blocks, arity), 2 * blocks) << arity;
}

// The tree's climb is one dependent atomic per level, each behind the node's other children; the
// model runs it at the arity it predicts fastest, and at the default without measurements.
TEST(LockfreeBarrierCost, TheTreeClimbsOneLevelAtATimeAndTheModelChoosesItsArity) {
  const auto tree = [](int blocks, int arity, const Value& v) {
    const BarrierShape s{blocks, 256, 1, 1, 1, arity};
    return predict_barrier(Barrier::own_tree, s, measured(barrier_needs(Barrier::own_tree, s), v));
  };
  // queue-atomic(8) = 8 x 1.5 ns is hidden by one 200 ns round trip: 4 levels of 200 at 1056 blocks.
  EXPECT_DOUBLE_EQ(tree(1056, 8, plausible).term("climb")->ns, 4 * 200.0);
  EXPECT_DOUBLE_EQ(tree(1056, 32, plausible).term("climb")->ns, 3 * 200.0);  // 1056 -> 33 -> 2 -> 1
  EXPECT_LT(tree(132, 8, plausible).ns(), tree(1056, 8, plausible).ns());
  EXPECT_EQ(term_ids(tree(132, 8, plausible)), (std::vector<std::string>{"sync", "fence", "climb", "poll", "acquire"}));
  EXPECT_EQ(tree_arity_for(BarrierShape{1056, 256, 1, 1, 1, 2}, Primitives{}), kDefaultTreeArity);
  // Every arity measured: while the queue is hidden, the fewest levels win, and of arities with as
  // few (16 and 32: 1056 -> 66 -> 5 -> 1, 1056 -> 33 -> 2 -> 1) the smaller, whose queue is shorter.
  std::vector<cost::Need> needs;
  for (int arity : kTreeArities)
    for (const cost::Need& n : barrier_needs(Barrier::own_tree, BarrierShape{1056, 256, 1, 1, 1, arity}))
      cost::add_need(needs, n);
  EXPECT_EQ(tree_arity_for(BarrierShape{1056, 256, 1, 1, 1, 2}, measured(needs, plausible)), 16);
}

}  // namespace
}  // namespace cudasync::lockfree_barrier
