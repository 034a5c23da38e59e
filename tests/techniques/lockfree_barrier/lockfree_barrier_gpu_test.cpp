// The barriers on the GPU against the reference model: every correct barrier leaves exactly the
// model's values and words at several grid sizes up to full co-residency (own-cluster in every
// cluster size, where the GPU has clusters); past co-residency every software barrier is ended by
// its deadline and the blocks that never arrived are named (own-cluster: whole clusters), grid.sync
// is refused by the runtime, and relaunch still works; the seed's code never hangs; the timings are
// positive; and the CLI's GPU run passes its checks (found by id) and validates against the schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"
#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {
namespace {

constexpr Barrier kCorrect[] = {Barrier::relaunch,  Barrier::graph, Barrier::xf_lock,   Barrier::xf_lockfree,
                                Barrier::grid_sync, Barrier::own,   Barrier::own_cluster};

// The cluster size the lesson would choose (1 where the GPU has no clusters: own-cluster is skipped there).
GpuSpec spec_for(int blocks, int threads, int phases, const Limits& lim) {
  GpuSpec s;
  s.blocks = blocks;
  s.threads = threads;
  s.phases = phases;
  s.own_counters = std::min(own_counters_for(blocks), blocks);
  s.cluster_size = lim.clusters.empty() ? 1 : own_cluster_size(blocks, lim.clusters);
  s.deadline_ns = 2'000'000'000ull;  // generous: a correct barrier never comes near it
  return s;
}

// Whether barrier b can run this grid here: grid.sync needs cooperative launch; own-cluster needs
// clusters and the grid co-resident in clusters of the chosen size.
bool runs_here(Barrier b, const GpuSpec& s, const Limits& lim) {
  if (b == Barrier::grid_sync) return lim.cooperative_launch;
  if (!uses_clusters(b)) return true;
  if (!lim.cluster_unsupported.empty()) return false;
  for (int i = 0; i < kClusterSizeCount; ++i)
    if (kClusterSizes[i] == s.cluster_size) return s.blocks <= lim.clusters[static_cast<std::size_t>(i)].limit();
  return false;
}

void expect_matches_the_model(Barrier b, const GpuSpec& s, const std::vector<std::uint32_t>& x0,
                              const std::vector<std::uint32_t>& want) {
  const GpuRun g = gpu_run(b, s, x0);
  ASSERT_TRUE(g.refused.empty()) << g.refused;
  EXPECT_FALSE(g.deadline_hit);
  EXPECT_EQ(g.values, want);
  EXPECT_EQ(g.words, final_words(b, s.blocks, s.phases, s.own_counters));
  for (int p : g.phases_done) ASSERT_EQ(p, s.phases);
  for (std::size_t i = 0; i < g.arrive_ns.size(); ++i) {
    ASSERT_NE(g.arrive_ns[i], 0) << "block " << i;
    ASSERT_NE(g.release_ns[i], 0) << "block " << i;
  }
}

TEST(LockfreeBarrierGpu, EveryCorrectBarrierMatchesTheModelUpToFullCoresidency) {
  CUDASYNC_REQUIRE_GPU();
  for (int threads : {32, 256, 1024}) {
    const Limits lim = gpu_limits(threads, 0);
    const int full = std::min(lim.software.limit(), lim.cooperative.limit());
    const int sms = lim.software.sm_count;
    for (int blocks : {1, 2, 7, sms, full}) {
      if (blocks > full) continue;
      const int phases = blocks == full ? 9 : 16;
      const auto x0 = initial_values(blocks, threads, 5);
      const auto want = model_values(blocks, threads, phases, 5);
      for (Barrier b : kCorrect) {
        const GpuSpec s = spec_for(blocks, threads, phases, lim);
        if (!runs_here(b, s, lim)) continue;
        SCOPED_TRACE(std::string(barrier_key(b)) + ", " + std::to_string(blocks) + " blocks of " +
                     std::to_string(threads) + ", clusters of " + std::to_string(s.cluster_size));
        expect_matches_the_model(b, s, x0, want);
      }
    }
  }
}

// own-tree, the bench's combining tree, at every arity it may be given: a grid of one block (no
// level), grids that fill no node (7 blocks of arity 8), one per SM and full co-residency.
TEST(LockfreeBarrierGpu, OwnTreeMatchesTheModelAtEveryArity) {
  CUDASYNC_REQUIRE_GPU();
  const int threads = 256;
  const Limits lim = gpu_limits(threads, 0);
  const int full = lim.lean.limit();
  for (int arity : kTreeArities)
    for (int blocks : {1, 2, 7, lim.software.sm_count, full}) {
      if (blocks > full) continue;
      const int phases = 9;
      GpuSpec s = spec_for(blocks, threads, phases, lim);
      s.tree_arity = arity;
      SCOPED_TRACE("own-tree, arity " + std::to_string(arity) + ", " + std::to_string(blocks) + " blocks");
      expect_matches_the_model(Barrier::own_tree, s, initial_values(blocks, threads, 3),
                               model_values(blocks, threads, phases, 3));
    }
}

// own-ticket, the bench's candidate that sleeps for the arrivals still to come: its values and its
// counter (k x N) at one block, grids smaller than a warp, one per SM and full co-residency, with
// 32 to 1024 threads.
TEST(LockfreeBarrierGpu, OwnTicketMatchesTheModel) {
  CUDASYNC_REQUIRE_GPU();
  for (int threads : {32, 256, 1024}) {
    const Limits lim = gpu_limits(threads, 0);
    const int full = lim.lean.limit();
    for (int blocks : {1, 2, 7, lim.software.sm_count, full}) {
      if (blocks > full) continue;
      const int phases = 9;
      SCOPED_TRACE("own-ticket, " + std::to_string(blocks) + " blocks of " + std::to_string(threads));
      expect_matches_the_model(Barrier::own_ticket, spec_for(blocks, threads, phases, lim),
                               initial_values(blocks, threads, 4), model_values(blocks, threads, phases, 4));
    }
  }
}

TEST(LockfreeBarrierGpu, OwnClusterMatchesTheModelInEveryClusterSize) {
  CUDASYNC_REQUIRE_GPU();
  const Limits lim = gpu_limits(256, 0);
  if (!lim.cluster_unsupported.empty()) GTEST_SKIP() << lim.cluster_unsupported;
  ASSERT_EQ(lim.clusters.size(), static_cast<std::size_t>(kClusterSizeCount));
  for (int i = 0; i < kClusterSizeCount; ++i) {
    const int cs = kClusterSizes[i];
    const int full = lim.clusters[static_cast<std::size_t>(i)].limit();
    ASSERT_GE(full, cs) << "not one cluster of " << cs << " fits";
    EXPECT_LE(full, lim.software.limit()) << "clusters cannot fit more blocks than the SMs hold";
    for (int blocks : {cs, 3 * cs, full}) {
      SCOPED_TRACE(std::to_string(blocks) + " blocks in clusters of " + std::to_string(cs));
      const int phases = blocks == full ? 9 : 16;
      GpuSpec s = spec_for(blocks, 256, phases, lim);
      s.cluster_size = cs;
      expect_matches_the_model(Barrier::own_cluster, s, initial_values(blocks, 256, 9), model_values(blocks, 256, phases, 9));
    }
  }
}

TEST(LockfreeBarrierGpu, NoBlockLeavesBarrierOneBeforeTheLastArrives) {
  CUDASYNC_REQUIRE_GPU();
  const Limits lim = gpu_limits(256, 0);
  const int blocks = lim.software.sm_count;
  const auto x0 = initial_values(blocks, 256, 1);
  for (Barrier b : {Barrier::xf_lock, Barrier::xf_lockfree, Barrier::grid_sync, Barrier::own, Barrier::own_cluster}) {
    const GpuSpec s = spec_for(blocks, 256, 4, lim);
    if (!runs_here(b, s, lim)) continue;
    SCOPED_TRACE(barrier_key(b));
    const GpuRun g = gpu_run(b, s, x0);
    ASSERT_TRUE(g.refused.empty());
    const auto last_arrival = *std::max_element(g.arrive_ns.begin(), g.arrive_ns.end());
    for (auto r : g.release_ns) EXPECT_GE(r, last_arrival);
  }
}

TEST(LockfreeBarrierGpu, PastCoresidencyTheDeadlineEndsItAndNamesWhoNeverArrived) {
  CUDASYNC_REQUIRE_GPU();
  const Limits lim = gpu_limits(256, 0);
  const int blocks = lim.software.limit() + 100;
  const auto x0 = initial_values(blocks, 256, 1);
  GpuSpec s = spec_for(blocks, 256, 4, lim);
  s.deadline_ns = 50'000'000ull;  // 50 ms
  for (Barrier b : {Barrier::xf_lock, Barrier::xf_lockfree, Barrier::own, Barrier::xf_lock_unrepaired}) {
    SCOPED_TRACE(barrier_key(b));
    const auto t0 = std::chrono::steady_clock::now();
    const GpuRun g = gpu_run(b, s, x0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(seconds, 5.0) << "the deadline did not bound the run";
    EXPECT_TRUE(g.deadline_hit);
    int arrived = 0, never = 0, gave_up = 0;
    for (int i = 0; i < blocks; ++i) {
      const auto u = static_cast<std::size_t>(i);
      (g.arrive_ns[u] != 0 ? arrived : never) += 1;
      gave_up += g.gave_up[u];
      EXPECT_LT(g.phases_done[u], s.phases) << "block " << i << " finished every phase past co-residency";
    }
    EXPECT_GT(never, 0);
    EXPECT_GT(gave_up, 0);
    EXPECT_LE(arrived, lim.software.limit());
    EXPECT_EQ(arrived + never, blocks);
  }
  if (lim.cluster_unsupported.empty()) {
    // own-cluster in clusters of 8: the resident clusters give up, and the clusters that start
    // afterwards stop before phase 1 as a whole (never half a cluster).
    GpuSpec c = s;
    c.cluster_size = 8;
    c.blocks = lim.clusters.back().limit() + 8 * 13;
    const GpuRun g = gpu_run(Barrier::own_cluster, c, initial_values(c.blocks, 256, 1));
    EXPECT_TRUE(g.deadline_hit);
    int arrived = 0, never = 0, gave_up = 0;
    for (int first = 0; first < c.blocks; first += 8) {
      const bool in = g.arrive_ns[static_cast<std::size_t>(first)] != 0;
      for (int i = first; i < first + 8; ++i) {
        const auto u = static_cast<std::size_t>(i);
        EXPECT_EQ(g.arrive_ns[u] != 0, in) << "block " << i << " of the cluster from block " << first;
        (g.arrive_ns[u] != 0 ? arrived : never) += 1;
        gave_up += g.gave_up[u];
        EXPECT_LT(g.phases_done[u], c.phases) << "block " << i;
      }
    }
    EXPECT_GT(never, 0);
    EXPECT_GT(gave_up, 0);
    EXPECT_LE(arrived, lim.clusters.back().limit());
  }
  if (lim.cooperative_launch) {
    GpuSpec c = s;
    c.blocks = lim.cooperative.limit() + 1;
    const GpuRun g = gpu_run(Barrier::grid_sync, c, initial_values(c.blocks, 256, 1));
    EXPECT_NE(g.refused.find("cudaErrorCooperativeLaunchTooLarge"), std::string::npos) << g.refused;
  }
  // Relaunch needs no co-residency: the grid runs in waves and the values are right.
  const GpuRun r = gpu_run(Barrier::relaunch, s, x0);
  EXPECT_FALSE(r.deadline_hit);
  EXPECT_EQ(r.values, model_values(blocks, 256, 4, 1));
}

TEST(LockfreeBarrierGpu, TheSeedsCodeNeverHangs) {
  CUDASYNC_REQUIRE_GPU();
  const Limits lim = gpu_limits(256, 0);
  for (int blocks : {1, 2, lim.software.sm_count, lim.software.limit()}) {
    const auto x0 = initial_values(blocks, 256, 3);
    GpuSpec s = spec_for(blocks, 256, 16, lim);
    s.deadline_ns = 50'000'000ull;
    for (Barrier b : {Barrier::xf_lock_unrepaired, Barrier::xf_lockfree_unrepaired}) {
      SCOPED_TRACE(std::string(barrier_key(b)) + ", " + std::to_string(blocks) + " blocks");
      const auto t0 = std::chrono::steady_clock::now();
      const GpuRun g = gpu_run(b, s, x0);
      EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
      EXPECT_EQ(g.values.size(), static_cast<std::size_t>(blocks) * 256u);
    }
  }
}

TEST(LockfreeBarrierGpu, TimingsArePositiveAndTheFloorIsAnL2RoundTrip) {
  CUDASYNC_REQUIRE_GPU();
  const Limits lim = gpu_limits(256, 0);
  const int blocks = lim.software.sm_count;
  for (Barrier b : kCorrect) {
    const GpuSpec s = spec_for(blocks, 256, 2, lim);
    if (!runs_here(b, s, lim)) continue;
    SCOPED_TRACE(barrier_key(b));
    const Timing t = gpu_time(b, s, 3, 50, 250);
    EXPECT_FALSE(t.deadline_hit);
    ASSERT_EQ(t.ns.size(), 3u);
    for (double ns : t.ns) {
      EXPECT_GT(ns, 10.0);
      EXPECT_LT(ns, 1e6);
    }
  }
  const auto floor = gpu_floor_ns(3, 500);
  ASSERT_EQ(floor.size(), 3u);
  for (double ns : floor) {
    EXPECT_GT(ns, 20.0);
    EXPECT_LT(ns, 5000.0);
  }
  EXPECT_GT(gpu_timer_step_ns(), 0.0);
}

TEST(LockfreeBarrierGpu, CliRunPassesItsChecksAndValidates) {
  CUDASYNC_REQUIRE_GPU();
  for (const char* args : {"lockfree-barrier --backend gpu --json", "lockfree-barrier --backend gpu --trace --json",
                           "lockfree-barrier --backend gpu --blocks 3000 --allow-unsafe --deadline-ms 30 --json",
                           "lockfree-barrier --backend gpu --part own-cluster,own --blocks 264 --phases 4 --json"}) {
    SCOPED_TRACE(args);
    const auto doc = test::valid_document(args, 0);
    EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
    EXPECT_EQ(doc["backend"]["used"], "gpu");
  }
  // A plain run compares every correct barrier with the model, and times it.
  const auto doc = test::valid_document("lockfree-barrier --backend gpu --part own,grid-sync --json", 0);
  const auto& sections = doc["report"]["sections"];
  for (const char* id : {"own", "grid-sync"}) {
    EXPECT_TRUE(sections[id]["checks"]["gpu-agrees"]["passed"].get<bool>()) << id;
    EXPECT_FALSE(sections[id]["measurements"]["time-per-barrier"]["samples"].empty()) << id;
  }
  EXPECT_TRUE(sections["own"]["checks"]["gpu-agrees-words"]["passed"].get<bool>());
  EXPECT_TRUE(sections["summary"]["tables"]["barriers"]["rows"][1]["vs-grid-sync"].is_number());
  // --bench: every cell of grid.sync measured, the floor too, and no deadline reached.
  const auto bench = test::valid_document("lockfree-barrier --backend gpu --bench --json", 0);
  const auto& b = bench["report"]["sections"]["bench"];
  EXPECT_TRUE(b["checks"]["no-deadline"]["passed"].get<bool>());
  EXPECT_FALSE(b["measurements"]["floor"]["samples"].empty());
}

}  // namespace
}  // namespace cudasync::lockfree_barrier
