// threadfence as a student runs it: bad input exits 2 with a message that names it and says what is
// accepted; every --json document validates against schema/report-v1.json; --part, --show-ptx and
// the litmus options pick the sections. Without a GPU the lesson runs on the reference model; with
// one, on the GPU.
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
  for (const auto& s : doc["report"]["sections"]) ids.push_back(s["id"].get<std::string>());
  return ids;
}

const json* section(const json& doc, const std::string& id) {
  for (const auto& s : doc["report"]["sections"])
    if (s["id"] == id) return &s;
  return nullptr;
}

TEST(ThreadfenceCli, BadInputExits2AndSaysWhatIsAccepted) {
  const UsageCase cases[] = {
      {"threadfence --test iriw", {"unknown test 'iriw'", "mp, sb, lb, corr"}},
      {"threadfence --test mp,xx", {"unknown test 'xx'"}},
      {"threadfence --fence sometimes", {"unknown fence 'sometimes'", "none, block, device, system, rel-acq"}},
      {"threadfence --fence none,block,device", {"--fence"}},
      {"threadfence --iterations 0", {"0 instances", "1..100000000"}},
      {"threadfence --iterations 100000001", {"100000001", "1..100000000"}},
      {"threadfence --iterations 1e6", {"'1e6' is not a whole number"}},
      {"threadfence --iterations -5", {"-5", "1..100000000"}},
      {"threadfence --fence device,none", {"corr", "single store", "nothing to order", "--test"}},
      {"threadfence --test corr --fence system,none", {"corr", "single store", "--test corr --fence none"}},
      {"threadfence --part cost --test mp", {"litmus", "--part"}},
      {"threadfence --part cost --fence device", {"add litmus to --part"}},
      {"threadfence --part last-block --iterations 10", {"--iterations", "last-block"}},
      {"threadfence --show-ptx --iterations 10", {"--iterations", "ptx"}},
      {"threadfence --access fast", {"unknown access 'fast'", "plain, volatile"}},
      {"threadfence --placement near", {"unknown placement 'near'", "different-blocks, same-block"}},
      {"threadfence --part nope", {"unknown part 'nope'", "litmus", "work-queue"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(ThreadfenceCli, AcceptedFenceCombinations) {
  for (const char* args : {"threadfence --backend model --test corr --fence device",
                           "threadfence --backend model --test corr --fence none,system",
                           "threadfence --backend model --test corr --fence rel-acq",
                           "threadfence --backend model --test mp,sb --fence device,none",
                           "threadfence --backend model --test lb --fence rel-acq,block --placement same-block"}) {
    const CliResult r = run_cli(std::string(args) + " --color never");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
}

TEST(ThreadfenceCli, PartsAndOptionsSelectTheSections) {
  EXPECT_EQ(section_ids(valid_document("threadfence --json")),
            (std::vector<std::string>{"setup", "litmus", "scope", "volatile", "cost", "last_block", "work_queue"}));
  EXPECT_EQ(section_ids(valid_document("threadfence --show-ptx --json")), (std::vector<std::string>{"setup", "ptx"}));
  EXPECT_EQ(section_ids(valid_document("threadfence --test mp --fence none --iterations 1000 --json")),
            (std::vector<std::string>{"setup", "litmus"}));
  EXPECT_EQ(section_ids(valid_document("threadfence --part work-queue,scope --show-ptx --iterations 1000 --json")),
            (std::vector<std::string>{"setup", "scope", "ptx", "work_queue"}));
}

TEST(ThreadfenceCli, EveryPartsDocumentValidates) {
  for (const char* args :
       {"threadfence --backend model --json", "threadfence --part litmus --access volatile --iterations 5000 --json",
        "threadfence --part litmus --placement same-block --test sb,lb --iterations 5000 --json",
        "threadfence --part volatile --iterations 5000 --json", "threadfence --part cost --json",
        "threadfence --part last-block --json", "threadfence --part work-queue --seed 9 --json",
        "threadfence --show-ptx --json"}) {
    const json doc = valid_document(args);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(doc["report"]["technique"], "threadfence") << args;
    EXPECT_EQ(doc["report"]["summary"]["checks_failed"], 0) << args;
  }
}

TEST(ThreadfenceCli, ModelSaysWhatIsAllowedAndThatCountsNeedAGpu) {
  const json doc = valid_document("threadfence --backend model --test mp --fence device --json");
  const json* s = section(doc, "litmus");
  ASSERT_NE(s, nullptr);
  const auto& row = (*s)["tables"][0]["rows"][0];
  EXPECT_EQ(row["test"], "mp");
  EXPECT_EQ(row["fence"], "device");
  EXPECT_EQ(row["allowed"], "11");
  EXPECT_EQ(row["verdict"], "forbidden (causality)");
  EXPECT_TRUE(row["r10"].is_null()) << "no GPU, no count: null, never 0";
  EXPECT_TRUE(row["instances"].is_null());
  const CliResult r = run_cli("threadfence --backend model --test sb --fence rel-acq --color never");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "counts need a GPU")) << r.out;
  EXPECT_TRUE(contains(r.out, "00 01 10 11")) << "sb with release/acquire: r0 = r1 = 0 stays allowed\n" << r.out;
}

TEST(ThreadfenceCli, ModelRunIsDeterministicAndFollowsTheSeed) {
  const json a = valid_document("threadfence --backend model --part last-block,work-queue --seed 3 --json");
  const json b = valid_document("threadfence --backend model --part last-block,work-queue --seed 3 --json");
  const json c = valid_document("threadfence --backend model --part last-block,work-queue --seed 4 --json");
  EXPECT_EQ(a["report"], b["report"]);
  EXPECT_NE(a["report"], c["report"]);
}

TEST(ThreadfenceCli, ModelRunMeasuresNothing) {
  const json doc = valid_document("threadfence --backend model --part cost --json");
  const json* s = section(doc, "cost");
  ASSERT_NE(s, nullptr);
  ASSERT_FALSE((*s)["measurements"].empty());
  for (const auto& m : (*s)["measurements"]) {
    EXPECT_EQ(m["needs_gpu"], true) << m.dump();
    EXPECT_TRUE(m["samples"].empty()) << m.dump();
  }
}

}  // namespace
}  // namespace cudasync::test
