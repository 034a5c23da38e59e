// The cost model's probes on a GPU: each primitive comes back as a plausible duration (or, where the
// probe cannot run here, with the reason), and the orderings the model relies on hold: a queue of
// same-address atomics is never shorter than one atomic alone, a fence after a store waits for it.
#include <gtest/gtest.h>

#include <cmath>

#include "core/cost/cost_gpu.hpp"
#include "core/cost/primitive_keys.hpp"
#include "support/gpu_available.hpp"

namespace cudasync::cost {
namespace {

double median_of(const Need& n) {
  const ProbeResult r = gpu_probe(n.spec);
  EXPECT_TRUE(r.skipped.empty()) << n.key.id << " " << n.key.at << ": " << r.skipped;
  EXPECT_EQ(r.ns.size(), static_cast<std::size_t>(n.spec.reps)) << n.key.id;
  Primitives p;
  p.set(n.key, r.ns);
  return p.ns(n.key);
}

TEST(CostGpu, EveryKindOfProbeMeasuresAPlausibleDuration) {
  CUDASYNC_REQUIRE_GPU();
  const double rt = median_of(prim::rt_atomic());
  EXPECT_GT(rt, 20.0);  // an L2 round trip: a few hundred ns on an H100
  EXPECT_LT(rt, 5000.0);
  EXPECT_GE(median_of(prim::queue_atomic(264)), 0.5 * rt);
  EXPECT_GT(median_of(prim::under(Op::store_fence_sc, Background::none, 1, 1)),
            median_of(prim::under(Op::store_issue, Background::none, 1, 1)));
  EXPECT_GT(median_of(prim::under(Op::cas_round, Background::cas, 33, 128)), 0.0);
  EXPECT_GT(median_of(prim::under(Op::poll_round, Background::slots, 8, 1)), 0.0);
  EXPECT_GT(median_of(prim::fence_under(Op::fence_rel, 132)), 0.0);
  EXPECT_GT(median_of(prim::poll(PollKind::relaxed, 132, 1)), 0.0);
  EXPECT_GT(median_of(prim::poll(PollKind::volatile_load, 64, 4)), 0.0);
  // A barrier's protocol measured whole: a round is at least one L2 round trip, whatever the protocol.
  for (Protocol p : {Protocol::own, Protocol::grid_sync, Protocol::xf_lock, Protocol::tree, Protocol::ticket})
    EXPECT_GE(median_of(prim::arrive_poll(p, 264, 1, 8, 1, 1)), 0.5 * rt) << prim::protocol_id(p);
  EXPECT_GE(median_of(prim::arrive_poll(Protocol::own, 1056, 2)), 0.5 * rt);
  EXPECT_GE(median_of(prim::arrive_poll(Protocol::own, 264, 2, 8, 2)), 0.5 * rt);  // own-stagger: 2 pollers a block
  EXPECT_GE(median_of(prim::arrive_poll(Protocol::tree, 1, 1, 8)), 0.0);  // one block: no level to climb
  EXPECT_GT(median_of(prim::sync(256)), 0.0);
  EXPECT_GT(median_of(prim::launch(Probe::launch_2)), median_of(prim::launch(Probe::launch_1)) * 0.8);
  EXPECT_GT(median_of(prim::atomic_blocks(4096, 128, true)), 0.0);
  EXPECT_GT(median_of(prim::grid_sync(132, 128)), 0.0);
  // Clusters: a duration on sm_90, the reason elsewhere.
  const ProbeResult c = gpu_probe(prim::cluster_barrier(132, 4, 256).spec);
  EXPECT_TRUE(c.skipped.empty() ? c.ns.size() == 5u : c.ns.empty()) << c.skipped;
  // A grid that cannot be resident at once is skipped, never launched.
  const ProbeResult huge = gpu_probe(prim::queue_atomic(1 << 20).spec);
  EXPECT_TRUE(huge.ns.empty());
  EXPECT_NE(huge.skipped.find("do not fit at once"), std::string::npos) << huge.skipped;
}

}  // namespace
}  // namespace cudasync::cost
