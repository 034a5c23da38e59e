// deadlock-demo as a student runs it, on the reference model: bad input is refused at once with a
// reason (exit 2), a model run tells each part's story (schedule, wait-for graph, predicted stuck
// set, fix) and says what needs a GPU, every --json document validates against the schema and
// carries the same tables and facts, found by id. Then the child's protocol.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "support/run_cli.hpp"
#include "techniques/deadlock_demo/lesson.hpp"

namespace cudasync::deadlock_demo {
namespace {

using test::check_count;
using test::CliResult;
using test::contains;
using test::expect_usage_error;
using test::failed_checks;
using test::run_cli;
using test::shown;
using test::UsageCase;
using test::valid_document;

TEST(DeadlockDemoCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const UsageCase cases[] = {
      {"deadlock-demo --deadline-ms 0", {"--deadline-ms", "0", "2000"}},
      {"deadlock-demo --deadline-ms -5", {"--deadline-ms", "-5", "2000"}},
      {"deadlock-demo --deadline-ms 2001", {"--deadline-ms", "2001", "2000"}},
      {"deadlock-demo --deadline-ms soon", {"--deadline-ms", "soon"}},
      {"deadlock-demo --blocks 0", {"--blocks", "0", "32768"}},
      {"deadlock-demo --blocks 40000", {"--blocks", "40000", "32768"}},
      {"deadlock-demo --part livelock", {"--part", "livelock", "grid-oversubscribed", "syncwarp-mask"}},
      {"deadlock-demo --part lock-order,nope", {"--part", "nope"}},
      {"deadlock-demo --scenario lock-order", {"--scenario"}},  // the old selection flag is gone: --part
      {"deadlock-demo --model pascal", {"--model", "pascal", "lockstep", "independent"}},
      {"deadlock-demo --model lockstep --backend gpu", {"--model lockstep", "--backend gpu", "--backend model"}},
      {"deadlock-demo --model lockstep --part lock-order", {"--model", "warp-spinlock"}},
      {"deadlock-demo --part lock-order --blocks 64", {"--blocks", "grid-oversubscribed", "producer-before-consumer"}},
      {"deadlock-demo --part lock-order --sanitize", {"--sanitize", "divergent-syncthreads"}},
      {"deadlock-demo --sanitize --backend model", {"--sanitize", "--backend model"}},
      {"deadlock-demo --child lock-order --child-out /tmp/x", {"--child", "lock-order"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(DeadlockDemoCli, ModelRunTellsEveryPartAndSaysWhatNeedsAGpu) {
  const CliResult r = run_cli("deadlock-demo --backend model --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s :
       {"== setup", "== grid-oversubscribed", "== warp-spinlock", "== divergent-syncthreads", "== lock-order",
        "== producer-before-consumer", "== syncwarp-mask", "needs a GPU", "cudaErrorCooperativeLaunchTooLarge (720)",
        "Sorensen", "compute-sanitizer --tool synccheck", "checks: "})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "[FAIL]")) << shown(r);
  // What the model says, by id in the same run's JSON.
  const auto doc = valid_document("deadlock-demo --backend model --json", 0);
  const auto& sec = doc["report"]["sections"];
  EXPECT_EQ(sec["grid-oversubscribed"]["facts"]["model-predicted"]["value"],
            "blocks 0-1055 spun on the counter at 1056/2112; blocks 1056-2111 started after the deadline");
  EXPECT_EQ(sec["grid-oversubscribed"]["facts"]["resident"]["value"], 1056);
  EXPECT_EQ(sec["warp-spinlock"]["facts"]["lock-lockstep-waits-1"]["value"],
            "lane 0 waits for lanes 1-31: the warp to reconverge at pc 2 (it runs only them)");
  EXPECT_EQ(sec["warp-spinlock"]["facts"]["ring-waits-1"]["value"],
            "lanes 0-31 wait for the next lane: its flag (read 0) (lane 31 for lane 0)");
  EXPECT_EQ(sec["lock-order"]["facts"]["model-cycle"]["value"], "block 0 -> block 1 -> block 0");
  EXPECT_EQ(sec["setup"]["facts"]["deadline"]["value"], 50);
  EXPECT_EQ(sec["setup"]["facts"]["deadline"]["format"], "ms");
  EXPECT_TRUE(sec["grid-oversubscribed"]["facts"]["gpu"]["value"].is_null());
  EXPECT_TRUE(sec["grid-oversubscribed"]["measurements"]["launch"]["needs_gpu"].get<bool>());
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  EXPECT_EQ(check_count(doc), 12u);
}

TEST(DeadlockDemoCli, TheIssuesGridExampleNamesTheStuckAndTheLateBlocks) {
  const auto doc = valid_document(
      "deadlock-demo --backend model --part grid-oversubscribed --blocks 4000 --deadline-ms 200 --json", 0);
  const auto& sections = doc["report"]["sections"];
  EXPECT_EQ(sections["grid-oversubscribed"]["facts"]["model-predicted"]["value"],
            "blocks 0-1055 spun on the counter at 1056/4000; blocks 1056-3999 started after the deadline");
  EXPECT_EQ(sections["setup"]["facts"]["deadline"]["value"], 200);
  EXPECT_EQ(sections["setup"]["facts"]["blocks"]["value"], 4000);
  EXPECT_FALSE(sections.contains("warp-spinlock"));
}

TEST(DeadlockDemoCli, ModelChoosesTheTraceOfWarpSpinlock) {
  const auto doc = valid_document("deadlock-demo --backend model --part warp-spinlock --model lockstep --json", 0);
  ASSERT_EQ(doc["report"]["sections"].size(), 2u);
  const auto& tables = doc["report"]["sections"]["warp-spinlock"]["tables"];
  EXPECT_TRUE(tables.contains("trace-lockstep"));
  EXPECT_FALSE(tables.contains("trace-independent"));
  EXPECT_EQ(doc["report"]["sections"]["setup"]["facts"]["model-traces"]["value"], "lockstep");
  // Auto backend with --model is fine: on a GPU machine the GPU runs beside the model.
  const CliResult r = run_cli("deadlock-demo --part warp-spinlock --model independent --color never");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "trace, independent")) << shown(r);
  EXPECT_FALSE(contains(r.out, "the lock, trace, lockstep")) << shown(r);
}

TEST(DeadlockDemoCli, EveryPartValidatesAndCarriesTheModelsScheduleAndGraph) {
  const auto all = valid_document("deadlock-demo --backend model --json", 0);
  std::vector<std::string> ids;
  for (const auto& [id, s] : all["report"]["sections"].items()) ids.push_back(id);
  const std::vector<std::string> parts{"grid-oversubscribed", "warp-spinlock", "divergent-syncthreads",
                                       "lock-order", "producer-before-consumer", "syncwarp-mask"};
  std::vector<std::string> want{"overview", "setup"};
  want.insert(want.end(), parts.begin(), parts.end());
  EXPECT_EQ(ids, want);
  for (const auto& part : parts) {
    SCOPED_TRACE(part);
    const auto doc = valid_document("deadlock-demo --backend model --json --part " + part, 0);
    const auto& sec = doc["report"]["sections"][part];
    bool cycle = false;
    for (const auto& [id, f] : sec["facts"].items())
      cycle = cycle || (id.find("cycle") != std::string::npos && f["value"].is_string() &&
                        f["value"].get<std::string>().find(" -> ") != std::string::npos);
    EXPECT_TRUE(cycle) << "no wait-for cycle among the facts of " << part;
    EXPECT_FALSE(sec["checks"].empty()) << "the model's own checks";
    EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  }
}

// What the cycles say in words, as numbers and ids beside them: the blocks without a slot, the
// outcome of each program under each scheduler, who waits at a barrier, the nodes of a cycle.
TEST(DeadlockDemoCli, TheModelsFindingsAreNumbersAndIdsBesideTheirWords) {
  const auto doc = valid_document(
      "deadlock-demo --backend model --json --deadline-ms 20 --part "
      "grid-oversubscribed,warp-spinlock,divergent-syncthreads,lock-order,syncwarp-mask",
      0);
  const auto& s = doc["report"]["sections"];
  const auto fact = [&](const char* section, const char* id) { return s[section]["facts"][id]["value"]; };
  EXPECT_EQ(fact("grid-oversubscribed", "blocks"), 2112);  // twice the 1056 an H100 holds
  EXPECT_EQ(fact("grid-oversubscribed", "model-no-slot"), 1056);
  EXPECT_EQ(fact("grid-oversubscribed", "model-cycle-nodes"), 2);  // the spinning blocks, those without a slot
  EXPECT_EQ(fact("warp-spinlock", "ring-cycle-nodes"), 32);
  EXPECT_EQ(fact("divergent-syncthreads", "at-barrier-whole-warps"), "0-31");
  EXPECT_EQ(fact("divergent-syncthreads", "at-barrier-inside-a-warp"), "0-47");
  EXPECT_EQ(fact("syncwarp-mask", "at-barrier-lanes-0-15"), "0-15");
  EXPECT_EQ(fact("lock-order", "model-cycle-nodes"), 2);
  std::vector<std::string> verdicts;
  for (const auto& row : s["warp-spinlock"]["tables"]["verdicts"]["rows"])
    verdicts.push_back(row["program-id"].get<std::string>() + ": " + row["lockstep-outcome"].get<std::string>() +
                       ", " + row["independent-outcome"].get<std::string>());
  EXPECT_EQ(verdicts, (std::vector<std::string>{"cas-lock: deadlocks, completes", "ring: deadlocks, deadlocks"}));
}

BarrierObservation observation(int threads, int present, bool hung) {
  BarrierObservation o;
  o.threads = threads;
  o.present = present;
  o.deadline_ns = 50000000;
  o.hung = hung;
  o.watched_ms = hung ? 551 : 50;
  o.arrive_ns = {1, 2, 50000001, 50000002};
  o.leave_ns = {50000100, 50000100, 50000101, -1};
  o.progress_ns = {-1, -1, 49990000, 49990001};
  o.state = {1, 1, 3, 2};
  return o;
}

TEST(DeadlockDemoChildProtocol, ObservationsRoundTrip) {
  const Health health{true, true, "health_kernel<<<4, 256>>> wrote\nout[i] = 7i + 3: 1024 of 1024 right"};
  ChildOutcome out;
  ASSERT_TRUE(parse_child_output(format_observations({observation(4, 2, false), observation(4, 3, true)}, health), out));
  EXPECT_EQ(out.status, ChildOutcome::Status::ok);
  ASSERT_EQ(out.seen.size(), 2u);
  EXPECT_EQ(out.seen[0].threads, 4);
  EXPECT_EQ(out.seen[0].present, 2);
  EXPECT_FALSE(out.seen[0].hung);
  EXPECT_TRUE(out.seen[1].hung);
  EXPECT_EQ(out.seen[1].present, 3);
  EXPECT_EQ(out.seen[1].watched_ms, 551);
  EXPECT_EQ(out.seen[0].leave_ns, (std::vector<long long>{50000100, 50000100, 50000101, -1}));
  EXPECT_EQ(out.seen[0].progress_ns, (std::vector<long long>{-1, -1, 49990000, 49990001}));
  EXPECT_EQ(out.seen[0].state, (std::vector<int>{1, 1, 3, 2}));
  EXPECT_TRUE(out.health.ran);
  EXPECT_TRUE(out.health.ok);
  EXPECT_EQ(out.health.detail, "health_kernel<<<4, 256>>> wrote out[i] = 7i + 3: 1024 of 1024 right");
  // A hung child never ran its health check, and says so.
  Health none;
  none.detail = "not run";
  ChildOutcome hung;
  ASSERT_TRUE(parse_child_output(format_observations({observation(4, 2, true)}, none), hung));
  EXPECT_FALSE(hung.health.ran);
  EXPECT_EQ(hung.health.detail, "not run");
}

TEST(DeadlockDemoChildProtocol, ErrorsTimeoutsAndMalformedAnswers) {
  ChildOutcome out;
  ASSERT_TRUE(parse_child_output(format_child_error("kernels.cu:9: cudaDeviceSynchronize() failed:\nillegal instruction"), out));
  EXPECT_EQ(out.status, ChildOutcome::Status::cuda_error);
  EXPECT_EQ(out.message, "kernels.cu:9: cudaDeviceSynchronize() failed: illegal instruction");
  const std::string good = format_observations({observation(4, 2, false)}, Health{true, true, "x"});
  std::string no_health = good.substr(0, good.find("health"));
  std::string short_list = good;
  short_list.replace(short_list.find("state 1,1,3,2"), 13, "state 1,1");
  std::string too_many = good;
  too_many.replace(too_many.find("present 2"), 9, "present 5");
  for (const std::string& bad : {std::string(""), std::string("ok\n"), std::string("ok\nhealth ok x\n"), no_health,
                                 short_list, too_many, std::string("ok\ncase\nthreads x\n"), std::string("fine\n")}) {
    ChildOutcome o;
    EXPECT_FALSE(parse_child_output(bad, o)) << bad;
  }
  ChildResult hung;
  hung.status = ChildResult::Status::timeout;
  hung.message = "no answer after 20200 ms: the child was killed";
  EXPECT_EQ(child_outcome(hung).status, ChildOutcome::Status::timeout);
  ChildResult died;
  died.status = ChildResult::Status::exited;
  died.exit_code = 3;
  died.err = "cudasync: error: no usable GPU\n";
  const ChildOutcome c = child_outcome(died);
  EXPECT_EQ(c.status, ChildOutcome::Status::no_answer);
  EXPECT_EQ(c.message, "exit 3: cudasync: error: no usable GPU");
}

}  // namespace
}  // namespace cudasync::deadlock_demo
