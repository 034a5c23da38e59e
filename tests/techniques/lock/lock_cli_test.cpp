// lock as a student runs it, on the reference model: bad input is refused at once with a reason
// (exit 2), a model run tells the whole story and says what needs a GPU, every --json document
// validates against schema/report-v2.json and its checks are found by id. Then the child's
// protocol of copy-destructor.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/child_process.hpp"
#include "support/cli_expect.hpp"
#include "support/run_cli.hpp"
#include "techniques/lock/ownership.hpp"

namespace cudasync::lock {
namespace {

using test::CliResult;
using test::contains;
using test::expect_usage_error;
using test::failed_checks;
using test::run_cli;
using test::shown;
using test::UsageCase;
using test::valid_document;

std::vector<std::string> keys(const nlohmann::ordered_json& object) {
  std::vector<std::string> out;
  for (const auto& [k, v] : object.items()) out.push_back(k);
  return out;
}

TEST(LockCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const UsageCase cases[] = {
      {"lock --part locks", {"--part", "locks", "lock-class", "thread-lock"}},
      {"lock --blocks 0", {"--blocks", "0", "4096"}},
      {"lock --blocks 5000", {"--blocks", "5000", "4096"}},
      {"lock --threads 0", {"--threads", "0", "1024"}},
      {"lock --threads 2048", {"--threads", "2048", "1024"}},
      {"lock --iterations 0", {"--iterations", "0", "100000"}},
      {"lock --iterations many", {"--iterations", "many"}},
      {"lock --iters 10", {"--iters"}},
      {"lock --runs 0 --part stale-reads", {"--runs", "0", "100"}},
      {"lock --model pascal", {"--model", "pascal", "lockstep", "independent"}},
      {"lock --model lockstep --backend gpu", {"--model lockstep", "--backend gpu", "--backend model", "auto"}},
      {"lock --backend GPU --model independent --part warp-deadlock", {"--backend gpu", "--backend model"}},
      {"lock --model lockstep --part stale-reads", {"--model", "warp-deadlock", "thread-lock", "combining"}},
      {"lock --part copy-destructor --blocks 8", {"--blocks", "lock-class", "stale-reads", "thread-lock"}},
      {"lock --part stale-reads --threads 64", {"--threads", "warp-deadlock", "thread-lock"}},
      {"lock --part thread-lock --runs 3", {"--runs", "stale-reads"}},
      {"lock --part copy-destructor --iterations 3", {"--iterations", "lock-class"}},
      {"lock --part lock-class --blocks 4096 --iterations 2000", {"lock-class", "<<<4096, 1>>>", "8192000", "4194304"}},
      {"lock --part thread-lock --blocks 1000 --threads 1024 --iterations 10", {"thread-lock", "<<<1000, 1024>>>"}},
      {"lock --part stale-reads --blocks 1000 --iterations 1000 --runs 50", {"stale-reads", "4 variants", "tens of seconds"}},
      {"lock --bench --part lock-class", {"--part", "--bench"}},
      {"lock --bench --blocks 8", {"--blocks", "--bench"}},
      {"lock --bench --model lockstep", {"--model", "--bench"}},
      {"lock --part combining --blocks 4096 --threads 64 --iterations 100", {"combining", "<<<4096, 64>>>", "4194304"}},
      {"lock --part combining --runs 2", {"--runs", "stale-reads"}},
      {"lock --part copy-destructor --threads 8", {"--threads", "combining"}},
      {"lock --delays 0 --part delay-fix", {"--delays", "0", "1000000"}},
      {"lock --delays 1000,x --part delay-fix", {"--delays", "x"}},
      {"lock --delays 2000000 --part delay-fix", {"--delays", "2000000", "1000000"}},
      {"lock --part stale-reads --delays 1000", {"--delays", "delay-fix"}},
      {"lock --part shared-mutex --blocks 8", {"--blocks", "delay-fix"}},
      {"lock --part delay-fix --delays 1000000 --iterations 100", {"delay-fix", "ms of waiting", "--delays"}},
      {"lock --part delay-fix --blocks 4096 --iterations 2000", {"delay-fix", "<<<4096, 1>>>", "4194304"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(LockCli, ModelRunTellsTheWholeStoryAndSaysWhatNeedsAGpu) {
  const CliResult r = run_cli("lock --backend model --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== setup", "== part 1, the lock class", "== part 2, warp deadlock", "== part 3, stale reads",
                        "== part 4, the delay remedy", "== part 5, copy and destructor", "== part 6, a shared Mutex",
                        "== part 7, the \"true thread lock\"", "== part 8, beyond the blog", "needs a GPU",
                        "holds the lock, waits at 2", "the same state as after step 2", "from L1, L2 has 2: stale",
                        "Alglave", "checks: "})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "[FAIL]")) << shown(r);
}

TEST(LockCli, EveryDefaultCheckPassesAndHasAnId) {
  const auto doc = valid_document("lock --backend model --json", 0);
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  EXPECT_EQ(keys(doc["report"]["sections"]),
            (std::vector<std::string>{"overview", "setup", "lock-class", "warp-deadlock", "stale-reads", "delay-fix", "copy-destructor",
                                      "shared-mutex", "thread-lock", "combining"}));
  const auto& warp = doc["report"]["sections"]["warp-deadlock"]["checks"];
  EXPECT_TRUE(warp["model-lockstep-1x32"]["passed"].get<bool>());
  EXPECT_TRUE(warp["model-independent-1x128"]["passed"].get<bool>());
  EXPECT_TRUE(doc["report"]["sections"]["stale-reads"]["checks"]["model-fix-2"]["passed"].get<bool>());
  EXPECT_TRUE(doc["report"]["sections"]["combining"]["checks"]["model-exact"]["passed"].get<bool>());
  const auto& delay = doc["report"]["sections"]["delay-fix"]["checks"];
  for (const char* id : {"model-delay-loses", "model-delay-deadlocks", "model-fix-2", "model-fix-3"})
    EXPECT_TRUE(delay[id]["passed"].get<bool>()) << id;
  const auto& shared = doc["report"]["sections"]["shared-mutex"]["checks"];
  for (const char* id : {"model-by-value-frees-early", "model-shared-frees-once"})
    EXPECT_TRUE(shared[id]["passed"].get<bool>()) << id;
}

// What the exercises read is data beside the words: the models' outcomes, the rows' ids, the count
// of handoffs; the words may be translated, these stay.
TEST(LockCli, OutcomesRowsAndHandoffsAreIdsAndNumbersBesideTheirWords) {
  const auto doc = valid_document(
      "lock --backend model --part warp-deadlock,delay-fix,shared-mutex,combining --delays 10000 --runs 1 --json", 0);
  const auto& sections = doc["report"]["sections"];
  const auto& side = sections["warp-deadlock"]["tables"]["side-by-side"]["rows"];
  ASSERT_EQ(side.size(), 2u);
  for (const auto& row : side) {
    EXPECT_EQ(row["lockstep-outcome"], "deadlocks") << row;
    EXPECT_EQ(row["independent-outcome"], "completes") << row;
  }
  std::vector<std::string> variants;
  for (const auto& row : sections["delay-fix"]["tables"]["delays"]["rows"])
    variants.push_back(row["variant-id"].get<std::string>() + " " + std::to_string(row["model-count"].get<int>()));
  EXPECT_EQ(variants, (std::vector<std::string>{"no-delay 3", "delay-10us-after 3", "delay-10us-before 3", "fix-2 4",
                                                "fix-3 4"}));
  const auto& owners = sections["shared-mutex"]["tables"]["ownership"]["rows"];
  ASSERT_EQ(owners.size(), 2u);
  EXPECT_EQ(owners[0]["holding-id"], "by-value");
  EXPECT_EQ(owners[0]["frees-of-freed"], 2);
  EXPECT_EQ(owners[1]["holding-id"], "shared-mutex");
  EXPECT_EQ(sections["combining"]["facts"]["model-handoffs"]["value"], 2);  // 8 requests, 2 passes
}

TEST(LockCli, AWarpOfOneLaneCompletesInLockstepAndTheRunPasses) {
  // Before the fix the lockstep check expected a deadlock here and the run exited 1.
  const auto doc = valid_document("lock --backend model --part warp-deadlock --threads 1 --json", 0);
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  const auto& c = doc["report"]["sections"]["warp-deadlock"]["checks"]["model-lockstep-1x1"];
  EXPECT_TRUE(c["passed"].get<bool>());
  EXPECT_TRUE(contains(c["title"].get<std::string>(), "completes")) << c;
}

TEST(LockCli, ModelIndependentRunsNoLockstepCheck) {
  // Before the fix --model independent still ran (and checked) the lockstep model.
  const auto doc = valid_document("lock --backend model --part warp-deadlock,thread-lock,combining --model independent --json", 0);
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  for (const auto& [id, section] : doc["report"]["sections"].items()) {
    for (const auto& [check_id, check] : section["checks"].items())
      EXPECT_FALSE(contains(check_id, "lockstep")) << id << "/" << check_id;
    for (const auto& [table_id, table] : section["tables"].items())
      EXPECT_NE(table_id, "trace-lockstep") << id;
  }
  EXPECT_TRUE(doc["report"]["sections"]["warp-deadlock"]["checks"].contains("model-independent-1x32"));
  // --model lockstep: the other way round.
  const auto lock = valid_document("lock --backend model --part warp-deadlock,thread-lock --model lockstep --json", 0);
  for (const auto& [id, section] : lock["report"]["sections"].items())
    for (const auto& [check_id, check] : section["checks"].items())
      EXPECT_FALSE(contains(check_id, "independent")) << id << "/" << check_id;
}

TEST(LockCli, ModelPicksTheTracesAndThePartsComeInTheBlogsOrder) {
  const auto doc = valid_document("lock --backend model --part thread-lock,warp-deadlock --model independent --json", 0);
  EXPECT_EQ(keys(doc["report"]["sections"]), (std::vector<std::string>{"overview", "setup", "warp-deadlock", "thread-lock"}));
  for (const char* id : {"warp-deadlock", "thread-lock"}) {
    const auto& tables = doc["report"]["sections"][id]["tables"];
    EXPECT_TRUE(tables.contains("trace-independent")) << id;
    EXPECT_FALSE(tables.contains("trace-lockstep")) << id;
  }
  // Auto backend with --model is fine: on a GPU machine the GPU runs beside the model.
  const CliResult r = run_cli("lock --part warp-deadlock --model lockstep --color never");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "trace, lockstep")) << shown(r);
  EXPECT_FALSE(contains(r.out, "trace, independent")) << shown(r);
}

TEST(LockCli, EveryPartAndTheBenchValidateAgainstTheSchema) {
  for (const char* part : {"lock-class", "warp-deadlock", "stale-reads", "delay-fix", "copy-destructor", "shared-mutex",
                           "thread-lock", "combining"})
    valid_document(std::string("lock --backend model --json --part ") + part, 0);
  const auto bench = valid_document("lock --backend model --bench --json", 0);
  EXPECT_EQ(keys(bench["report"]["sections"]), (std::vector<std::string>{"setup", "bench"}));
  const auto& sec = bench["report"]["sections"]["bench"];
  for (const char* t : {"median", "vs-cas", "best", "schedulers", "model", "terms-cas", "terms-combining", "primitives"})
    EXPECT_TRUE(sec["tables"].contains(t)) << t;
  EXPECT_EQ(sec["tables"]["model"]["rows"].size(), 9u * 9u);  // every lock at every contention level
  // Each lock's primitives are measured under its own waiters: the ticket lock's poll under sleeping
  // ticket pollers, the CAS lock's take under spinning compare-and-swaps.
  std::vector<std::string> prims;
  for (const auto& row : sec["tables"]["primitives"]["rows"])
    prims.push_back(row["primitive"].get<std::string>() + "@" + row["at"].get<std::string>());
  for (const char* p : {"poll-round-under-ticket@132x128", "cas-round-under-cas@132x1", "load-under-slots@33x128"})
    EXPECT_NE(std::find(prims.begin(), prims.end(), p), prims.end()) << p;
  ASSERT_TRUE(sec["measurements"].contains("cas-at-132x1"));
  EXPECT_EQ(sec["measurements"]["cas-at-132x1"]["needs_gpu"], true);
}

TEST(LockCli, TheCombiningPartShowsOneHolderServingTheOthers) {
  const CliResult r = run_cli("lock --backend model --part combining --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== part 8, beyond the blog: a combining lock", "Hendler", "data, not code",
                        "serves blocks 0-3: cnt 0 -> 4", "answer 1 from block 0", "answers 0..7, each once",
                        "trace, independent", "needs a GPU", "checks: 2 passed, 0 failed"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  // Wider blocks: the trace follows a few lanes of one block; --model picks its scheduler.
  const CliResult w = run_cli("lock --backend model --part combining --threads 64 --model lockstep --color never");
  ASSERT_EQ(w.exit_code, 0) << shown(w);
  EXPECT_TRUE(contains(w.out, "trace, lockstep")) << shown(w);
  EXPECT_TRUE(contains(w.out, "4 lanes, 2 requests each")) << shown(w);
  EXPECT_TRUE(contains(w.out, "serves lanes 0-3")) << shown(w);
}

TEST(LockCli, BigButBoundedRunsAreAccepted) {
  // The issue's own command: fewer runs by default instead of a refusal.
  const CliResult r = run_cli("lock --backend model --part stale-reads --blocks 132 --iterations 10000 --color never");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "runs once as <<<132, 1>>> x 10000")) << shown(r);
}

TEST(LockCli, TheCopyChildIsAHiddenModeThatNeedsTheGpu) {
  const CliResult help = run_cli("lock --help");
  EXPECT_FALSE(contains(help.out, "--child")) << shown(help);
  const CliResult r = run_cli("lock --child copy --child-out /dev/null --backend model");
  EXPECT_NE(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.err, "GPU")) << shown(r);
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

}  // namespace
}  // namespace cudasync::lock
