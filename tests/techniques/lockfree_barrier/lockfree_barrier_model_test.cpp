// The reference model of lockfree-barrier: the multi-phase values, the words each protocol leaves,
// and the step simulation (completion, the deadlock past co-residency, the seed's two bugs).
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"

#include <numeric>
#include <string>

#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {
namespace {

using cudasync::test::contains;

TEST(LockfreeBarrierModel, ValuesFollowTheNeighbourRule) {
  // 3 blocks of 2 threads, 1 phase, by hand: out[b][t] = mix(in[b][t], in[b+1][t], in[b-1][t+1], 1).
  const auto x = initial_values(3, 2, 7);
  const auto y = model_values(3, 2, 1, 7);
  ASSERT_EQ(y.size(), 6u);
  const auto at = [&](int b, int t) { return x[static_cast<std::size_t>(b * 2 + t)]; };
  EXPECT_EQ(y[0], mix(at(0, 0), at(1, 0), at(2, 1), 1));
  EXPECT_EQ(y[1], mix(at(0, 1), at(1, 1), at(2, 0), 1));
  EXPECT_EQ(y[4], mix(at(2, 0), at(0, 0), at(1, 1), 1));
  // Two phases are the one-phase rule applied twice.
  const auto z = model_values(3, 2, 2, 7);
  const auto yy = [&](int b, int t) { return y[static_cast<std::size_t>(b * 2 + t)]; };
  EXPECT_EQ(z[2], mix(yy(1, 0), yy(2, 0), yy(0, 1), 2));
  // Another seed, other values; one value early is visible at the end.
  EXPECT_NE(model_values(3, 2, 2, 8), z);
}

TEST(LockfreeBarrierModel, StaleNeighbourChangesTheResult) {
  // What a barrier that lets block 0 through early does: it reads block 1's phase-1 value before
  // block 1 wrote it (the initial value instead), and the error spreads.
  const int N = 4, T = 32, P = 3;
  auto cur = initial_values(N, T, 1);
  auto next = cur;
  for (int p = 1; p <= P; ++p) {
    auto stale = cur;
    for (int b = 0; b < N; ++b)
      for (int t = 0; t < T; ++t) {
        const auto in = [&](int bb, int tt) { return cur[static_cast<std::size_t>(bb * T + tt)]; };
        std::uint32_t right = in((b + 1) % N, t);
        if (p == 2 && b == 0 && t == 0) right = initial_value(1, static_cast<std::uint32_t>(T));  // a phase too old
        next[static_cast<std::size_t>(b * T + t)] = mix(in(b, t), right, in((b + N - 1) % N, (t + 1) % T), static_cast<std::uint32_t>(p));
      }
    cur.swap(next);
  }
  EXPECT_NE(cur, model_values(N, T, P, 1));
}

TEST(LockfreeBarrierModel, FinalWords) {
  EXPECT_EQ(final_words(Barrier::xf_lock, 132, 16, 1), std::vector<std::uint32_t>{15u * 132u});
  const auto lf = final_words(Barrier::xf_lockfree, 5, 4, 1);
  EXPECT_EQ(lf, std::vector<std::uint32_t>(10, 3u));
  EXPECT_EQ(final_words(Barrier::own, 10, 3, 4), (std::vector<std::uint32_t>{6, 6, 4, 4}));
  EXPECT_EQ(final_words(Barrier::own_cluster, 10, 3, 4), final_words(Barrier::own, 10, 3, 4));  // the same arrivals
  EXPECT_TRUE(final_words(Barrier::grid_sync, 10, 3, 1).empty());
  EXPECT_TRUE(final_words(Barrier::relaunch, 10, 3, 1).empty());
}

TEST(LockfreeBarrierModel, OwnCountersSpreadEveryBlock) {
  // The measured choice: one counter at 1 block per SM, two at 528 and 1056 blocks, then 528
  // arrivals per counter, at most one counter per lane of warp 0.
  EXPECT_EQ(own_counters_for(1), 1);
  EXPECT_EQ(own_counters_for(132), 1);
  EXPECT_EQ(own_counters_for(192), 1);
  EXPECT_EQ(own_counters_for(193), 2);
  EXPECT_EQ(own_counters_for(528), 2);
  EXPECT_EQ(own_counters_for(1056), 2);
  EXPECT_EQ(own_counters_for(1057), 3);
  EXPECT_EQ(own_counters_for(4224), 8);
  EXPECT_EQ(own_counters_for(65536), kMaxOwnCounters);
  for (int blocks : {1, 7, 132, 1056, 5000}) {
    const int C = std::min(own_counters_for(blocks), blocks);
    int sum = 0;
    for (int l = 0; l < C; ++l) sum += own_share(blocks, C, l);
    EXPECT_EQ(sum, blocks) << blocks;
  }
  EXPECT_EQ(own_share(10, 4, 0), 3);
  EXPECT_EQ(own_share(10, 4, 3), 2);
  EXPECT_EQ(own_share(10, 4, 4), 0);
}

Coresidency clusters_of(int cs, int clusters) {
  Coresidency c;
  c.threads = 256;
  c.sm_count = 132;
  c.cluster_size = cs;
  c.clusters = clusters;
  return c;
}

TEST(LockfreeBarrierModel, OwnClusterTakesTheLargestClusterThatDividesAndFits) {
  // What a 132-SM Hopper answers at 256 threads: 1056 blocks alone or in pairs, 992 in fours or eights.
  const std::vector<Coresidency> hopper = {clusters_of(1, 1056), clusters_of(2, 528), clusters_of(4, 248),
                                           clusters_of(8, 124)};
  EXPECT_EQ(own_cluster_size(132, hopper), 4);   // 132 = 33 x 4; 8 does not divide it
  EXPECT_EQ(own_cluster_size(264, hopper), 8);
  EXPECT_EQ(own_cluster_size(992, hopper), 8);
  EXPECT_EQ(own_cluster_size(1000, hopper), 2);  // 8 and 4 divide it but fit only 992
  EXPECT_EQ(own_cluster_size(1056, hopper), 2);
  EXPECT_EQ(own_cluster_size(7, hopper), 1);
  EXPECT_EQ(own_cluster_size(5000, hopper), 2);  // fits nowhere: the size that fits the most, for the refusal
  EXPECT_EQ(own_cluster_size(16, {}), 1);        // no clusters known
  // The model's assumption: clusters fit wherever their blocks do.
  const Coresidency m = model_cluster_coresidency(256, 8);
  EXPECT_EQ(m.cluster_size, 8);
  EXPECT_EQ(m.limit(), 1056);
  EXPECT_NE(m.text().find("132 clusters of 8 blocks of 256 threads = 1056"), std::string::npos) << m.text();
}

TEST(LockfreeBarrierModel, KeysRoundTrip) {
  for (Barrier b : all_barriers()) {
    const auto back = barrier_from_key(barrier_key(b));
    ASSERT_TRUE(back.has_value()) << barrier_key(b);
    EXPECT_EQ(*back, b);
  }
  EXPECT_FALSE(barrier_from_key("xf_lock").has_value());
  EXPECT_EQ(all_barriers().size(), static_cast<std::size_t>(kBarrierCount));
}

SimSpec spec(Barrier b, int blocks, int slots, int barriers = 3, int cluster_size = 1) {
  SimSpec s;
  s.barrier = b;
  s.blocks = blocks;
  s.slots = slots;
  s.barriers = barriers;
  s.threads = 256;
  s.own_counters = std::min(own_counters_for(blocks), blocks);
  s.shown_barriers = barriers;
  s.cluster_size = cluster_size;
  return s;
}

TEST(LockfreeBarrierSim, CorrectProtocolsCompleteWithoutEarlyRelease) {
  for (Barrier b : {Barrier::xf_lock, Barrier::xf_lockfree, Barrier::grid_sync, Barrier::own, Barrier::own_cluster,
                    Barrier::relaunch, Barrier::graph})
    for (int blocks : {1, 2, 5, 8, 300}) {
      const int cs = b == Barrier::own_cluster ? (blocks % 4 == 0 ? 4 : 1) : 1;
      SCOPED_TRACE(std::string(barrier_key(b)) + " blocks " + std::to_string(blocks) + " cluster " + std::to_string(cs));
      const SimResult r = simulate(spec(b, blocks, 1056, 3, cs));
      EXPECT_TRUE(r.completed);
      EXPECT_FALSE(r.deadlock);
      EXPECT_EQ(r.early_barrier, 0);
      for (int a : r.arrived) EXPECT_EQ(a, 3);
      EXPECT_FALSE(r.steps.empty());
    }
}

TEST(LockfreeBarrierSim, StatesPrintTheWords) {
  const SimResult lock = simulate(spec(Barrier::xf_lock, 4, 8, 2));
  ASSERT_FALSE(lock.steps.empty());
  EXPECT_EQ(lock.steps.back().state, "g_mutex 8");  // 2 barriers x 4 blocks
  EXPECT_TRUE(contains(lock.steps[1].event, "atomicAdd(&g_mutex, 1)"));
  const SimResult lf = simulate(spec(Barrier::xf_lockfree, 4, 8, 2));
  EXPECT_EQ(lf.steps.back().state, "Arrayin 2 2 2 2 | Arrayout 2 2 2 2");
  const SimResult gs = simulate(spec(Barrier::grid_sync, 4, 8, 1));
  EXPECT_EQ(gs.steps.back().state, "counter 0x80000000");
  const SimResult own = simulate(spec(Barrier::own, 4, 8, 2));
  EXPECT_EQ(own.steps.back().state, "counter 8");
}

TEST(LockfreeBarrierSim, OwnClusterLeadersPollAndTheirClustersWait) {
  // 4 blocks in clusters of 2: blocks 0 and 2 lead. Each block adds to the counter; the peers go
  // to the cluster barrier at once; a leader joins it only when the counter reaches 4 x k.
  const SimResult r = simulate(spec(Barrier::own_cluster, 4, 8, 2, 2));
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.early_barrier, 0);
  EXPECT_EQ(r.steps.back().state, "counter 8");
  std::string leaders, peers;
  bool waiting = false;
  for (const auto& s : r.steps) {
    if (contains(s.event, "arrive at barrier 1") && contains(s.event, "then poll (the cluster's leader)"))
      leaders += s.blocks + ";";
    if (contains(s.event, "arrive at barrier 1") && contains(s.event, "then wait at the cluster barrier"))
      peers += s.blocks + ";";
    waiting = waiting || contains(s.state, "at the cluster barrier: 1, 3");
  }
  EXPECT_EQ(leaders, "0;2;");
  EXPECT_EQ(peers, "1;3;");
  EXPECT_TRUE(waiting);
  EXPECT_TRUE(contains(r.schedule, "clusters of 2 blocks start whole")) << r.schedule;
}

TEST(LockfreeBarrierSim, OwnClusterStartsWholeClustersAndDeadlocksPastThem) {
  // 8 blocks in clusters of 4 with 6 slots: the second cluster never fits (2 slots stay free),
  // where block by block blocks 4 and 5 would have started.
  const SimResult r = simulate(spec(Barrier::own_cluster, 8, 6, 3, 4));
  EXPECT_TRUE(r.deadlock);
  EXPECT_EQ(r.spinning, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.waiting, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_TRUE(contains(r.steps.back().event, "4-7 wait for room for their whole cluster")) << r.steps.back().event;
  // With room for both clusters it completes.
  EXPECT_TRUE(simulate(spec(Barrier::own_cluster, 8, 8, 3, 4)).completed);
}

TEST(LockfreeBarrierSim, PastCoresidencyEverySoftwareBarrierDeadlocks) {
  for (Barrier b : {Barrier::xf_lock, Barrier::xf_lockfree, Barrier::grid_sync, Barrier::own, Barrier::own_cluster}) {
    SCOPED_TRACE(barrier_key(b));
    const SimResult r = simulate(spec(b, 6, 4, 3, b == Barrier::own_cluster ? 2 : 1));
    EXPECT_TRUE(r.deadlock);
    EXPECT_FALSE(r.completed);
    EXPECT_EQ(r.spinning, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(r.waiting, (std::vector<int>{4, 5}));
    EXPECT_TRUE(contains(r.steps.back().event, "deadlock")) << r.steps.back().event;
    EXPECT_TRUE(contains(r.steps.back().event, "4-5 wait for")) << r.steps.back().event;
  }
  const SimResult big = simulate(spec(Barrier::xf_lock, 5000, 1056));
  EXPECT_TRUE(big.deadlock);
  EXPECT_EQ(big.spinning.size(), 1056u);
  EXPECT_EQ(big.waiting.size(), 3944u);
  EXPECT_EQ(big.steps.back().state, "g_mutex 1056");
}

TEST(LockfreeBarrierSim, RelaunchRunsInWavesPastCoresidency) {
  const SimResult r = simulate(spec(Barrier::relaunch, 6, 4, 2));
  EXPECT_TRUE(r.completed);
  EXPECT_FALSE(r.deadlock);
  ASSERT_GE(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].blocks, "0-3");
  EXPECT_EQ(r.steps[1].blocks, "4-5");
  EXPECT_TRUE(contains(r.steps[2].event, "barrier 1")) << r.steps[2].event;
}

TEST(LockfreeBarrierSim, SeedLockDeadlocksWhenABlockRunsAhead) {
  // `while (g_mutex != goalVal)`: block 0 passes barrier 1 and adds 1 for barrier 2 before the
  // others look, and they never see goalVal.
  const SimResult r = simulate(spec(Barrier::xf_lock_unrepaired, 4, 8, 3));
  EXPECT_TRUE(r.deadlock);
  EXPECT_EQ(r.spinning, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(r.waiting.empty());
  EXPECT_EQ(r.steps.back().state, "g_mutex 5");
  bool saw_neq = false;
  for (const auto& s : r.steps) saw_neq = saw_neq || contains(s.event, "g_mutex 5 != goalVal 4");
  EXPECT_TRUE(saw_neq);
  // The repaired one (`>=`) passes the same schedule.
  EXPECT_TRUE(simulate(spec(Barrier::xf_lock, 4, 8, 3)).completed);
  // With one barrier there is no next barrier to run ahead to.
  EXPECT_TRUE(simulate(spec(Barrier::xf_lock_unrepaired, 4, 8, 1)).completed);
}

TEST(LockfreeBarrierSim, SeedLockfreeLetsBlocksThroughEarly) {
  const SimResult r = simulate(spec(Barrier::xf_lockfree_unrepaired, 4, 8, 3));
  EXPECT_EQ(r.early_barrier, 1);
  EXPECT_EQ(r.early_block, 0);
  // One slot per thread: with more blocks than threads the master checks slots 0..threads-1 only.
  SimSpec s = spec(Barrier::xf_lockfree_unrepaired, 6, 8, 1);
  s.threads = 4;
  const SimResult few = simulate(s);
  bool unchecked = false;
  for (const auto& st : few.steps) unchecked = unchecked || contains(st.event, "slots 4..5: no thread checks them");
  EXPECT_TRUE(unchecked);
}

TEST(LockfreeBarrierSim, BlockRanges) {
  EXPECT_EQ(block_ranges({0, 1, 2, 3, 5, 7, 8}), "0-3, 5, 7-8");
  EXPECT_EQ(block_ranges({}), "");
  EXPECT_EQ(block_ranges({4}), "4");
  EXPECT_EQ(block_ranges({0, 2, 4, 6, 8}, 2), "0, 2, ... (3 more)");
}

}  // namespace
}  // namespace cudasync::lockfree_barrier
