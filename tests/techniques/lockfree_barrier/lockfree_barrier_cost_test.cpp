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
                          Barrier::own_paced, Barrier::own_tree, Barrier::own_ticket})
    for (const BarrierShape& s : shapes) {
      const Prediction p = predict_barrier(d, s, measured(barrier_needs(d, s), plausible));
      SCOPED_TRACE(static_cast<int>(d));
      ASSERT_FALSE(std::isnan(p.ns())) << p.formula();  // every primitive it read was among its needs
      EXPECT_DOUBLE_EQ(p.ns(), sum_of_terms(p));
      EXPECT_GT(p.ns(), 0);
    }
  const BarrierShape s{132, 256, 1, 4, 4};
  EXPECT_EQ(term_ids(predict_barrier(Barrier::own, s, Primitives{})),
            (std::vector<std::string>{"sync", "fence", "queue", "poll", "acquire", "contention"}));
  EXPECT_EQ(term_ids(predict_barrier(Barrier::grid_sync, s, Primitives{})),
            (std::vector<std::string>{"sync", "fence", "queue", "poll", "contention"}));
  EXPECT_EQ(term_ids(predict_barrier(Barrier::own_cluster, s, Primitives{})).back(), "cluster");
}

// Each barrier's protocol (thread 0's part, between the block's two __syncthreads()) is measured
// whole, at the barrier's own grid and counters; its parts measured apart are terms of their own,
// and the contention term is what the whole costs beyond them. So a barrier is its syncs plus its
// protocol, and a slower protocol moves it by exactly that.
TEST(LockfreeBarrierCost, ABarrierIsItsSyncsPlusItsProtocolMeasuredWhole) {
  const auto predict = [](Barrier d, const BarrierShape& s, const Value& v) {
    return predict_barrier(d, s, measured(barrier_needs(d, s), v));
  };
  const auto whole = [](const std::string& id, const std::string& at) { return plausible(Key{id, at}); };
  const BarrierShape own132{132, 256, 1, 1, 1}, own1056{1056, 256, 2, 1, 1};
  EXPECT_DOUBLE_EQ(predict(Barrier::own, own132, plausible).ns(), 2 * 20.0 + whole("arrive-poll-own", "132"));
  EXPECT_DOUBLE_EQ(predict(Barrier::own, own1056, plausible).ns(), 2 * 20.0 + whole("arrive-poll-own", "1056/2"));
  EXPECT_DOUBLE_EQ(predict(Barrier::grid_sync, own132, plausible).ns(),
                   2 * 20.0 + whole("arrive-poll-grid-sync", "132"));
  EXPECT_DOUBLE_EQ(predict(Barrier::xf_lock, own132, plausible).ns(), 2 * 20.0 + whole("arrive-poll-xf-lock", "132"));
  EXPECT_DOUBLE_EQ(predict(Barrier::own_ticket, own132, plausible).ns(), 2 * 20.0 + whole("arrive-poll-ticket", "132"));
  const BarrierShape tree{1056, 256, 1, 1, 1, 16};
  EXPECT_DOUBLE_EQ(predict(Barrier::own_tree, tree, plausible).ns(), 2 * 20.0 + whole("arrive-poll-tree", "1056k16"));
  // The contention term names what it subtracts.
  EXPECT_EQ(predict(Barrier::own, own1056, plausible).term("contention")->formula,
            "arrive-poll-own(1056/2) - (fence + queue + poll + acquire)");
  const Prediction small = predict(Barrier::own, own132, plausible);
  EXPECT_NEAR(predict(Barrier::own, own132, slower("arrive-poll-own", 2)).ns() - small.ns(),
              whole("arrive-poll-own", "132"), 1e-9);
  // A part measured apart moves only its own term: the contention takes it back.
  EXPECT_NEAR(predict(Barrier::own, own132, slower("fence-rel", 2)).ns(), small.ns(), 1e-9);
  EXPECT_DOUBLE_EQ(small.term("queue")->ns, 0.0);  // 132 x 1.5 ns is hidden by one 200 ns round trip
  EXPECT_DOUBLE_EQ(predict(Barrier::own, own1056, plausible).term("queue")->ns, 1.5 * 528 - 200);  // 528 a counter
  // own-stagger's protocol is measured with its K pollers a block; own-cluster runs own's with
  // fewer pollers, and its poll term, measured apart, is where it differs from own (beside its
  // cluster barrier and one __syncthreads() less).
  const BarrierShape stagger{132, 256, 1, 1, 4};
  EXPECT_DOUBLE_EQ(predict(Barrier::own_stagger, stagger, plausible).ns(), 2 * 20.0 + whole("arrive-poll-own", "132x4"));
  const BarrierShape cluster{132, 256, 1, 4, 1};
  EXPECT_DOUBLE_EQ(predict(Barrier::own_cluster, cluster, plausible).ns() - small.ns(),
                   whole("poll-relaxed", "33") - whole("poll-relaxed", "132") - 20.0 +
                       whole("cluster-barrier", "132c4"));
  // Xiao & Feng's lock-free barrier pays three fences and two hops; its master scans more slots
  // per thread as the grid outgrows the block.
  const auto lf = [&](int n) { return predict(Barrier::xf_lockfree, BarrierShape{n, 256, 1, 1, 1}, plausible); };
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
  EXPECT_EQ(term_ids(tree(132, 8, plausible)),
            (std::vector<std::string>{"sync", "fence", "climb", "poll", "acquire", "contention"}));
  EXPECT_EQ(tree_arity_for(BarrierShape{1056, 256, 1, 1, 1, 2}, Primitives{}), kDefaultTreeArity);
  // Every arity measured (the protocol whole, at each arity): the fewest levels win, and of arities
  // with as few (16 and 32: 1056 -> 66 -> 5 -> 1, 1056 -> 33 -> 2 -> 1) the smaller, whose nodes
  // queue fewer arrivals.
  std::vector<cost::Need> needs;
  for (int arity : kTreeArities)
    for (const cost::Need& n : barrier_needs(Barrier::own_tree, BarrierShape{1056, 256, 1, 1, 1, arity}))
      cost::add_need(needs, n);
  EXPECT_EQ(tree_arity_for(BarrierShape{1056, 256, 1, 1, 1, 2}, measured(needs, plausible)), 16);
}

}  // namespace
}  // namespace cudasync::lockfree_barrier
