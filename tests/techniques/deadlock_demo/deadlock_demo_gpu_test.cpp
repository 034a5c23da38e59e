// deadlock-demo on a real GPU: every scenario ends by its deadline, its stuck set is the one the
// model predicts where the schedule is deterministic, the GPU still runs a checked kernel after
// each, the fixes complete with correct results, the barrier children end without the host's
// timeout, and the whole lesson passes its checks through the real binary in well under 5 s.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "core/child_process.hpp"
#include "core/parts/child.hpp"
#include "support/gpu_available.hpp"
#include "support/cli_expect.hpp"
#include "support/run_cli.hpp"
#include "techniques/deadlock_demo/lesson.hpp"

namespace cudasync::deadlock_demo {
namespace {

constexpr unsigned long long kDeadlineNs = 100'000'000ull;  // 100 ms

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string folded(const std::vector<Record>& rs, const Describe& d, const std::string& noun) {
  return ranges_text(fold(rs, d), noun);
}

// The latest give-up, on the grid's clock: it must come after the deadline and not long after.
void expect_gave_up_at_the_deadline(const std::vector<Record>& rs, unsigned long long deadline_ns) {
  long long last = -1;
  for (const auto& r : rs)
    if (r.state == static_cast<int>(State::gave_up)) last = std::max(last, r.end_ns);
  ASSERT_GE(last, 0) << "nobody gave up";
  EXPECT_GE(last, static_cast<long long>(deadline_ns));
  EXPECT_LT(last, static_cast<long long>(deadline_ns) + 500'000'000LL) << "gave up long after the deadline";
}

void expect_healthy() {
  const Health h = gpu_health();
  EXPECT_TRUE(h.ok) << h.detail;
}

TEST(DeadlockDemoGpu, GridOversubscribedStopsAtTheDeadlineWithTheModelsStuckSetAndTheFixesComplete) {
  CUDASYNC_REQUIRE_GPU();
  const Coresidency c = gpu_coresidency(GridKernel::counter_barrier, 0);
  const int blocks = 2 * c.limit();
  const auto t0 = std::chrono::steady_clock::now();
  const GridRun g = gpu_grid_barrier(blocks, kDeadlineNs);
  EXPECT_LT(seconds_since(t0), 3.0) << "the deadline did not bound the launch";
  EXPECT_TRUE(g.timed_out);
  EXPECT_FALSE(g.completed);
  EXPECT_EQ(g.counter, c.limit()) << "arrivals: the resident blocks only";
  const Describe d = barrier_describe(blocks);
  EXPECT_EQ(folded(g.records, d, "block"), folded(grid_barrier_model(blocks, c).records, d, "block"));
  expect_gave_up_at_the_deadline(g.records, kDeadlineNs);
  expect_healthy();
  // Fix 1: the grid the occupancy API allows.
  const GridRun f = gpu_grid_barrier(c.limit(), kDeadlineNs);
  EXPECT_TRUE(f.completed);
  EXPECT_TRUE(f.result_ok) << f.result;
  EXPECT_FALSE(f.timed_out);
  // Fix 2: cooperative launch refuses the large grid at once, runs the one that fits.
  if (gpu_cooperative_launch(0)) {
    const CoopRun refused = gpu_grid_barrier_cooperative(blocks, kDeadlineNs);
    EXPECT_FALSE(refused.launched);
    EXPECT_EQ(refused.error_code, 720) << refused.error_name;
    EXPECT_EQ(refused.error_name, "cudaErrorCooperativeLaunchTooLarge");
    for (const auto& r : refused.run.records) EXPECT_EQ(r.state, static_cast<int>(State::never_started));
    const CoopRun fits = gpu_grid_barrier_cooperative(c.limit(), kDeadlineNs);
    EXPECT_TRUE(fits.launched) << fits.error_name;
    EXPECT_TRUE(fits.run.result_ok) << fits.run.result;
  }
  expect_healthy();
}

TEST(DeadlockDemoGpu, TheIssuesGridOf4000BlocksNamesTheResidentAndTheLateBlocks) {
  CUDASYNC_REQUIRE_GPU();
  const Coresidency c = gpu_coresidency(GridKernel::counter_barrier, 0);
  if (c.limit() >= 4000) GTEST_SKIP() << "4000 blocks all fit on this GPU (" << c.text() << ")";
  const GridRun g = gpu_grid_barrier(4000, 20'000'000ull);
  const Describe d = barrier_describe(4000);
  EXPECT_EQ(folded(g.records, d, "block"), "blocks 0-" + std::to_string(c.limit() - 1) + " spun on the counter at " +
                                               std::to_string(c.limit()) + "/4000; blocks " +
                                               std::to_string(c.limit()) + "-3999 started after the deadline");
  expect_healthy();
}

TEST(DeadlockDemoGpu, ProducerBeforeConsumerStopsAndTheTicketFixCompletes) {
  CUDASYNC_REQUIRE_GPU();
  const Coresidency c = gpu_coresidency(GridKernel::chain, 0);
  const int blocks = 2 * c.limit();
  const GridRun g = gpu_chain(blocks, kDeadlineNs, false);
  EXPECT_TRUE(g.timed_out);
  const Describe d = chain_describe();
  EXPECT_EQ(folded(g.records, d, "block"), folded(chain_model(blocks, c).records, d, "block"));
  expect_gave_up_at_the_deadline(g.records, kDeadlineNs);
  expect_healthy();
  // The same chain within co-residency completes, with the suffix sums right.
  const GridRun fits = gpu_chain(c.limit(), kDeadlineNs, false);
  EXPECT_TRUE(fits.completed);
  EXPECT_TRUE(fits.result_ok) << fits.result;
  // The fix completes at any size.
  for (int n : {blocks, 3 * c.limit() + 7}) {
    const GridRun f = gpu_chain(n, kDeadlineNs, true);
    EXPECT_TRUE(f.completed) << n << " blocks";
    EXPECT_TRUE(f.result_ok) << f.result;
    EXPECT_EQ(f.counter, n) << "every block drew one ticket";
    std::vector<int> sorted = f.tickets;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i) << "tickets are 0..n-1";
  }
  expect_healthy();
}

TEST(DeadlockDemoGpu, AWarpFinishesItsSpinLockButNotACycleBetweenItsLanes) {
  CUDASYNC_REQUIRE_GPU();
  const LaneRun lock = gpu_warp_spinlock(kSpinlockIters, kDeadlineNs);
  EXPECT_FALSE(lock.timed_out) << "independent thread scheduling (sm_70+) finishes the lock in one warp";
  EXPECT_EQ(lock.count, lock.expected);
  const LaneRun ring = gpu_lane_ring(kDeadlineNs);
  EXPECT_TRUE(ring.timed_out);
  EXPECT_EQ(ring.count, 0);
  const WarpModel m = warp_model({});
  EXPECT_EQ(folded(ring.records, ring_describe(), "lane"), folded(m.ring_independent.records, ring_describe(), "lane"));
  expect_gave_up_at_the_deadline(ring.records, kDeadlineNs);
  expect_healthy();
}

TEST(DeadlockDemoGpu, LockOrderGivesUpInTheModelsCycleAndOneOrderCompletes) {
  CUDASYNC_REQUIRE_GPU();
  const LockOrderRun r = gpu_lock_order(kDeadlineNs, kLockOrderIters);
  EXPECT_TRUE(r.handshake);
  EXPECT_TRUE(r.timed_out);
  const LockOrderModel m = lock_order_model();
  EXPECT_EQ(folded(r.records, lock_order_describe(), "block"), folded(m.m.records, lock_order_describe(), "block"));
  expect_gave_up_at_the_deadline(r.records, kDeadlineNs);
  EXPECT_EQ(r.count_a, r.expected);
  EXPECT_EQ(r.count_b, r.expected);
  expect_healthy();
}

TEST(DeadlockDemoGpu, TheBarrierChildrenEndByThemselvesAndThisProcessStaysHealthy) {
  CUDASYNC_REQUIRE_GPU();
  RunContext ctx;
  ctx.gpu = true;
  ctx.device = DeviceInfo{};  // device 0
  for (const char* part : {"divergent-syncthreads", "syncwarp-mask"}) {
    SCOPED_TRACE(part);
    const bool syncwarp = std::string(part) == "syncwarp-mask";
    const auto t0 = std::chrono::steady_clock::now();
    ChildProcess child(test::binary_path(), parts::child_args(ctx, "deadlock-demo", part, barrier_child_options(100, false)),
                       child_timeout(100, false), "deadlock_test");
    const ChildOutcome o = child_outcome(child.finish());
    // A hung kernel is ended by the child's own watchdog: the host timeout never fires.
    EXPECT_LT(seconds_since(t0), 10.0);
    ASSERT_EQ(o.status, ChildOutcome::Status::ok) << to_string(o.status) << ": " << o.message;
    ASSERT_FALSE(o.seen.empty());
    for (const auto& c : o.seen) {
      if (c.hung) {
        EXPECT_GE(c.watched_ms, 100) << "called hung before its deadline";
        EXPECT_FALSE(o.health.ran);
      }
      for (int t = 0; t < c.present; ++t)
        EXPECT_GE(c.arrive_ns[static_cast<std::size_t>(t)], 0) << "present thread " << t << " never reached the barrier";
    }
    if (!o.seen.back().hung) {
      EXPECT_TRUE(o.health.ok) << o.health.detail;
      EXPECT_EQ(o.seen.size(), syncwarp ? 1u : 3u);
    }
    expect_healthy();
  }
}

TEST(DeadlockDemoGpu, TheDeadlineOptionBoundsTheRunsWallTime) {
  CUDASYNC_REQUIRE_GPU();
  for (int ms : {20, 400}) {
    const auto t0 = std::chrono::steady_clock::now();
    const test::CliResult r = test::run_cli("deadlock-demo --backend gpu --part grid-oversubscribed,lock-order "
                                            "--color never --deadline-ms " + std::to_string(ms));
    const double took = seconds_since(t0);
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 2000);
    // Two deadlines (the oversubscribed grid, the AB / BA locks) plus CUDA start-up: a generous bound.
    EXPECT_GE(took, 2 * ms / 1000.0) << "a deadlock ended before its deadline";
    EXPECT_LT(took, 2 * ms / 1000.0 + 4.0) << "--deadline-ms " << ms << " did not bound the run";
  }
}

TEST(DeadlockDemoGpu, TheBinaryPassesEveryCheckOnTheGpuWellUnderFiveSeconds) {
  CUDASYNC_REQUIRE_GPU();
  const auto t0 = std::chrono::steady_clock::now();
  const auto doc = test::valid_document("deadlock-demo --backend gpu --json --color never", 0);
  EXPECT_LT(seconds_since(t0), 5.0);
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  EXPECT_GT(test::check_count(doc), 25u);
  // Every part ran on the GPU beside the model: the GPU's stuck set agrees with the model's.
  const auto& sec = doc["report"]["sections"];
  for (const char* part : {"grid-oversubscribed", "lock-order", "producer-before-consumer"})
    EXPECT_TRUE(sec[part]["checks"]["gpu-agrees"]["passed"].get<bool>()) << part;
  EXPECT_TRUE(sec["warp-spinlock"]["checks"]["ring-gpu-agrees"]["passed"].get<bool>());
  EXPECT_TRUE(sec["divergent-syncthreads"]["checks"]["child-ended"]["passed"].get<bool>());
  EXPECT_TRUE(sec["syncwarp-mask"]["checks"]["child-ended"]["passed"].get<bool>());
}

}  // namespace
}  // namespace cudasync::deadlock_demo
