// threadfence as a student runs it: bad input exits 2 with a message that names it and says what is
// accepted; every --json document validates against schema/report-v2.json; --part picks the
// sections and the litmus options choose the litmus rows. Without a GPU the lesson runs on the
// reference model; with one, on the GPU. Checks and cells are found by id, never by English text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_expect.hpp"
#include "support/json_schema.hpp"
#include "support/run_cli.hpp"

namespace cudasync::test {
namespace {

using json = nlohmann::ordered_json;

std::vector<std::string> section_ids(const json& doc) {
  std::vector<std::string> ids;
  for (const auto& [id, s] : doc["report"]["sections"].items()) ids.push_back(id);
  return ids;
}

TEST(ThreadfenceCli, BadInputExits2AndSaysWhatIsAccepted) {
  const UsageCase cases[] = {
      {"threadfence --test iriw", {"--test iriw", "mp, sb, lb, corr"}},
      {"threadfence --test mp,xx", {"--test xx"}},
      {"threadfence --fence sometimes", {"--fence sometimes", "none, block, device, system, rel-acq"}},
      {"threadfence --fence none,block,device", {"--fence"}},
      {"threadfence --iterations 0", {"0 instances", "1..100000000"}},
      {"threadfence --iterations 100000001", {"100000001", "1..100000000"}},
      {"threadfence --iterations 1e6", {"'1e6' is not a whole number"}},
      {"threadfence --iterations -5", {"-5", "1..100000000"}},
      {"threadfence --fence device,none", {"corr", "single store", "nothing to order", "--test"}},
      {"threadfence --test corr --fence system,none", {"corr", "single store", "--test corr --fence none"}},
      {"threadfence --part cost --test mp", {"--test applies only to the part litmus", "--part"}},
      {"threadfence --part cost --fence device", {"--fence applies only to the part litmus"}},
      {"threadfence --part last-block --iterations 10", {"--iterations", "litmus, scope, volatile"}},
      {"threadfence --part ptx --iterations 10", {"--iterations", "litmus, scope, volatile"}},
      {"threadfence --show-ptx", {"--show-ptx"}},
      {"threadfence --access fast", {"--access fast", "plain, volatile"}},
      {"threadfence --placement near", {"--placement near", "different-blocks, same-block"}},
      {"threadfence --part nope", {"nope", "litmus", "work-queue"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(ThreadfenceCli, AcceptedFenceCombinations) {
  for (const char* args : {"threadfence --backend model --part litmus --test corr --fence device",
                           "threadfence --backend model --part litmus --test corr --fence none,system",
                           "threadfence --backend model --part litmus --test corr --fence rel-acq",
                           "threadfence --backend model --part litmus --test mp,sb --fence device,none",
                           "threadfence --backend model --test lb --fence rel-acq,block --placement same-block"}) {
    const CliResult r = run_cli(std::string(args) + " --color never");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
}

TEST(ThreadfenceCli, PartPicksTheSections) {
  EXPECT_EQ(section_ids(valid_document("threadfence --json")),
            (std::vector<std::string>{"overview", "setup", "litmus", "scope", "volatile", "cost", "last-block", "work-queue",
                                      "work-queue-race", "host-observer"}))
      << "last-block-partial starts a child process: only when --part names it";
  EXPECT_EQ(section_ids(valid_document("threadfence --part ptx --json")), (std::vector<std::string>{"setup", "ptx"}));
  EXPECT_EQ(section_ids(valid_document("threadfence --part litmus --test mp --fence none --iterations 1000 --json")),
            (std::vector<std::string>{"setup", "litmus"}));
  EXPECT_EQ(section_ids(valid_document("threadfence --part work-queue,ptx,scope --iterations 1000 --json")),
            (std::vector<std::string>{"overview", "setup", "scope", "ptx", "work-queue"}))
      << "the lesson's order, whatever order --part names them in";
}

TEST(ThreadfenceCli, EveryPartsDocumentValidates) {
  for (const char* args :
       {"threadfence --backend model --json", "threadfence --part litmus --access volatile --iterations 5000 --json",
        "threadfence --part litmus --placement same-block --test sb,lb --iterations 5000 --json",
        "threadfence --part volatile --iterations 5000 --json", "threadfence --part cost --json",
        "threadfence --part last-block --json", "threadfence --part work-queue --seed 9 --json",
        "threadfence --part ptx --json", "threadfence --part work-queue-race --seed 4 --json",
        "threadfence --part last-block-partial --json", "threadfence --part host-observer --bench --json"}) {
    const json doc = valid_document(args);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(doc["report"]["command"], "threadfence") << args;
    EXPECT_EQ(failed_checks(doc), std::vector<std::string>{}) << args;
  }
}

TEST(ThreadfenceCli, ModelSaysWhatIsAllowedAndThatCountsNeedAGpu) {
  const json doc = valid_document("threadfence --backend model --part litmus --test mp --fence device --json");
  const json& s = doc["report"]["sections"]["litmus"];
  const json& t = s["tables"]["outcomes"];
  const auto& row = t["rows"][0];
  EXPECT_EQ(row["test"], "mp");
  EXPECT_EQ(row["fence"], "device");
  EXPECT_EQ(row["allowed"], "11");
  EXPECT_EQ(row["verdict"], "forbidden (causality)");
  EXPECT_FALSE(row.contains("r10")) << "no GPU, no count: the column is left out, never 0";
  EXPECT_FALSE(row.contains("instances"));
  EXPECT_EQ(doc["report"]["sections"]["setup"]["facts"]["iterations"]["value"], 200000);
  EXPECT_EQ(doc["report"]["sections"]["setup"]["facts"]["iterations"]["format"], "count");
  const CliResult r = run_cli("threadfence --backend model --part litmus --test sb --fence rel-acq --color never");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "00 01 10 11")) << "sb with release/acquire: r0 = r1 = 0 stays allowed\n" << r.out;
}

// Beside the words an exercise cannot read (they may be translated), the placement, the fence and
// the model's verdict as ids: the scope table's rows by fence and sides, the host observer's by verdict.
TEST(ThreadfenceCli, PlacementFenceAndVerdictAreIdsBesideTheirWords) {
  const json doc = valid_document("threadfence --backend model --part scope,host-observer --iterations 1000 --json");
  std::vector<std::string> scope;
  for (const auto& row : doc["report"]["sections"]["scope"]["tables"]["outcomes"]["rows"])
    scope.push_back(row["fence"].get<std::string>() + " " + row["sides-in-id"].get<std::string>() + ": " +
                    row["allowed"].get<std::string>());
  EXPECT_EQ(scope, (std::vector<std::string>{"none one-block: 10 11", "block one-block: 11", "device one-block: 11",
                                             "none two-blocks: 10 11", "block two-blocks: 10 11",
                                             "device two-blocks: 11"}));
  std::vector<std::string> host;
  for (const auto& row : doc["report"]["sections"]["host-observer"]["tables"]["rounds"]["rows"])
    host.push_back(row["fence-id"].get<std::string>() + " " + row["verdict-id"].get<std::string>());
  EXPECT_EQ(host, (std::vector<std::string>{"none allowed", "device allowed", "system forbidden"}));
}

TEST(ThreadfenceCli, ModelRunIsDeterministicAndFollowsTheSeed) {
  const std::string parts = "threadfence --backend model --part last-block,work-queue,work-queue-race,last-block-partial";
  const json a = valid_document(parts + " --seed 3 --json");
  const json b = valid_document(parts + " --seed 3 --json");
  const json c = valid_document(parts + " --seed 4 --json");
  EXPECT_EQ(a["report"], b["report"]);
  EXPECT_NE(a["report"], c["report"]);
  EXPECT_NE(a["report"]["sections"]["last-block"]["facts"]["model-sum"]["value"],
            c["report"]["sections"]["last-block"]["facts"]["model-sum"]["value"]);
  EXPECT_NE(a["report"]["sections"]["last-block-partial"]["facts"]["model-sum"]["value"],
            c["report"]["sections"]["last-block-partial"]["facts"]["model-sum"]["value"]);
  EXPECT_NE(a["report"]["sections"]["work-queue-race"]["tables"]["variants"],
            c["report"]["sections"]["work-queue-race"]["tables"]["variants"]);
}

TEST(ThreadfenceCli, ModelRunMeasuresNothing) {
  const json doc = valid_document("threadfence --backend model --part cost --json");
  const json& s = doc["report"]["sections"]["cost"];
  ASSERT_EQ(s["measurements"].size(), 18u);
  for (const auto& [id, m] : s["measurements"].items()) {
    EXPECT_EQ(m["needs_gpu"], true) << id;
    EXPECT_TRUE(m["samples"].empty()) << id;
  }
  EXPECT_TRUE(s["tables"].contains("vs-store"));
  EXPECT_TRUE(s["tables"].contains("vs-l2-load"));
}

}  // namespace
}  // namespace cudasync::test
