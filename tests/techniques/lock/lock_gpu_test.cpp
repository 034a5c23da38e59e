// lock on a real GPU: every correct variant counts exactly across grid shapes; a lock that is never
// released ends every wait at its deadline and names the stuck blocks, and the GPU is fine after;
// the blog's delay still loses updates where a fence does not; the copy-destructor child returns
// the blog's errors and this process still runs kernels after it; the shared Mutex is freed once,
// by its last owner; the report's checks pass through the real binary.
#include <gtest/gtest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "core/child_process.hpp"
#include "core/parts/child.hpp"
#include "core/run_context.hpp"
#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"
#include "support/run_cli.hpp"
#include "techniques/lock/lesson.hpp"

namespace cudasync::lock {
namespace {

LockRun gpu_run(const RunSpec& spec) { return gpu_runs(spec, 1, false).front(); }

void expect_exact(const RunSpec& s, const LockRun& r) {
  EXPECT_FALSE(r.timed_out()) << "variant " << static_cast<int>(s.variant) << " <<<" << s.blocks << ","
                              << s.threads << ">>>: " << r.gave_up << " threads gave up";
  EXPECT_EQ(r.count, s.acquisitions()) << "variant " << static_cast<int>(s.variant) << " <<<" << s.blocks << ","
                                       << s.threads << ">>> x " << s.iters;
  EXPECT_EQ(r.completed, s.acquisitions());
  EXPECT_GT(r.ms, 0.0);
}

struct Shape {
  int blocks, threads, iters;
};

TEST(LockGpu, EveryCorrectVariantCountsExactlyAcrossShapes) {
  CUDASYNC_REQUIRE_GPU();
  const Shape shapes[] = {{1, 1, 50}, {132, 1, 20}, {7, 1, 33}, {1, 32, 10}, {1, 128, 5},
                          {4, 128, 4}, {3, 100, 3}, {33, 64, 2}, {264, 1, 10}, {2, 1024, 1}};
  for (Variant v : {Variant::book_atomic_add, Variant::lock_functions, Variant::fenced, Variant::acq_rel,
                    Variant::thread_lock, Variant::backoff, Variant::ticket, Variant::warp_aggregated, Variant::ttas,
                    Variant::ttas_same_line, Variant::combining})
    for (const Shape& sh : shapes) {
      const RunSpec s = RunSpec::of(v, sh.blocks, sh.threads, sh.iters);
      for (const LockRun& r : gpu_runs(s, 2, false)) expect_exact(s, r);
    }
}

// The combining lock: n fetch-and-add requests return 0 .. n-1, each once (checked in gpu_runs), at
// every shape: one thread, blocks of one, partial and whole warps, blocks of 1024; and a handoff
// serves more than one request whenever more than one thread contends.
TEST(LockGpu, CombiningAnswersEveryRequestWithItsOwnValue) {
  CUDASYNC_REQUIRE_GPU();
  const Shape shapes[] = {{1, 1, 40}, {132, 1, 50}, {264, 1, 7}, {5, 33, 4}, {1, 1024, 3}, {132, 128, 2}, {40, 1000, 1}};
  for (const Shape& sh : shapes) {
    const RunSpec s = RunSpec::of(Variant::combining, sh.blocks, sh.threads, sh.iters);
    for (const LockRun& r : gpu_runs(s, 2, false)) {
      expect_exact(s, r);
      EXPECT_EQ(r.answers_checked, s.acquisitions()) << "<<<" << s.blocks << "," << s.threads << ">>>";
      EXPECT_EQ(r.answers_bad, 0) << r.first_bad_answer;
      EXPECT_GE(r.handoffs, 1);
      EXPECT_LE(r.handoffs, s.acquisitions());
      if (s.threads_total() >= 132) {
        EXPECT_LT(r.handoffs, s.acquisitions()) << "no handoff served two requests";
      }
    }
  }
}

TEST(LockGpu, WarpAggregatedCountsPartialWarps) {
  CUDASYNC_REQUIRE_GPU();
  for (int threads : {1, 5, 31, 33, 65, 1000}) {
    const RunSpec s = RunSpec::of(Variant::warp_aggregated, 3, threads, 4);
    expect_exact(s, gpu_run(s));
  }
}

// The cost model's handoff: each lock with nothing between taking and releasing completes every
// acquisition (the combining lock: every request served, in passes) and leaves the counter alone.
TEST(LockGpu, AnEmptySectionTakesAndReleasesEveryTimeAndLeavesTheCounterAlone) {
  CUDASYNC_REQUIRE_GPU();
  const Shape shapes[] = {{1, 1, 40}, {132, 1, 20}, {33, 128, 2}};
  for (Variant v : {Variant::book, Variant::fenced, Variant::acq_rel, Variant::ttas, Variant::ttas_same_line,
                    Variant::backoff, Variant::ticket, Variant::warp_aggregated, Variant::combining})
    for (const Shape& sh : shapes) {
      RunSpec s = RunSpec::of(v, sh.blocks, sh.threads, sh.iters);
      s.section = false;
      const LockRun r = gpu_run(s);
      SCOPED_TRACE("variant " + std::to_string(static_cast<int>(v)) + " <<<" + std::to_string(sh.blocks) + "," +
                   std::to_string(sh.threads) + ">>>");
      EXPECT_FALSE(r.timed_out());
      EXPECT_EQ(r.completed, s.acquisitions());
      EXPECT_EQ(r.count, 0);
      EXPECT_GT(r.ms, 0.0);
      if (v == Variant::combining) {
        EXPECT_GE(r.handoffs, 1);
      }
      // The bench's way: the lock, then its handoff on the same words, launch after launch.
      RunSpec both = RunSpec::of(v, sh.blocks, sh.threads, sh.iters);
      both.handoff_too = true;
      for (const LockRun& b : gpu_runs(both, 2, false)) {
        if (v == Variant::book) {
          EXPECT_FALSE(b.timed_out());  // the book's lock loses updates: only that it completes
        } else {
          expect_exact(both, b);
        }
        ASSERT_TRUE(b.handoff_ms.has_value());
        EXPECT_GT(*b.handoff_ms, 0.0);
      }
    }
}

TEST(LockGpu, ALockNeverReleasedEndsEveryWaitAtTheDeadlineAndNamesTheBlocks) {
  CUDASYNC_REQUIRE_GPU();
  for (int i = 0; i < kVariants; ++i) {
    const auto v = static_cast<Variant>(i);
    RunSpec s = RunSpec::of(v, 6, 64, 3);
    s.start_locked = true;
    s.deadline_ns = 20'000'000;  // 20 ms
    const auto t0 = std::chrono::steady_clock::now();
    const LockRun r = gpu_run(s);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(took, 5.0) << "variant " << static_cast<int>(v) << ": the deadline did not bound the wait";
    EXPECT_TRUE(r.timed_out());
    EXPECT_EQ(r.count, 0);
    EXPECT_EQ(r.completed, 0);
    EXPECT_EQ(r.stuck_blocks, (std::vector<int>{0, 1, 2, 3, 4, 5})) << "variant " << static_cast<int>(v);
    EXPECT_FALSE(r.stuck_threads.empty());
    EXPECT_EQ(r.handoffs, 0) << "variant " << static_cast<int>(v) << ": nobody can take a lock never released";
  }
  // The GPU is fine afterwards.
  const RunSpec s = RunSpec::of(Variant::acq_rel, 8, 1, 10);
  expect_exact(s, gpu_run(s));
}

// Part 4: the blog's delay, after the increment and before the load, at 1 and 10 us: every launch
// completes (the deadline allows for the delays) and still loses updates; the fence beside it does
// not. The lesson says a delay cannot refresh the L1 line: this is that claim on this GPU.
TEST(LockGpu, TheBlogsDelayStillLosesUpdatesWhereAFenceDoesNot) {
  CUDASYNC_REQUIRE_GPU();
  for (Variant v : {Variant::delay_after, Variant::delay_before})
    for (unsigned ns : {1000u, 10000u}) {
      RunSpec s = RunSpec::of(v, 132, 1, 20);
      s.delay_ns = ns;
      s.deadline_ns += static_cast<unsigned long long>(s.acquisitions()) * ns;
      long long lost = 0;
      for (const LockRun& r : gpu_runs(s, 2, false)) {
        EXPECT_FALSE(r.timed_out()) << "variant " << static_cast<int>(v) << ", " << ns << " ns: " << stuck_text(r);
        EXPECT_EQ(r.completed, s.acquisitions());
        lost += r.lost();
      }
      EXPECT_GT(lost, 0) << "variant " << static_cast<int>(v) << " with a delay of " << ns
                         << " ns lost no update in 2 launches of <<<132, 1>>> x 20";
    }
  const RunSpec fenced = RunSpec::of(Variant::fenced, 132, 1, 20);
  for (const LockRun& r : gpu_runs(fenced, 2, false)) expect_exact(fenced, r);
}

TEST(LockGpu, TheFixesOfPart5LaunchTwiceAndFreeOnce) {
  CUDASYNC_REQUIRE_GPU();
  const auto fixes = gpu_copy_fixes(16, 5, 1'000'000'000ull);
  ASSERT_EQ(fixes.size(), 3u);
  for (const FixRun& f : fixes) {
    EXPECT_TRUE(f.ok()) << f.name << ": " << f.count1 << ", " << f.count2 << " of " << f.expected << ", " << f.frees
                        << " frees (" << f.frees_failed << " failed)";
  }
  EXPECT_GT(fixes[1].copies_made, 0) << "the launch statements copy a by-value shared_ptr argument";
}

TEST(LockGpu, TheCopyChildReturnsTheBlogsErrorsAndThisProcessStillRunsKernels) {
  CUDASYNC_REQUIRE_GPU();
  RunContext ctx;
  ctx.gpu = true;
  ChildProcess child(test::binary_path(), parts::child_args(ctx, "lock", "copy", {}), std::chrono::milliseconds(30000),
                     "lock_test");
  const CopyOutcome o = copy_outcome(child.finish());
  ASSERT_EQ(o.status, CopyOutcome::Status::ok) << o.message;
  EXPECT_EQ(o.seen.count1, o.seen.expected) << "the first launch runs on a mutex freed only after it was launched";
  EXPECT_GE(o.seen.destructor_calls, 3) << "lock_, and at least one copy destroyed by each launch";
  EXPECT_EQ(o.seen.frees_ok + o.seen.frees_failed, o.seen.destructor_calls);
  EXPECT_GE(o.seen.frees_failed, 1) << "the mutex is freed more than once";
  // The blog's check after the second launch sees the failed cudaFree of the copy's destructor.
  std::string second;
  for (const auto& st : o.seen.steps)
    if (st.what.rfind("launch 2", 0) == 0) second = st.error;
  EXPECT_EQ(second.rfind("cudaErrorInvalidValue", 0), 0u) << second;
  // This process's context is untouched.
  const RunSpec s = RunSpec::of(Variant::acq_rel, 32, 1, 10);
  expect_exact(s, gpu_run(s));
}

// Part 6: the blog's fix 2. Three launches (two by value, one from a copy that outlived the
// original), each exact; the mutex a device allocation after each; one ~Mutex, after the last owner.
TEST(LockGpu, TheSharedMutexIsFreedOnceByItsLastOwner) {
  CUDASYNC_REQUIRE_GPU();
  const SharedMutexRun r = gpu_shared_mutex(16, 5, 1'000'000'000ull);
  EXPECT_EQ(r.counts, (std::vector<long long>{80, 80, 80}));
  EXPECT_EQ(r.gave_up, 0);
  EXPECT_EQ(r.alive, (std::vector<bool>{true, true, true}));
  ASSERT_EQ(r.copies.size(), 3u);
  for (int c : r.copies) EXPECT_GE(c, 1) << "a launch statement copies a by-value argument";
  EXPECT_GE(r.use_count_max, 2);
  EXPECT_EQ(r.mutex_destructor_calls, 1);
  EXPECT_EQ(r.frees_ok, 1);
  EXPECT_EQ(r.frees_failed, 0);
  EXPECT_EQ(r.owners_at_free, 0) << "freed while a CudaKernelLock still held it";
  const OwnershipRun model = replay({Holding::shared_mutex, 2, 1, true});
  EXPECT_TRUE(shared_mutex_frees_once(r, model).passed) << shared_mutex_frees_once(r, model).detail;
  // The process is fine afterwards.
  const RunSpec s = RunSpec::of(Variant::acq_rel, 8, 1, 10);
  expect_exact(s, gpu_run(s));
}

TEST(LockGpu, TheBinaryPassesEveryCheckOnTheGpu) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = test::valid_document("lock --backend gpu --json --color never", 0);
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  EXPECT_GT(test::check_count(doc), 15u);
  const auto& sections = doc["report"]["sections"];
  EXPECT_TRUE(sections["warp-deadlock"]["checks"]["gpu-agrees-1x32"]["passed"].get<bool>());
  EXPECT_TRUE(sections["stale-reads"]["checks"]["gpu-agrees-fix-2"]["passed"].get<bool>());
  EXPECT_TRUE(sections["copy-destructor"]["checks"]["child-answered"]["passed"].get<bool>());
  EXPECT_TRUE(sections["combining"]["checks"]["combining-exact"]["passed"].get<bool>());
  EXPECT_TRUE(sections["delay-fix"]["checks"]["gpu-agrees-fix-2"]["passed"].get<bool>());
  EXPECT_TRUE(sections["shared-mutex"]["checks"]["gpu-agrees"]["passed"].get<bool>());
  EXPECT_TRUE(sections["shared-mutex"]["checks"]["count-exact"]["passed"].get<bool>());
}

TEST(LockGpu, TheBenchIsASweepWithEveryCountExact) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = test::valid_document("lock --backend gpu --bench --json --color never", 0);
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  const auto& bench = doc["report"]["sections"]["bench"];
  EXPECT_DOUBLE_EQ(bench["tables"]["vs-cas"]["rows"][1]["132x1"].get<double>(), 1.0);
  EXPECT_FALSE(bench["measurements"]["cas-at-132x1"]["needs_gpu"].get<bool>());
  // Every lock's handoff, measured by the lesson's own kernels, is in the primitives and in the model.
  int handoffs = 0;
  for (const auto& row : bench["tables"]["primitives"]["rows"])
    if (row["primitive"].get<std::string>().rfind("handoff-", 0) == 0) {
      ++handoffs;
      EXPECT_TRUE(row["ns"].is_number()) << row.dump();
    }
  EXPECT_EQ(handoffs, 9 * 9);  // 9 locks at 9 contention levels
  for (const auto& row : bench["tables"]["model"]["rows"]) EXPECT_TRUE(row["predicted"].is_number()) << row.dump();
}

}  // namespace
}  // namespace cudasync::lock
