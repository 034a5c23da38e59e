// deadlock-demo as a student runs it, on the reference model: bad input is refused at once with a
// reason (exit 2), a model run tells each scenario's story (schedule, wait-for graph, predicted stuck
// set, fix) and says what needs a GPU, every --json document validates against the schema and
// carries the same tables and facts. Then the child's protocol.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "support/run_cli.hpp"
#include "techniques/deadlock_demo/deadlock_demo_child.hpp"

namespace cudasync::deadlock_demo {
namespace {

using test::CliResult;
using test::contains;
using test::expect_usage_error;
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
      {"deadlock-demo --scenario livelock", {"--scenario", "livelock", "grid-oversubscribed", "syncwarp-mask", "all"}},
      {"deadlock-demo --scenario lock-order,nope", {"--scenario", "nope"}},
      {"deadlock-demo --model pascal", {"--model", "pascal", "lockstep", "independent"}},
      {"deadlock-demo --model lockstep --backend gpu", {"--model lockstep", "--backend gpu", "--backend model"}},
      {"deadlock-demo --model lockstep --scenario lock-order", {"--model", "warp-spinlock"}},
      {"deadlock-demo --scenario lock-order --blocks 64", {"--blocks 64", "grid-oversubscribed", "producer-before-consumer"}},
      {"deadlock-demo --scenario lock-order --sanitize", {"--sanitize", "divergent-syncthreads"}},
      {"deadlock-demo --sanitize --backend model", {"--sanitize", "--backend model"}},
      {"deadlock-demo --child lock-order --child-out /tmp/x", {"--child", "divergent-syncthreads", "syncwarp-mask"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(DeadlockDemoCli, ModelRunTellsEveryScenarioAndSaysWhatNeedsAGpu) {
  const CliResult r = run_cli("deadlock-demo --backend model --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s :
       {"== setup", "== grid-oversubscribed", "== warp-spinlock", "== divergent-syncthreads", "== lock-order",
        "== producer-before-consumer", "== syncwarp-mask", "needs a GPU",
        "blocks 0-1055 spun on the counter at 1056/2112; blocks 1056-2111 started after the deadline",
        "cudaErrorCooperativeLaunchTooLarge (720)", "lane 0 waits for lanes 1-3", "block 0 -> block 1 -> block 0",
        "lanes 0-31 wait for the next lane", "Sorensen", "compute-sanitizer --tool synccheck", "checks: "})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "[FAIL]")) << shown(r);
}

TEST(DeadlockDemoCli, TheIssuesGridExampleNamesTheStuckAndTheLateBlocks) {
  const CliResult r =
      run_cli("deadlock-demo --backend model --scenario grid-oversubscribed --blocks 4000 --deadline-ms 200 --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "blocks 0-1055 spun on the counter at 1056/4000; blocks 1056-3999 started after the deadline"))
      << shown(r);
  EXPECT_TRUE(contains(r.out, "200 ms")) << shown(r);
  EXPECT_FALSE(contains(r.out, "== warp-spinlock")) << shown(r);
}

TEST(DeadlockDemoCli, ModelChoosesTheTraceOfWarpSpinlock) {
  const auto doc = valid_document("deadlock-demo --backend model --scenario warp-spinlock --model lockstep --json", 0);
  ASSERT_EQ(doc["report"]["sections"].size(), 2u);
  const auto& sec = doc["report"]["sections"][1];
  EXPECT_EQ(sec["id"], "warp_spinlock");
  std::vector<std::string> tables;
  for (const auto& t : sec["tables"]) tables.push_back(t["id"].get<std::string>());
  EXPECT_NE(std::find(tables.begin(), tables.end(), "trace_lockstep"), tables.end());
  EXPECT_EQ(std::find(tables.begin(), tables.end(), "trace_independent"), tables.end());
  // Auto backend with --model is fine: on a GPU machine the GPU runs beside the model.
  const CliResult r = run_cli("deadlock-demo --scenario warp-spinlock --model independent --color never");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "trace, independent")) << shown(r);
  EXPECT_FALSE(contains(r.out, "the lock, trace, lockstep")) << shown(r);
}

TEST(DeadlockDemoCli, EveryScenarioValidatesAndCarriesTheModelsScheduleAndGraph) {
  const auto all = valid_document("deadlock-demo --backend model --json", 0);
  std::vector<std::string> ids;
  for (const auto& s : all["report"]["sections"]) ids.push_back(s["id"].get<std::string>());
  EXPECT_EQ(ids, (std::vector<std::string>{"setup", "grid_oversubscribed", "warp_spinlock", "divergent_syncthreads",
                                           "lock_order", "producer_before_consumer", "syncwarp_mask"}));
  for (const char* sc : {"grid-oversubscribed", "warp-spinlock", "divergent-syncthreads", "lock-order",
                         "producer-before-consumer", "syncwarp-mask"}) {
    SCOPED_TRACE(sc);
    const auto doc = valid_document(std::string("deadlock-demo --backend model --json --scenario ") + sc, 0);
    const auto& sec = doc["report"]["sections"].back();
    bool cycle = false;
    for (const auto& f : sec["facts"])
      if (f["name"].get<std::string>().find("cycle") != std::string::npos &&
          f["value"].get<std::string>().find(" -> ") != std::string::npos)
        cycle = true;
    EXPECT_TRUE(cycle) << "no wait-for cycle among the facts of " << sc;
    bool model_checks = false;
    for (const auto& c : sec["checks"]) {
      EXPECT_TRUE(c["passed"].get<bool>()) << c["name"];
      model_checks = model_checks || c["name"].get<std::string>().rfind("reference model", 0) == 0;
    }
    EXPECT_TRUE(model_checks);
  }
  // "all" is every scenario, as is no --scenario at all.
  const auto a = valid_document("deadlock-demo --backend model --json --scenario all", 0);
  EXPECT_EQ(a["report"]["sections"].size(), 7u);
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
