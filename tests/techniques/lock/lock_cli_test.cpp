// lock as a student runs it, on the reference model: bad input is refused at once with a reason
// (exit 2), a model run tells the whole story and says what needs a GPU, every --json document
// validates against schema/report-v1.json. Then the child's protocol of part 4, and the sections
// fed with made-up GPU results: a lost update or a stuck block must fail a check and say where.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "support/json_schema.hpp"
#include "support/run_cli.hpp"
#include "techniques/lock/lock_copy.hpp"
#include "techniques/lock/lock_sections.hpp"

namespace cudasync::lock {
namespace {

using test::CliResult;
using test::expect_usage_error;
using test::UsageCase;
using test::contains;
using test::report_schema;
using test::run_cli;
using test::shown;
using test::valid_document;

TEST(LockCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const UsageCase cases[] = {
      {"lock --part locks", {"--part", "locks", "lock-class", "thread-lock"}},
      {"lock --blocks 0", {"--blocks", "0", "4096"}},
      {"lock --blocks 5000", {"--blocks", "5000", "4096"}},
      {"lock --threads 0", {"--threads", "0", "1024"}},
      {"lock --threads 2048", {"--threads", "2048", "1024"}},
      {"lock --iters 0", {"--iters", "0", "100000"}},
      {"lock --iters many", {"--iters", "many"}},
      {"lock --runs 0 --part stale-reads", {"--runs", "0", "100"}},
      {"lock --model pascal", {"--model", "pascal", "lockstep", "independent"}},
      {"lock --model lockstep --backend gpu", {"--model lockstep", "--backend gpu", "--backend model", "auto"}},
      {"lock --backend GPU --model independent --part warp-deadlock", {"--backend gpu", "--backend model"}},
      {"lock --model lockstep --part stale-reads", {"--model", "warp-deadlock", "thread-lock"}},
      {"lock --part copy-destructor --blocks 8", {"--blocks", "lock-class", "stale-reads", "thread-lock"}},
      {"lock --part stale-reads --threads 64", {"--threads", "warp-deadlock", "thread-lock", "kernel<<<N, 1>>>"}},
      {"lock --part thread-lock --runs 3", {"--runs", "stale-reads"}},
      {"lock --part copy-destructor --iters 3", {"--iters", "copy-destructor runs its own"}},
      {"lock --part lock-class --blocks 4096 --iters 2000", {"lock-class", "<<<4096, 1>>>", "8192000", "4194304"}},
      {"lock --part thread-lock --blocks 1000 --threads 1024 --iters 10", {"thread-lock", "<<<1000, 1024>>>"}},
      {"lock --part stale-reads --blocks 1000 --iters 1000 --runs 50", {"stale-reads", "4 variants", "tens of seconds"}},
      {"lock --bench --part lock-class", {"--part", "--bench"}},
      {"lock --bench --blocks 8", {"--blocks", "--bench", "132 x 128"}},
      {"lock --bench --model lockstep", {"--model", "--bench"}},
      {"lock --part combining --blocks 4096 --threads 64 --iters 100", {"combining", "<<<4096, 64>>>", "4194304"}},
      {"lock --part combining --runs 2", {"--runs", "stale-reads"}},
      {"lock --part copy-destructor --threads 8", {"--threads", "combining"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(LockCli, ModelRunTellsTheWholeStoryAndSaysWhatNeedsAGpu) {
  const CliResult r = run_cli("lock --backend model --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== setup", "== part 1, the lock class", "== part 2, warp deadlock", "== part 3, stale reads",
                        "== part 4, copy and destructor", "== part 5, the \"true thread lock\"", "needs a GPU",
                        "holds the lock, waits at 2", "the same state as after step 3", "from L1, L2 has 2: stale",
                        "Alglave", "checks: "})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "[FAIL]")) << shown(r);
}

TEST(LockCli, ModelPicksTheTracesAndThePartsComeInTheSeedsOrder) {
  const auto doc = valid_document("lock --backend model --part thread-lock,warp-deadlock --model independent --json", 0);
  std::vector<std::string> ids;
  for (const auto& s : doc["report"]["sections"]) ids.push_back(s["id"].get<std::string>());
  EXPECT_EQ(ids, (std::vector<std::string>{"setup", "warp_deadlock", "thread_lock"}));
  for (const auto& s : doc["report"]["sections"]) {
    std::vector<std::string> tables;
    for (const auto& t : s["tables"]) tables.push_back(t["id"].get<std::string>());
    if (s["id"] == "setup") continue;
    EXPECT_NE(std::find(tables.begin(), tables.end(), "trace_independent"), tables.end()) << s["id"];
    EXPECT_EQ(std::find(tables.begin(), tables.end(), "trace_lockstep"), tables.end()) << s["id"];
  }
  // Auto backend with --model is fine: on a GPU machine the GPU runs beside the model.
  const CliResult r = run_cli("lock --part warp-deadlock --model lockstep --color never");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "trace, lockstep")) << shown(r);
  EXPECT_FALSE(contains(r.out, "trace, independent")) << shown(r);
}

TEST(LockCli, EveryPartAndTheBenchValidateAgainstTheSchema) {
  valid_document("lock --backend model --json", 0);
  for (const char* part : {"lock-class", "warp-deadlock", "stale-reads", "copy-destructor", "thread-lock", "combining"})
    valid_document(std::string("lock --backend model --json --part ") + part, 0);
  const auto bench = valid_document("lock --backend model --bench --json", 0);
  const auto& sec = bench["report"]["sections"].back();
  EXPECT_EQ(sec["id"], "bench");
  ASSERT_FALSE(sec["measurements"].empty());
  EXPECT_EQ(sec["measurements"][0]["needs_gpu"], true);
}

TEST(LockCli, TheCombiningPartShowsOneHolderServingTheOthers) {
  const CliResult r = run_cli("lock --backend model --part combining --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== part 6, beyond the seed: a combining lock", "Hendler", "data, not code",
                        "serves blocks 0-3: cnt 0 -> 4", "answer 1 from block 0", "answers 0..7, each once",
                        "trace, independent", "needs a GPU", "checks: 2 passed, 0 failed"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  // Wider blocks: the trace follows a few lanes of one block; --model picks its scheduler.
  const CliResult w =
      run_cli("lock --backend model --part combining --threads 64 --model lockstep --color never");
  ASSERT_EQ(w.exit_code, 0) << shown(w);
  EXPECT_TRUE(contains(w.out, "trace, lockstep")) << shown(w);
  EXPECT_TRUE(contains(w.out, "4 lanes, 2 requests each")) << shown(w);
  EXPECT_TRUE(contains(w.out, "serves lanes 0-3")) << shown(w);
}

TEST(LockCli, BigButBoundedRunsAreAccepted) {
  // The issue's own command: fewer runs by default instead of a refusal.
  const CliResult r = run_cli("lock --backend model --part stale-reads --blocks 132 --iters 10000 --color never");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "runs once as <<<132, 1>>> x 10000")) << shown(r);
}

TEST(LockCopyProtocol, ObservationRoundTrips) {
  CopyObservation o;
  o.steps = {{"launch 1: GtThrCntKernel<<<32, 1>>>(..., lock_); cudaGetLastError()", "cudaSuccess",
              "~CudaKernelLock() ran 2 times"},
             {"end\tof scope", "", "cudaFree(mutex) failed\nagain"}};
  o.destructor_calls = 5;
  o.frees_ok = 1;
  o.frees_failed = 4;
  o.count1 = 320;
  o.count2 = -1;
  o.expected = 320;
  o.reused = true;
  o.second_timed_out = false;
  CopyOutcome out;
  ASSERT_TRUE(parse_copy_output(format_copy_observation(o), out));
  EXPECT_EQ(out.status, CopyOutcome::Status::ok);
  ASSERT_EQ(out.seen.steps.size(), 2u);
  EXPECT_EQ(out.seen.steps[0].error, "cudaSuccess");
  EXPECT_EQ(out.seen.steps[1].what, "end of scope");  // tabs and newlines cannot break the format
  EXPECT_EQ(out.seen.steps[1].error, "");
  EXPECT_EQ(out.seen.steps[1].detail, "cudaFree(mutex) failed again");
  EXPECT_EQ(out.seen.destructor_calls, 5);
  EXPECT_EQ(out.seen.frees_failed, 4);
  EXPECT_EQ(out.seen.count2, -1);
  EXPECT_TRUE(out.seen.reused);
}

TEST(LockCopyProtocol, ErrorsAndMalformedAnswers) {
  CopyOutcome out;
  ASSERT_TRUE(parse_copy_output(format_copy_error("copy.cu:9: cudaMalloc failed:\nout of memory"), out));
  EXPECT_EQ(out.status, CopyOutcome::Status::cuda_error);
  EXPECT_EQ(out.message, "copy.cu:9: cudaMalloc failed: out of memory");
  for (const char* bad : {"", "end\n", "step\ta\tb\tc\nend\n", "step\ta\nfrees_ok 1\nend\n",
                          "step\ta\tb\tc\ndestructor_calls x\nend\n"}) {
    CopyOutcome o;
    EXPECT_FALSE(parse_copy_output(bad, o)) << bad;
  }
  ChildResult died;
  died.status = ChildResult::Status::exited;
  died.exit_code = 3;
  died.err = "cudasync: error: no usable GPU\n";
  const CopyOutcome c = copy_outcome(died);
  EXPECT_EQ(c.status, CopyOutcome::Status::no_answer);
  EXPECT_EQ(c.message, "exit 3: cudasync: error: no usable GPU");
}

// ---- sections with made-up GPU results ---------------------------------------------------------

LockRun exact_run(long long n, double ms) {
  LockRun r;
  r.expected = r.count = r.completed = n;
  r.ms = ms;
  return r;
}

const report::Check* find_check(const report::Section& s, const std::string& part) {
  for (const auto& c : s.checks)
    if (contains(c.name, part)) return &c;
  return nullptr;
}

TEST(LockSections, AStuckBlockFailsPart1AndIsNamed) {
  ClassPart p;
  p.spec.blocks = 132;
  p.spec.iters = 100;
  LockRun stuck = exact_run(13200, 5.0);
  stuck.count = 13000;
  stuck.completed = 13000;
  stuck.gave_up = 2;
  stuck.stuck_blocks = {17, 40};
  p.gpu = {exact_run(13200, 13.2), stuck};
  const report::Section s = lock_class_section(p, true);
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_FALSE(s.checks[0].passed);
  EXPECT_TRUE(contains(s.checks[0].detail, "launch 2")) << s.checks[0].detail;
  EXPECT_TRUE(contains(s.checks[0].detail, "blocks still spinning: 17, 40")) << s.checks[0].detail;
  ASSERT_EQ(s.measurements.size(), 1u);
  EXPECT_EQ(s.measurements[0].samples, (std::vector<double>{1000.0}));  // the stuck launch is not a time
}

TEST(LockSections, AFixThatLosesAnUpdateFailsPart3) {
  StalePart p;
  p.spec.blocks = 4;
  p.spec.iters = 10;
  p.runs = 2;
  for (Variant v : {Variant::book, Variant::book_atomic_add, Variant::fenced, Variant::acq_rel}) {
    StaleRow row;
    row.variant = v;
    row.model = simulate({protocol_of(v), Regime::independent, 2, 1, 2, 1000, 4, 0});
    row.gpu = {exact_run(40, 0.04), exact_run(40, 0.04)};
    if (v == Variant::book) row.gpu[1].count = 31;
    if (v == Variant::fenced) row.gpu[0].count = 39;
    p.rows.push_back(row);
  }
  p.trace = simulate({Protocol::book, Regime::independent, 2, 1, 2, 1000, 4, 40});
  const report::Section s = stale_reads_section(p, true);
  const report::Check* fence = find_check(s, "GPU agrees with the reference model: fix 2");
  ASSERT_NE(fence, nullptr);
  EXPECT_FALSE(fence->passed);
  EXPECT_TRUE(contains(fence->detail, "launch 1: count 39 of 40")) << fence->detail;
  const report::Check* add = find_check(s, "GPU agrees with the reference model: fix 1");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->passed);
  // The seed's own code is a fact, not a check: losing updates is what it shows.
  EXPECT_EQ(find_check(s, "the seed's lock"), nullptr);
  const auto& t = s.tables.front();
  EXPECT_EQ(std::get<std::string>(t.rows[0][1]), "9 of 80 (11.25%)");
  EXPECT_EQ(t.marks[2], report::RowMark::mismatch);
  EXPECT_EQ(t.marks[0], report::RowMark::none);
  bool verdict = false;
  for (const auto& f : s.facts)
    if (f.name == "verdict") verdict = contains(std::get<std::string>(f.value), "lost 9 of 80 updates");
  EXPECT_TRUE(verdict);
}

TEST(LockSections, WarpDeadlockComparesTheGpuWithIndependentScheduling) {
  WarpPart p;
  WarpCase c;
  c.spec.blocks = 1;
  c.spec.threads = 32;
  c.spec.iters = 10;
  c.lockstep = simulate({Protocol::lock_functions, Regime::lockstep, 1, 32, 1, 1000, 4, 0});
  c.independent = simulate({Protocol::lock_functions, Regime::independent, 1, 32, 1, 100000, 4, 0});
  c.gpu = exact_run(320, 0.2);
  p.cases.push_back(c);
  c.spec.threads = 128;
  c.gpu = exact_run(1280, 0.2);
  c.gpu->gave_up = 96;
  c.gpu->stuck_blocks = {0};
  p.cases.push_back(c);
  const report::Section s = warp_deadlock_section(p, true);
  const report::Check* ok = find_check(s, "GPU agrees with the reference model: <<<1, 32>>>");
  const report::Check* bad = find_check(s, "GPU agrees with the reference model: <<<1, 128>>>");
  ASSERT_TRUE(ok && bad);
  EXPECT_TRUE(ok->passed);
  EXPECT_FALSE(bad->passed);
  EXPECT_TRUE(contains(bad->detail, "96 threads gave up")) << bad->detail;
  EXPECT_EQ(s.tables.front().marks[1], report::RowMark::mismatch);
}

TEST(LockSections, CopyPartReportsTheChildAndTheFixes) {
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
  EXPECT_TRUE(find_check(s, "nothing hung")->passed);
  EXPECT_TRUE(find_check(s, "freed the mutex while lock_ still used it")->passed);
  EXPECT_TRUE(find_check(s, "fix 1: both launches exact")->passed);
  EXPECT_FALSE(find_check(s, "fix 2: both launches exact")->passed);
  EXPECT_FALSE(find_check(s, "still runs kernels")->passed);
  CopyPart hung;
  CopyOutcome none;
  none.message = "no answer after 20000 ms: the child was killed";
  hung.child = none;
  const report::Section h = copy_destructor_section(hung, true);
  EXPECT_FALSE(find_check(h, "nothing hung")->passed);
}

TEST(LockSections, CombiningComparesWithTheCasLockAndFailsOnAWrongAnswer) {
  CombiningPart p;
  p.spec.variant = Variant::combining;
  p.spec.blocks = 132;
  p.spec.threads = 1;
  p.spec.iters = 100;
  p.cas = p.spec;
  p.cas.variant = Variant::fenced;
  p.lockstep = simulate({Protocol::combining, Regime::lockstep, 1, 32, 1, 200000, 4, 0});
  p.independent = simulate({Protocol::combining, Regime::independent, 4, 1, 2, 200000, 4, 0});
  for (int i = 0; i < 3; ++i) {
    LockRun c = exact_run(13200, 0.66);  // 50 ns per critical section
    c.handoffs = 132;                    // 100 per handoff
    c.answers_checked = 13200;
    p.gpu.push_back(c);
    p.gpu_cas.push_back(exact_run(13200, 13.2));  // 1000 ns per handoff
  }
  const report::Section s = combining_section(p, true);
  EXPECT_TRUE(find_check(s, "combining lock: every count exact")->passed);
  bool ratio = false;
  for (const auto& f : s.facts)
    if (f.name == "combining / CAS lock") ratio = std::get<std::string>(f.value) == "0.050 x";
  EXPECT_TRUE(ratio);
  bool served = false;
  for (const auto& m : s.measurements)
    if (contains(m.name, "critical sections served")) served = m.samples == std::vector<double>(3, 100.0);
  EXPECT_TRUE(served);
  // The count is exact but two requests got the same answer: the check must fail and say which.
  p.gpu[1].answers_bad = 1;
  p.gpu[1].first_bad_answer = "answer 3 returned twice (thread 0, request 4 and thread 9, request 1)";
  const report::Section bad = combining_section(p, true);
  const report::Check* c = find_check(bad, "combining lock: every count exact");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_TRUE(contains(c->detail, "launch 2: 1 of 13200 answers wrong; answer 3 returned twice")) << c->detail;
}

TEST(LockSections, BenchRatiosAndTheTargetFact) {
  BenchPart b;
  b.locks = {Variant::book, Variant::fenced, Variant::ticket};
  b.configs = {{132, 1, 10}, {132, 128, 1}};
  b.reps = 3;
  const auto cell = [](Variant v, BenchConfig c, double ms) {
    BenchCell x{v, c, {}};
    const long long n = static_cast<long long>(c.blocks) * c.threads * c.iters;
    for (int i = 0; i < 3; ++i) x.gpu.push_back(exact_run(n, ms));
    return x;
  };
  b.cells = {cell(Variant::book, b.configs[0], 1.32), cell(Variant::fenced, b.configs[0], 1.584),
             cell(Variant::ticket, b.configs[0], 0.66), cell(Variant::book, b.configs[1], 20.0),
             cell(Variant::fenced, b.configs[1], 20.0), cell(Variant::ticket, b.configs[1], 15.0)};
  b.cells[5].gpu[1].count -= 1;
  b.locks.push_back(Variant::combining);
  b.cells.push_back(cell(Variant::combining, b.configs[0], 0.132));
  b.cells.push_back(cell(Variant::combining, b.configs[1], 16.0));  // 0.8 x: the ticket lock stays best
  for (auto* c : {&b.cells[6], &b.cells[7]})
    for (auto& r : c->gpu) r.handoffs = 10;
  b.cells[7].gpu[2].answers_bad = 2;
  b.cells[7].gpu[2].first_bad_answer = "answer 9 returned twice (thread 1, request 1 and thread 4, request 1)";
  const report::Section s = bench_section(b, true);
  const auto& ratio = s.tables[1];
  EXPECT_DOUBLE_EQ(std::get<double>(ratio.rows[1][1]), 1.0);
  EXPECT_NEAR(std::get<double>(ratio.rows[2][1]), 0.4167, 1e-3);
  bool target = false;
  for (const auto& f : s.facts)
    if (f.name == "best lock at <<<132, 1>>>") {
      target = true;
      EXPECT_EQ(std::get<std::string>(f.value), "combining lock (flat combining)");
      EXPECT_TRUE(contains(f.note, "0.083 x CAS (medians of 3 launches, this run); target <= 0.5: met")) << f.note;
    }
  EXPECT_TRUE(target);
  EXPECT_FALSE(find_check(s, "ticket lock: every count exact")->passed);
  EXPECT_TRUE(find_check(s, "CAS lock (atomicCAS, __threadfence, atomicExch): every count exact")->passed);
  EXPECT_EQ(find_check(s, "the book's lock"), nullptr);  // reference only: a note, not a check
  bool target132x128 = false;
  for (const auto& f : s.facts)
    if (f.name == "best lock at <<<132, 128>>>") target132x128 = contains(f.note, "target <= 0.5: not met");
  EXPECT_TRUE(target132x128) << "15 / 20 = 0.75";
  const report::Check* comb = find_check(s, "combining lock (flat combining): every count exact and every answer");
  ASSERT_NE(comb, nullptr);
  EXPECT_FALSE(comb->passed);
  EXPECT_TRUE(contains(comb->detail, "<<<132, 128>>>: answer 9 returned twice")) << comb->detail;
  bool per_handoff = false;
  for (const auto& n : s.notes)
    per_handoff = per_handoff || contains(n, "per lock handoff (every launch): <<<132, 1>>> 132.0, <<<132, 128>>> 1689.6");
  EXPECT_TRUE(per_handoff);
}

}  // namespace
}  // namespace cudasync::lock
