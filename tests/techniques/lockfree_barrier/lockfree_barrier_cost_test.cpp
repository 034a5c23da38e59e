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
            (std::vector<std::string>{"sync", "fence", "queue", "poll", "acquire"}));
  EXPECT_EQ(term_ids(predict_barrier(Barrier::own_cluster, s, Primitives{})).back(), "cluster");
}

TEST(LockfreeBarrierCost, BarrierTermsFollowTheirPrimitives) {
  const BarrierShape own132{132, 256, 1, 1, 1}, own1056{1056, 256, 2, 1, 1};
  const auto own = [](const BarrierShape& s, const Value& v) {
    return predict_barrier(Barrier::own, s, measured(barrier_needs(Barrier::own, s), v));
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
    return predict_barrier(Barrier::xf_lockfree, s, measured(barrier_needs(Barrier::xf_lockfree, s), plausible));
  };
  EXPECT_DOUBLE_EQ(lf(132).term("fence")->ns, 3 * 300.0);
  EXPECT_DOUBLE_EQ(lf(132).term("scan")->ns, 0.0);
  EXPECT_DOUBLE_EQ(lf(1056).term("scan")->ns, 4 * 200.0);  // ceil(1056 / 256) - 1 = 4 more slots
  // grid.sync's last block waits for its atom's return, then polls once: never less than that.
  const BarrierShape gs{132, 256, 1, 1, 1};
  const Prediction g =
      predict_barrier(Barrier::grid_sync, gs, measured(barrier_needs(Barrier::grid_sync, gs), plausible));
  EXPECT_GE(g.term("poll")->ns, 200.0 + 200.0);
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
