// lockfree-barrier as a student runs it, on the reference model: bad input is refused at once with
// a reason (exit 2), a grid past co-residency is refused with both numbers, --allow-unsafe shows the
// model's deadlock instead, and every --json document validates against schema/report-v2.json.
// Checks and facts are found by id.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/cli_expect.hpp"

namespace cudasync::lockfree_barrier {
namespace {

using test::CliResult;
using test::contains;
using test::expect_usage_error;
using test::failed_checks;
using test::run_cli;
using test::shown;
using test::UsageCase;
using test::valid_document;

const std::vector<std::string> kParts = {"relaunch", "graph",       "xf-lock",      "xf-lockfree",     "grid-sync",
                                         "own",      "own-cluster", "xf-lock-unrepaired", "xf-lockfree-unrepaired"};

std::vector<std::string> section_ids(const nlohmann::ordered_json& doc) {
  std::vector<std::string> ids;
  for (const auto& [id, s] : doc["report"]["sections"].items()) ids.push_back(id);
  return ids;
}

TEST(LockfreeBarrierCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const UsageCase cases[] = {
      {"lockfree-barrier --blocks 0", {"--blocks 0", "out of range 1..65536"}},
      {"lockfree-barrier --blocks -3", {"--blocks -3", "not a whole number"}},
      {"lockfree-barrier --blocks 99999999999", {"--blocks 99999999999", "65536"}},
      {"lockfree-barrier --blocks many", {"--blocks many", "not a whole number", "accepted: a whole number 1..65536"}},
      {"lockfree-barrier --threads 0", {"--threads 0", "out of range 1..1024"}},
      {"lockfree-barrier --threads 2048", {"--threads 2048", "1024"}},
      {"lockfree-barrier --threads 100", {"--threads 100", "multiple of 32", "own"}},
      {"lockfree-barrier --part own --threads 48", {"--threads 48", "multiple of 32"}},
      {"lockfree-barrier --part own-cluster --threads 16", {"--threads 16", "multiple of 32", "own-cluster"}},
      {"lockfree-barrier --phases 1", {"--phases 1", "out of range 2..100000", "accepted: a whole number 2..100000"}},
      {"lockfree-barrier --phases 1000000", {"--phases 1000000", "100000"}},
      {"lockfree-barrier --part xf_lock", {"--part", "xf_lock", "xf-lock", "grid-sync"}},
      {"lockfree-barrier --part fastest", {"--part", "fastest", "own"}},
      {"lockfree-barrier --barrier own", {"--barrier"}},
      {"lockfree-barrier --trace --blocks 100", {"--trace", "64", "100"}},
      {"lockfree-barrier --blocks 65536 --threads 1024", {"65536", "1024", "2^24"}},
      {"lockfree-barrier --blocks 1000 --threads 1024 --phases 1000", {"--phases", "2^28"}},
      {"lockfree-barrier --deadline-ms 0", {"--deadline-ms 0", "out of range 1..10000"}},
      {"lockfree-barrier --backend model --bench --blocks 10", {"--blocks", "--bench"}},
      {"lockfree-barrier --backend model --bench --trace", {"--trace", "--bench"}},
      {"lockfree-barrier --backend model --bench --phases 4", {"--phases", "--bench"}},
      {"lockfree-barrier --backend model --bench --allow-unsafe", {"--allow-unsafe", "--bench"}},
      {"lockfree-barrier --backend model --bench --threads 48", {"--threads 48", "multiple of 32", "--bench"}},
      {"lockfree-barrier --backend model --bench --part xf-lock-unrepaired", {"--part xf-lock-unrepaired", "--bench"}},
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
  const CliResult waves = run_cli("lockfree-barrier --backend model --blocks 5000 --part relaunch,graph --phases 3");
  EXPECT_EQ(waves.exit_code, 0) << shown(waves);
  // The refusal is a JSON error document too.
  valid_document("lockfree-barrier --backend model --blocks 2000 --json", 2);
}

TEST(LockfreeBarrierCli, ModelRunShowsEveryBarrierAndWhatNeedsAGpu) {
  const auto doc = valid_document("lockfree-barrier --backend model --json", 0);
  std::vector<std::string> want = {"overview", "setup"};
  want.insert(want.end(), kParts.begin(), kParts.end());
  want.push_back("summary");
  EXPECT_EQ(section_ids(doc), want);
  const auto& sections = doc["report"]["sections"];
  EXPECT_EQ(sections["setup"]["facts"]["blocks"]["value"], 132);
  EXPECT_EQ(sections["setup"]["facts"]["resident-own-cluster"]["value"], 1056);
  EXPECT_EQ(sections["xf-lock"]["facts"]["model-words"]["value"], "g_mutex 1980");
  // Every correct barrier's model passes; the seed's code is reported, not checked.
  for (const char* id : {"relaunch", "graph", "xf-lock", "xf-lockfree", "grid-sync", "own", "own-cluster"})
    EXPECT_TRUE(sections[id]["checks"]["model-passes"]["passed"].get<bool>()) << id;
  EXPECT_TRUE(sections["xf-lock-unrepaired"]["checks"].empty());
  EXPECT_TRUE(contains(sections["xf-lockfree-unrepaired"]["facts"]["model-sim"]["value"].get<std::string>(),
                       "block 0 passed barrier 1 before every block had arrived"));
  EXPECT_TRUE(sections["own"]["measurements"]["time-per-barrier"]["needs_gpu"].get<bool>());
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  EXPECT_EQ(test::check_count(doc), 7u);
  // The summary: one row per barrier, the GPU's columns marked as needing one.
  const auto& rows = sections["summary"]["tables"]["barriers"]["rows"];
  ASSERT_EQ(rows.size(), kParts.size());
  EXPECT_EQ(rows[0]["barrier"], "relaunch");
  EXPECT_TRUE(rows[0]["ns"].is_null());
  // The text names the sm_90 need and what needs a GPU.
  const CliResult r = run_cli("lockfree-barrier --backend model --color never");
  for (const char* s : {"== setup: 132 blocks of 256 threads, 16 phases", "== own-cluster:", "needs a GPU",
                        "clusters of 4: 264 clusters of 4 blocks", "needs sm_90", "== every barrier side by side"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
}

TEST(LockfreeBarrierCli, OnePartHasNoSummary) {
  const auto doc = valid_document("lockfree-barrier --backend model --part own --json", 0);
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"setup", "own"}));
  EXPECT_EQ(doc["report"]["sections"]["setup"]["facts"]["parts"]["value"], "own");
}

TEST(LockfreeBarrierCli, SmallGridsPrintTheStepTable) {
  const auto doc = valid_document("lockfree-barrier --backend model --blocks 4 --part xf-lock-unrepaired --json", 0);
  const auto& section = doc["report"]["sections"]["xf-lock-unrepaired"];
  const auto& rows = section["tables"]["steps"]["rows"];
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(contains(rows.back()["event"].get<std::string>(), "deadlock")) << rows.back().dump();
}

TEST(LockfreeBarrierCli, AllowUnsafeShowsTheModelsDeadlock) {
  const auto doc =
      valid_document("lockfree-barrier --backend model --blocks 1100 --allow-unsafe --part xf-lock,relaunch --json", 0);
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"overview", "setup", "relaunch", "xf-lock", "summary"}));
  const auto& sections = doc["report"]["sections"];
  EXPECT_TRUE(contains(sections["xf-lock"]["facts"]["model-sim"]["value"].get<std::string>(), "deadlock"));
  EXPECT_TRUE(contains(sections["relaunch"]["facts"]["model-sim"]["value"].get<std::string>(), "completed"));
  EXPECT_TRUE(sections["xf-lock"]["checks"]["model-deadlocks"]["passed"].get<bool>());
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
}

// The simulation's words (model-sim, model-words) carry data an exercise reads beside them: the
// outcome, whether a block passed early, g_mutex. 8 blocks, 4 barriers: g_mutex ends at 32.
TEST(LockfreeBarrierCli, TheSimulationsOutcomeEarlyPassAndGMutexAreData) {
  const auto doc = valid_document(
      "lockfree-barrier --backend model --blocks 8 --phases 5 --part xf-lock,xf-lock-unrepaired,xf-lockfree-unrepaired "
      "--json",
      0);
  const auto& s = doc["report"]["sections"];
  std::vector<std::string> found;
  for (const char* part : {"xf-lock", "xf-lock-unrepaired", "xf-lockfree-unrepaired"})
    found.push_back(std::string(part) + ": " + s[part]["facts"]["model-outcome"]["value"].get<std::string>() +
                    (s[part]["facts"]["model-early"]["value"].get<bool>() ? ", early" : ""));
  EXPECT_EQ(found, (std::vector<std::string>{"xf-lock: completes", "xf-lock-unrepaired: deadlocks",
                                             "xf-lockfree-unrepaired: deadlocks, early"}));
  EXPECT_EQ(s["xf-lock"]["facts"]["model-g-mutex"]["value"], 32);
  EXPECT_FALSE(s["xf-lockfree-unrepaired"]["facts"].contains("model-g-mutex"));  // its words are Arrayin/out
}

TEST(LockfreeBarrierCli, TraceDefaultsTo16BlocksAndPrintsSteps) {
  const CliResult r = run_cli("lockfree-barrier --backend model --trace --part own --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"16 blocks of 256 threads", "the model, step by step", "red.release add(&counter, 1)"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
}

TEST(LockfreeBarrierCli, OwnClusterOnTheModelShowsLeadersAndWholeClusters) {
  const CliResult r = run_cli("lockfree-barrier --backend model --part own-cluster --blocks 8 --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  for (const char* s : {"clusters of 8: 132 clusters of 8 blocks", "the model, step by step",
                        "start (room for the whole cluster)", "then poll (the cluster's leader)",
                        "then wait at the cluster barrier", "cluster 0's barrier complete", "checks: 1 passed, 0 failed"})
    EXPECT_TRUE(contains(r.out, s)) << "missing '" << s << "'\n" << shown(r);
  // Past co-residency the refusal counts whole clusters.
  const CliResult big = run_cli("lockfree-barrier --backend model --part own-cluster --blocks 2000");
  EXPECT_EQ(big.exit_code, 2) << shown(big);
  EXPECT_TRUE(contains(big.err, "132 clusters of 8 blocks of 256 threads = 1056")) << shown(big);
}

TEST(LockfreeBarrierCli, BenchOnTheModelSaysWhatNeedsAGpu) {
  const auto doc = valid_document("lockfree-barrier --backend model --bench --json", 0);
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"setup", "bench"}));
  const auto& setup = doc["report"]["sections"]["setup"];
  EXPECT_EQ(setup["tables"]["grid-sizes"]["rows"].size(), 4u);  // 132, 264, 528, 1056
  const auto& bench = doc["report"]["sections"]["bench"];
  const auto& median = bench["tables"]["median"];
  EXPECT_EQ(median["columns"].size(), 5u);  // barrier + 132, 264, 528, 1056
  EXPECT_EQ(median["rows"].size(), 9u);     // the correct barriers and own's two candidates
  EXPECT_TRUE(bench["tables"].contains("vs-grid-sync"));
  // every cell, the floor, own-tree and own-ticket at each size
  EXPECT_EQ(bench["measurements"].size(), 9u * 4u + 1u + 4u + 4u);
  for (const auto& [id, m] : bench["measurements"].items()) EXPECT_TRUE(m["needs_gpu"].get<bool>()) << id;
  EXPECT_TRUE(bench["checks"].empty());  // the deadline and candidate checks need a GPU
}

TEST(LockfreeBarrierCli, BenchOnTheModelShowsTheCostModelsStructure) {
  const auto doc = valid_document("lockfree-barrier --backend model --bench --json", 0);
  const auto& tables = doc["report"]["sections"]["bench"]["tables"];
  // Every barrier inside a kernel (5, own's 2 candidates, own-tree and own-ticket) at every grid size (4):
  // relaunch and graph are their launches, not modelled.
  const auto& model = tables["model"];
  EXPECT_EQ(model["rows"].size(), 9u * 4u);
  for (const auto& row : model["rows"]) {
    EXPECT_NE(row["row"], "relaunch");
    EXPECT_TRUE(row["predicted"].is_null()) << row.dump();  // needs a GPU
  }
  std::vector<std::string> terms;
  for (const auto& c : tables["terms-own-cluster"]["columns"]) terms.push_back(c["key"]);
  EXPECT_EQ(terms,
            (std::vector<std::string>{"at", "sync", "fence", "queue", "poll", "acquire", "contention", "cluster"}));
  EXPECT_EQ(tables["terms-xf-lockfree"]["rows"].size(), 4u);  // one per grid size
  EXPECT_EQ(tables["terms-own-tree"]["rows"].size(), 4u);
  // own's formula, as the text derives it; its primitives, measured at the grid's own size.
  std::string own;
  for (const auto& row : tables["model-formulas"]["rows"])
    if (row["row"] == "own") own = row["formula"];
  for (const char* s : {"sync = 2 x sync(256)", "fence = fence-rel(1056)", "queue = max(0, queue-atomic(528) - rt-atomic)",
                        "poll = poll-relaxed(1056)", "acquire = fence-acquire",
                        "contention = arrive-poll-own(1056/2) - (fence + queue + poll + acquire)"})
    EXPECT_NE(own.find(s), std::string::npos) << s << " in " << own;
  bool own_whole = false;  // own at 1056 blocks: its protocol on its 2 counters, measured whole
  for (const auto& row : tables["primitives"]["rows"])
    own_whole = own_whole || (row["primitive"] == "arrive-poll-own" && row["at"] == "1056/2");
  EXPECT_TRUE(own_whole);
  EXPECT_EQ(tables["own-vs-grid-sync"]["rows"].size(), 4u);
  // The tree: one row per arity, its levels at each grid size, the model's ns for each (a GPU's);
  // where it pays needs a GPU's primitives.
  const auto& tree = tables["tree-arity"]["rows"];
  ASSERT_EQ(tree.size(), 4u * 5u);  // every grid size, every arity
  std::vector<int> levels;
  for (const auto& row : tree)
    if (row["arity"] == 8) levels.push_back(row["levels"]);
  EXPECT_EQ(levels, (std::vector<int>{3, 3, 4, 4}));  // 132, 264, 528, 1056 blocks
  EXPECT_TRUE(tree[0]["predicted"].is_null());
  EXPECT_EQ(tree[2]["chosen"], true) << "without a GPU: the default arity, 8";
  const auto& facts = doc["report"]["sections"]["bench"]["facts"];
  EXPECT_TRUE(facts["tree-pays-predicted"]["needs_gpu"].get<bool>()) << facts["tree-pays-predicted"];
  // own-tree apart: one row per grid size at the arity chosen, its prediction and measurement.
  const auto& timed = tables["tree"]["rows"];
  ASSERT_EQ(timed.size(), 4u);
  EXPECT_EQ(timed[3]["blocks"], 1056);
  EXPECT_EQ(timed[3]["arity"], 8);
  EXPECT_EQ(timed[3]["levels"], 4);
  EXPECT_TRUE(timed[3]["measured"].is_null());
  EXPECT_TRUE(doc["report"]["sections"]["bench"]["measurements"]["tree-1056"]["needs_gpu"].get<bool>());
  EXPECT_TRUE(doc["report"]["sections"]["bench"]["measurements"]["ticket-1056"]["needs_gpu"].get<bool>());
  std::string legends;
  for (const auto& l : tables["tree"]["legend"]) legends += l.get<std::string>() + "\n";
  for (const char* s : {"fence = fence-rel(1056) + 4 x fence-rel(1)", "climb = 4 x max(queue-atomic(8), rt-atomic)",
                        "poll = poll-relaxed(1056)"})
    EXPECT_NE(legends.find(s), std::string::npos) << s << " in " << legends;
}

}  // namespace
// The parts renamed in this release (xf-lock-seed, xf-lockfree-seed) still run under their old ids
// for one release, as the same section; the help names only the new ones.
TEST(LockfreeBarrierCli, FormerPartIdsRunTheRenamedPartsAndAreHidden) {
  const auto doc = valid_document("lockfree-barrier --backend model --blocks 4 --part xf-lock-seed,xf-lockfree-seed --json", 0);
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"overview", "setup", "xf-lock-unrepaired", "xf-lockfree-unrepaired", "summary"}));
  const auto help = run_cli("lockfree-barrier --help");
  EXPECT_EQ(help.exit_code, 0) << shown(help);
  EXPECT_NE(help.out.find("xf-lock-unrepaired"), std::string::npos);
  EXPECT_EQ(help.out.find("xf-lock-seed"), std::string::npos) << help.out;
}

}  // namespace cudasync::lockfree_barrier
