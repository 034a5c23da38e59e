// lockfree-barrier as a student runs it, on the reference model: bad input is refused at once with
// a reason (exit 2), a grid past co-residency is refused with both numbers, --allow-unsafe shows the
// model's deadlock instead, and every --json document validates against schema/report-v1.json.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "support/json_schema.hpp"
#include "support/run_cli.hpp"

namespace cudasync::lockfree_barrier {
namespace {

using test::CliResult;
using test::expect_usage_error;
using test::UsageCase;
using test::contains;
using test::report_schema;
using test::run_cli;
using test::shown;
using test::valid_document;

TEST(LockfreeBarrierCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const UsageCase cases[] = {
      {"lockfree-barrier --blocks 0", {"--blocks 0", "at least 1"}},
      {"lockfree-barrier --blocks -3", {"--blocks -3", "at least 1"}},
      {"lockfree-barrier --blocks 99999999999", {"--blocks 99999999999", "65536"}},
      {"lockfree-barrier --blocks many", {"--blocks 'many'", "whole number"}},
      {"lockfree-barrier --threads 0", {"--threads 0", "at least 1"}},
      {"lockfree-barrier --threads 2048", {"--threads 2048", "1024"}},
      {"lockfree-barrier --threads 100", {"--threads 100", "multiple of 32", "own"}},
      {"lockfree-barrier --barrier own --threads 48", {"--threads 48", "multiple of 32"}},
      {"lockfree-barrier --barrier own-cluster --threads 16", {"--threads 16", "multiple of 32", "own-cluster"}},
      {"lockfree-barrier --phases 1", {"--phases 1", "at least 2"}},
      {"lockfree-barrier --phases 1000000", {"--phases 1000000", "100000"}},
      {"lockfree-barrier --barrier xf_lock", {"--barrier", "xf_lock", "xf-lock", "grid-sync"}},
      {"lockfree-barrier --barrier fastest", {"--barrier", "fastest", "own"}},
      {"lockfree-barrier --trace --blocks 100", {"--trace", "64", "100"}},
      {"lockfree-barrier --blocks 65536 --threads 1024", {"65536", "1024", "2^24"}},
      {"lockfree-barrier --blocks 1000 --threads 1024 --phases 1000", {"--phases", "2^28"}},
      {"lockfree-barrier --deadline-ms 0", {"--deadline-ms 0", "at least 1"}},
      {"lockfree-barrier --backend model --bench --blocks 10", {"--blocks", "--bench"}},
      {"lockfree-barrier --backend model --bench --trace", {"--trace", "--bench"}},
      {"lockfree-barrier --backend model --bench --phases 4", {"--phases", "--bench"}},
      {"lockfree-barrier --backend model --bench --allow-unsafe", {"--allow-unsafe", "--bench"}},
      {"lockfree-barrier --backend model --bench --barrier xf-lock-seed", {"xf-lock-seed", "broken"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(LockfreeBarrierCli, GridPastCoresidencyIsRefusedWithBothNumbers) {
  const CliResult r = run_cli("lockfree-barrier --backend model --blocks 5000");
  EXPECT_EQ(r.exit_code, 2) << shown(r);
  for (const char* s : {"--blocks 5000", "1056", "8 blocks of 256 threads per SM x 132 SMs", "deadlock",
                        "--allow-unsafe"})
    EXPECT_TRUE(contains(r.err, s)) << "stderr lacks '" << s << "'\n" << shown(r);
  // Relaunch needs no co-residency: the same grid runs in waves.
  const CliResult waves = run_cli("lockfree-barrier --backend model --blocks 5000 --barrier relaunch,graph --phases 3");
  EXPECT_EQ(waves.exit_code, 0) << shown(waves);
  // The refusal is a JSON error document too.
  const CliResult j = run_cli("lockfree-barrier --backend model --blocks 2000 --json");
  EXPECT_EQ(j.exit_code, 2) << shown(j);
  const auto doc = nlohmann::ordered_json::parse(j.out);
  EXPECT_TRUE(report_schema().validate(doc).empty());
}

TEST(LockfreeBarrierCli, ModelRunShowsEveryBarrierAndWhatNeedsAGpu) {
  const CliResult r = run_cli("lockfree-barrier --backend model --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"== setup: 132 blocks of 256 threads, 16 phases", "== relaunch:", "== graph:", "== xf-lock:",
                        "== xf-lockfree:", "== grid-sync:", "== own:", "== own-cluster:", "== xf-lock-seed:",
                        "== xf-lockfree-seed:", "== every barrier side by side", "needs a GPU", "g_mutex 1980",
                        "clusters of 4: 264 clusters of 4 blocks", "needs sm_90", "checks: 7 passed, 0 failed"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  EXPECT_FALSE(contains(r.out, "[FAIL]")) << shown(r);
}

TEST(LockfreeBarrierCli, SmallGridsPrintTheStepTable) {
  const auto doc = valid_document("lockfree-barrier --backend model --blocks 4 --barrier xf-lock-seed --json", 0);
  const auto& sections = doc["report"]["sections"];
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[1]["id"], "xf_lock_seed");
  const auto& steps = sections[1]["tables"][0];
  EXPECT_EQ(steps["id"], "steps");
  const std::string last = steps["rows"].back()["event"].get<std::string>();
  EXPECT_TRUE(contains(last, "deadlock")) << last;
}

TEST(LockfreeBarrierCli, AllowUnsafeShowsTheModelsDeadlock) {
  const auto doc =
      valid_document("lockfree-barrier --backend model --blocks 1100 --allow-unsafe --barrier xf-lock,relaunch --json", 0);
  const auto& sections = doc["report"]["sections"];
  ASSERT_EQ(sections.size(), 4u);  // setup, relaunch, xf-lock, summary
  bool deadlock = false, relaunch_ok = false;
  for (const auto& f : sections[2]["facts"])
    if (f["name"] == "model: step simulation") deadlock = contains(f["value"].get<std::string>(), "deadlock");
  for (const auto& f : sections[1]["facts"])
    if (f["name"] == "model: step simulation") relaunch_ok = contains(f["value"].get<std::string>(), "completed");
  EXPECT_TRUE(deadlock);
  EXPECT_TRUE(relaunch_ok);
  for (const auto& c : sections[2]["checks"]) EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
}

TEST(LockfreeBarrierCli, TraceDefaultsTo16BlocksAndPrintsSteps) {
  const CliResult r = run_cli("lockfree-barrier --backend model --trace --barrier own --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"16 blocks of 256 threads", "the model, step by step", "red.release add(&counter, 1)"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
}

TEST(LockfreeBarrierCli, OwnClusterOnTheModelShowsLeadersAndWholeClusters) {
  const CliResult r = run_cli("lockfree-barrier --backend model --barrier own-cluster --blocks 8 --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"clusters of 8: 132 clusters of 8 blocks", "the model, step by step", "start (room for the whole cluster)",
                        "then poll (the cluster's leader)", "then wait at the cluster barrier", "cluster 0's barrier complete",
                        "checks: 1 passed, 0 failed"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  // Past co-residency the refusal counts whole clusters.
  const CliResult big = run_cli("lockfree-barrier --backend model --barrier own-cluster --blocks 2000");
  EXPECT_EQ(big.exit_code, 2) << shown(big);
  EXPECT_TRUE(contains(big.err, "132 clusters of 8 blocks of 256 threads = 1056")) << shown(big);
}

TEST(LockfreeBarrierCli, BenchOnTheModelSaysWhatNeedsAGpu) {
  const auto doc = valid_document("lockfree-barrier --backend model --bench --json", 0);
  const auto& sections = doc["report"]["sections"];
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[1]["id"], "bench");
  const auto& table = sections[1]["tables"][0];
  EXPECT_EQ(table["columns"].size(), 5u);  // barrier + 132, 264, 528, 1056
  EXPECT_EQ(table["rows"].size(), 8u);     // floor + 7 barriers
  for (const auto& m : sections[1]["measurements"]) EXPECT_TRUE(m["needs_gpu"].get<bool>()) << m.dump();
}

}  // namespace
}  // namespace cudasync::lockfree_barrier
