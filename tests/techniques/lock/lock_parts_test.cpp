// The lock lesson's sections fed with made-up GPU results: a lost update, a stuck block or a wrong
// answer must fail a check (found by id) and say where; without a GPU nothing is a number.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"

#include <algorithm>

#include "techniques/lock/lesson.hpp"
#include "techniques/lock/lock_runs.hpp"

namespace cudasync::lock {
namespace {

using test_runs::exact_run;

using cudasync::test::contains;

const report::Check* check(const report::Section& s, const std::string& id) {
  for (const auto& c : s.checks)
    if (c.id == id) return &c;
  return nullptr;
}

const report::Fact* fact(const report::Section& s, const std::string& id) {
  for (const auto& f : s.facts)
    if (f.id == id) return &f;
  return nullptr;
}

const report::Table* table(const report::Section& s, const std::string& id) {
  for (const auto& t : s.tables)
    if (t.id == id) return &t;
  return nullptr;
}

TEST(LockParts, AStuckBlockFailsLockClassAndIsNamed) {
  ClassPart p;
  p.spec.blocks = 132;
  p.spec.iters = 100;
  LockRun stuck = exact_run(13200, 5.0);
  stuck.count = stuck.completed = 13000;
  stuck.gave_up = 2;
  stuck.stuck_blocks = {17, 40};
  p.gpu = {exact_run(13200, 13.2), stuck};
  const report::Section s = lock_class_section(p, true);
  const report::Check* c = check(s, "count-exact");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_TRUE(contains(c->detail, "launch 2")) << c->detail;
  EXPECT_TRUE(contains(c->detail, "blocks still spinning: 17, 40")) << c->detail;
  ASSERT_EQ(s.measurements.size(), 1u);
  EXPECT_EQ(s.measurements[0].samples, (std::vector<double>{1000.0}));  // the stuck launch is not a time
  EXPECT_EQ(s.measurements[0].format, report::Format::ns);
}

TEST(LockParts, AFixThatLosesAnUpdateFailsStaleReads) {
  StalePart p;
  p.spec.blocks = 4;
  p.spec.iters = 10;
  p.runs = 2;
  for (Variant v : {Variant::book, Variant::book_atomic_add, Variant::fenced, Variant::acq_rel}) {
    StaleRow row;
    row.variant = v;
    row.model = sim(protocol_of(v), Regime::independent, 2, 1, 2);
    row.gpu = {exact_run(40, 0.04), exact_run(40, 0.04)};
    if (v == Variant::book) row.gpu[1].count = 31;
    if (v == Variant::fenced) row.gpu[0].count = 39;
    p.rows.push_back(row);
  }
  p.trace = sim(Protocol::book, Regime::independent, 2, 1, 2, 40);
  const report::Section s = stale_reads_section(p, true);
  const report::Check* fence = check(s, "gpu-agrees-fix-2");
  ASSERT_NE(fence, nullptr);
  EXPECT_FALSE(fence->passed);
  EXPECT_TRUE(contains(fence->title, "GPU agrees with the reference model: fix 2")) << fence->title;
  EXPECT_TRUE(contains(fence->detail, "launch 1: count 39 of 40")) << fence->detail;
  ASSERT_NE(check(s, "gpu-agrees-fix-1"), nullptr);
  EXPECT_TRUE(check(s, "gpu-agrees-fix-1")->passed);
  EXPECT_TRUE(check(s, "model-fix-3")->passed);
  // The blog's own code is a fact, not a check: losing updates is what it shows.
  EXPECT_EQ(check(s, "gpu-agrees-book"), nullptr);
  const report::Table* t = table(s, "variants");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(t->cell(0, "lost")), 9);
  EXPECT_DOUBLE_EQ(std::get<double>(t->cell(0, "share")), 9.0 / 80.0);
  EXPECT_EQ(std::get<std::int64_t>(t->cell(0, "runs-losing")), 1);
  EXPECT_EQ(t->rows[2].mark, report::RowMark::mismatch);
  EXPECT_EQ(t->rows[0].mark, report::RowMark::none);
  ASSERT_NE(fact(s, "verdict"), nullptr);
  EXPECT_TRUE(contains(std::get<std::string>(fact(s, "verdict")->value), "lost 9 of 80 updates"));
}

TEST(LockParts, StaleReadsWithoutAGpuSaysSoInEveryGpuCell) {
  StalePart p;
  StaleRow row;
  row.variant = Variant::book;
  row.model = sim(Protocol::book, Regime::independent, 2, 1, 2);
  p.rows.push_back(row);
  p.trace = row.model;
  const report::Section s = stale_reads_section(p, false);
  const report::Table* t = table(s, "variants");
  for (const char* k : {"lost", "share", "runs-losing", "ns"})
    EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(t->cell(0, k))) << k;
  EXPECT_EQ(std::get<std::int64_t>(t->cell(0, "model-count")), 3);
  EXPECT_EQ(std::get<std::int64_t>(t->cell(0, "model-stale")), 1);
}

TEST(LockParts, WarpDeadlockComparesTheGpuWithIndependentScheduling) {
  WarpPart p;
  WarpCase c;
  c.spec = RunSpec::of(Variant::lock_functions, 1, 32, 10);
  c.lockstep = sim(Protocol::lock_functions, Regime::lockstep, 1, 32, 1);
  c.independent = sim(Protocol::lock_functions, Regime::independent, 1, 32, 1);
  c.gpu = exact_run(320, 0.2);
  p.cases.push_back(c);
  c.spec = RunSpec::of(Variant::lock_functions, 1, 128, 10);
  c.gpu = exact_run(1280, 0.2);
  c.gpu->gave_up = 96;
  c.gpu->stuck_blocks = {0};
  p.cases.push_back(c);
  const report::Section s = warp_deadlock_section(p, true);
  const report::Check* ok = check(s, "gpu-agrees-1x32");
  const report::Check* bad = check(s, "gpu-agrees-1x128");
  ASSERT_TRUE(ok && bad);
  EXPECT_TRUE(ok->passed);
  EXPECT_FALSE(bad->passed);
  EXPECT_TRUE(contains(bad->detail, "96 threads gave up")) << bad->detail;
  EXPECT_TRUE(check(s, "model-lockstep-1x32")->passed);
  EXPECT_EQ(table(s, "side-by-side")->rows[1].mark, report::RowMark::mismatch);
}

TEST(LockParts, WarpDeadlockWithOneSchedulerChecksOnlyThatOne) {
  // --model independent: the lockstep model neither runs nor is checked (it was, before this fix).
  WarpPart p;
  p.checked = {Regime::independent};
  WarpCase c;
  c.spec = RunSpec::of(Variant::lock_functions, 1, 32, 10);
  c.independent = sim(Protocol::lock_functions, Regime::independent, 1, 32, 1);
  p.cases.push_back(c);
  const report::Section s = warp_deadlock_section(p, false);
  EXPECT_EQ(check(s, "model-lockstep-1x32"), nullptr);
  EXPECT_NE(check(s, "model-independent-1x32"), nullptr);
  const report::Table* t = table(s, "side-by-side");
  EXPECT_THROW(t->column_index("lockstep"), std::logic_error);
}

TEST(LockParts, CopyDestructorReportsTheChildAndTheFixes) {
  CopyPart p;
  CopyOutcome child;
  child.status = CopyOutcome::Status::ok;
  child.seen.steps = {{"launch 1", "cudaSuccess", "ran 2 times"}};
  child.seen.destructor_calls = 4;
  child.seen.frees_ok = 1;
  child.seen.frees_failed = 3;
  child.seen.count1 = 320;
  child.seen.expected = 320;
  p.child = child;
  FixRun good{"fix 1", 320, 320, 320, 1, 0, 0};
  FixRun twice{"fix 2", 320, 320, 320, 2, 1, 4};
  p.fixes = {good, twice};
  const report::Section s = copy_destructor_section(p, true);
  EXPECT_TRUE(check(s, "child-answered")->passed);
  EXPECT_TRUE(check(s, "freed-while-used")->passed);
  EXPECT_TRUE(check(s, "fix-1-frees-once")->passed);
  EXPECT_FALSE(check(s, "fix-2-frees-once")->passed);
  EXPECT_FALSE(check(s, "still-runs-kernels")->passed);
  CopyPart hung;
  CopyOutcome none;
  none.message = "no answer after 20000 ms: the child was killed";
  hung.child = none;
  const report::Section h = copy_destructor_section(hung, true);
  EXPECT_FALSE(check(h, "child-answered")->passed);
}

TEST(LockParts, CombiningComparesWithTheCasLockAndFailsOnAWrongAnswer) {
  CombiningPart p;
  p.spec = RunSpec::of(Variant::combining, 132, 1, 100);
  p.cas = RunSpec::of(Variant::fenced, 132, 1, 100);
  p.lockstep = sim(Protocol::combining, Regime::lockstep, 1, 32, 1);
  p.model = sim(Protocol::combining, Regime::independent, 4, 1, 2);
  for (int i = 0; i < 3; ++i) {
    LockRun c = exact_run(13200, 0.66);  // 50 ns per critical section
    c.handoffs = 132;                    // 100 per handoff
    c.answers_checked = 13200;
    p.gpu.push_back(c);
    p.gpu_cas.push_back(exact_run(13200, 13.2));  // 1000 ns per handoff
  }
  const report::Section s = combining_section(p, true);
  EXPECT_TRUE(check(s, "combining-exact")->passed);
  ASSERT_NE(fact(s, "vs-cas"), nullptr);
  EXPECT_NEAR(std::get<double>(fact(s, "vs-cas")->value), 0.05, 1e-12);
  EXPECT_EQ(fact(s, "vs-cas")->format, report::Format::ratio);
  const auto served = std::find_if(s.measurements.begin(), s.measurements.end(),
                                   [](const report::Measurement& m) { return m.id == "served-per-handoff"; });
  ASSERT_NE(served, s.measurements.end());
  EXPECT_EQ(served->samples, std::vector<double>(3, 100.0));
  // The count is exact but two requests got the same answer: the check must fail and say which.
  p.gpu[1].answers_bad = 1;
  p.gpu[1].first_bad_answer = "answer 3 returned twice (thread 0, request 4 and thread 9, request 1)";
  const report::Section bad = combining_section(p, true);
  const report::Check* c = check(bad, "combining-exact");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_TRUE(contains(c->detail, "launch 2: 1 of 13200 answers wrong; answer 3 returned twice")) << c->detail;
  // Over 132 x 128 threads the CAS lock is not run beside it.
  CombiningPart wide;
  wide.model = p.model;
  EXPECT_EQ(wide.cas.iters, 0);
}

TEST(LockParts, BenchIsASweepWithTheCasLockAsBaseline) {
  BenchPart b;
  b.locks = {Variant::book, Variant::fenced, Variant::ticket, Variant::combining};
  b.configs = {{132, 1, 10}, {132, 128, 1}};
  b.reps = 3;
  const double ms[4][2] = {{1.32, 20.0}, {1.584, 20.0}, {0.66, 15.0}, {0.132, 16.0}};
  for (std::size_t l = 0; l < b.locks.size(); ++l)
    for (std::size_t c = 0; c < b.configs.size(); ++c) {
      const long long n = static_cast<long long>(b.configs[c].blocks) * b.configs[c].threads * b.configs[c].iters;
      std::vector<LockRun> runs(3, exact_run(n, ms[l][c]));
      if (b.locks[l] == Variant::combining)
        for (auto& r : runs) r.handoffs = 10;
      b.gpu.push_back(runs);
    }
  b.gpu[2 * 2 + 1][1].count -= 1;  // ticket at 132 x 128
  b.gpu[3 * 2 + 1][2].answers_checked = 16896;
  b.gpu[3 * 2 + 1][2].answers_bad = 2;
  b.gpu[3 * 2 + 1][2].first_bad_answer = "answer 9 returned twice (thread 1, request 1 and thread 4, request 1)";
  const report::Section s = bench_section(b, true);
  const report::Table* ratio = table(s, "vs-cas");
  ASSERT_NE(ratio, nullptr);
  EXPECT_DOUBLE_EQ(std::get<double>(ratio->cell(1, "132x1")), 1.0);
  EXPECT_NEAR(std::get<double>(ratio->cell(2, "132x1")), 0.4167, 1e-3);
  // The book's lock is the fastest, but only a reference: the best at 132 x 1 is the combining lock.
  const report::Table* best = table(s, "best");
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(std::get<std::string>(best->cell(0, "best")), "combining lock (flat combining)");
  EXPECT_EQ(std::get<std::string>(best->cell(1, "best")), "ticket lock");
  EXPECT_FALSE(check(s, "ticket-exact")->passed);
  EXPECT_TRUE(check(s, "cas-exact")->passed);
  EXPECT_EQ(check(s, "book-exact"), nullptr);  // reference only: a note, not a check
  const report::Check* comb = check(s, "combining-exact");
  ASSERT_NE(comb, nullptr);
  EXPECT_FALSE(comb->passed);
  EXPECT_TRUE(contains(comb->detail, "<<<132, 128>>>: 2 of 16896 answers wrong; answer 9 returned twice")) << comb->detail;
  bool per_handoff = false;
  for (const auto& n : s.notes)
    per_handoff = per_handoff || contains(n, "per lock handoff (every launch): <<<132, 1>>> 132.0, <<<132, 128>>> 1689.6");
  EXPECT_TRUE(per_handoff);
}

TEST(LockParts, BenchWithoutAGpuNeedsOneInEveryCell) {
  BenchPart b;
  b.locks = {Variant::book, Variant::fenced};
  b.configs = {{1, 1, 16384}};
  b.gpu.assign(2, {});
  const report::Section s = bench_section(b, false);
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(table(s, "median")->cell(1, "1x1")));
  EXPECT_TRUE(s.checks.empty());
  for (const auto& m : s.measurements) EXPECT_TRUE(m.needs_gpu) << m.id;
}

DelayPart delay_part(const std::vector<std::vector<LockRun>>& gpu) {
  DelayPart p;
  p.spec.blocks = 132;
  p.spec.iters = 20;
  p.runs = 1;
  const std::pair<Variant, unsigned> rows[] = {{Variant::book, 0}, {Variant::delay_after, 1000}, {Variant::delay_before, 1000},
                                               {Variant::fenced, 0}, {Variant::acq_rel, 0}};
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    DelayRow r;
    r.variant = rows[i].first;
    r.delay_ns = rows[i].second;
    r.model = sim(protocol_of(r.variant), Regime::independent, 2, 1, 2);
    if (i < gpu.size()) r.gpu = gpu[i];
    p.rows.push_back(r);
  }
  p.trace = sim(Protocol::delay_after, Regime::independent, 2, 1, 2, 40);
  p.lockstep = sim(Protocol::delay_after, Regime::lockstep, 1, 4, 1);
  return p;
}

TEST(LockParts, TheDelayLosesAndTheFixesAreChecked) {
  LockRun lossy = exact_run(2640, 30.0);
  lossy.count = 27;
  const report::Section s = delay_fix_section(delay_part({{lossy}, {lossy}, {lossy}, {exact_run(2640, 3.0)}, {exact_run(2640, 2.0)}}), true);
  for (const char* id : {"model-delay-loses", "model-delay-deadlocks", "model-fix-2", "model-fix-3", "gpu-agrees-fix-2",
                         "gpu-agrees-fix-3"}) {
    ASSERT_NE(check(s, id), nullptr) << id;
    EXPECT_TRUE(check(s, id)->passed) << id << ": " << check(s, id)->detail;
  }
  EXPECT_TRUE(contains(check(s, "gpu-agrees-fix-2")->title, "GPU agrees with the reference model"));
  const report::Table* t = table(s, "delays");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::get<std::string>(t->cell(1, "variant")), "delay 1 us after the increment");
  EXPECT_EQ(std::get<std::string>(t->cell(2, "variant")), "delay 1 us before the load");
  EXPECT_EQ(std::get<std::int64_t>(t->cell(1, "lost")), 2613);
  EXPECT_DOUBLE_EQ(std::get<double>(t->cell(1, "ns")), 30.0 * 1e6 / 2640);
  EXPECT_EQ(std::get<std::int64_t>(t->cell(1, "model-stale")), 1);
  EXPECT_EQ(std::get<std::int64_t>(fact(s, "delay-lost")->value), 2 * 2613);
  EXPECT_TRUE(contains(std::get<std::string>(fact(s, "verdict")->value), "still lost 5,226 of 5,280 updates"));
  // A fix that loses one update fails its agreement check and marks its row.
  LockRun short_one = exact_run(2640, 3.0);
  short_one.count = 2639;
  const report::Section bad = delay_fix_section(delay_part({{lossy}, {lossy}, {lossy}, {short_one}, {exact_run(2640, 2.0)}}), true);
  EXPECT_FALSE(check(bad, "gpu-agrees-fix-2")->passed);
  EXPECT_TRUE(contains(check(bad, "gpu-agrees-fix-2")->detail, "count 2639 of 2640")) << check(bad, "gpu-agrees-fix-2")->detail;
  EXPECT_EQ(table(bad, "delays")->rows[3].mark, report::RowMark::mismatch);
  EXPECT_EQ(table(bad, "delays")->rows[1].mark, report::RowMark::none) << "a delay that loses is the finding, not a fault";
}

TEST(LockParts, TheDelayWithoutAGpuNeedsOneForEveryCount) {
  const report::Section s = delay_fix_section(delay_part({}), false);
  const report::Table* t = table(s, "delays");
  for (std::size_t r = 0; r < t->rows.size(); ++r)
    for (const char* k : {"lost", "share", "ns"}) EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(t->cell(r, k))) << k;
  EXPECT_EQ(check(s, "gpu-agrees-fix-2"), nullptr);
  EXPECT_EQ(fact(s, "delay-lost"), nullptr);
  EXPECT_TRUE(check(s, "model-delay-loses")->passed);
}

TEST(LockParts, TheSharedMutexPartJudgesTheRunAgainstTheModel) {
  SharedMutexPart p;
  p.by_value = replay({Holding::by_value, 2, 1, false});
  p.shared = replay({Holding::shared_mutex, 2, 1, true});
  SharedMutexRun g;
  g.expected = 1280;
  g.counts = {1280, 1280, 1280};
  g.copies = {1, 1, 1};
  g.alive = {true, true, true};
  g.use_count_max = 2;
  g.mutex_destructor_calls = 1;
  g.frees_ok = 1;
  g.owners_at_free = 0;
  g.steps = {{"CudaKernelLock lock_;", "cudaSuccess", "make_shared<Mutex>()"}};
  p.gpu = g;
  const report::Section s = shared_mutex_section(p, true);
  for (const char* id : {"model-by-value-frees-early", "model-shared-frees-once", "count-exact", "mutex-alive", "gpu-agrees"})
    EXPECT_TRUE(check(s, id) && check(s, id)->passed) << id;
  EXPECT_EQ(std::get<std::string>(fact(s, "copies")->value), "1, 1, 1");
  const report::Table* own = table(s, "ownership");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(own->cell(0, "frees")), 3);
  EXPECT_EQ(std::get<std::int64_t>(own->cell(1, "frees")), 1);
  EXPECT_TRUE(std::holds_alternative<report::Undefined>(own->cell(0, "use-count")));
  ASSERT_NE(table(s, "steps"), nullptr);
  // Freed twice: the agreement fails.
  p.gpu->mutex_destructor_calls = 2;
  p.gpu->frees_failed = 1;
  EXPECT_FALSE(check(shared_mutex_section(p, true), "gpu-agrees")->passed);
  // A GPU run that failed says why; without a GPU only the model is checked.
  SharedMutexPart failed = p;
  failed.gpu.reset();
  failed.gpu_error = "cudaErrorIllegalAddress";
  const report::Section f = shared_mutex_section(failed, true);
  EXPECT_FALSE(check(f, "gpu-ran")->passed);
  EXPECT_EQ(check(f, "gpu-ran")->detail, "cudaErrorIllegalAddress");
  const report::Section m = shared_mutex_section(failed, false);
  EXPECT_EQ(m.checks.size(), 2u);
  EXPECT_EQ(table(m, "steps"), nullptr);
}

}  // namespace
}  // namespace cudasync::lock
