// named-barriers as a student runs it: bad input exits 2 with a message that names it and says
// what is accepted; every --json document validates against schema/report-v1.json; --part picks
// the sections. Without a GPU the lesson runs on the reference model; with one, on the GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/device_info.hpp"
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

TEST(NamedBarriersCli, BadInputExits2AndSaysWhatIsAccepted) {
  const UsageCase cases[] = {
      {"named-barriers --barrier-ids 16,2", {"--barrier-ids 16", "0..15", "sixteen"}},
      {"named-barriers --barrier-ids -1,2", {"-1", "0..15"}},
      {"named-barriers --barrier-ids 3,3", {"3,3", "must differ"}},
      {"named-barriers --groups 48,64", {"--groups 48", "multiple of 32", "--part misuse --count 48"}},
      {"named-barriers --producers 40", {"--producers 40", "multiple of 32"}},
      {"named-barriers --consumers 0", {"--consumers 0", "at least one warp"}},
      {"named-barriers --producers 512 --consumers 544", {"1056 threads", "1024"}},
      {"named-barriers --groups 512,544", {"1056 threads", "1024"}},
      {"named-barriers --part bar-red --predicate 'lane<<5'", {"lane<<5", "lane|warp|tid", "even"}},
      {"named-barriers --predicate sometimes", {"sometimes", "accepted"}},
      {"named-barriers --part bar-sync --count 48", {"--count", "--part misuse"}},
      {"named-barriers --part misuse --arrive 40", {"--arrive 40", "whole warps"}},
      {"named-barriers --part misuse --count 2000", {"--count", "2000"}},
      {"named-barriers --part misuse --count 96 --arrive 992", {"--count 96", "rescue"}},
      {"named-barriers --part barsync", {"--part", "barsync", "bar-sync"}},
      {"named-barriers --phases 9", {"--phases", "9"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

TEST(NamedBarriersCli, MisuseAcceptsCountsThatAreNotMultiplesOf32) {
  const CliResult r = run_cli("named-barriers --part misuse --count 48 --arrive 32 --color never");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "bar.sync 1, 48")) << r.out;
}

TEST(NamedBarriersCli, EveryPartsDocumentValidates) {
  for (const char* args :
       {"named-barriers --json", "named-barriers --backend model --json", "named-barriers --part bar-sync --json",
        "named-barriers --part producer-consumer --producers 64 --consumers 64 --trace --json",
        "named-barriers --part bar-red --predicate 'lane<5,warp==1,random' --threads 100 --json",
        "named-barriers --part cuda-barrier --trace --json", "named-barriers --part listing --json",
        "named-barriers --part misuse --count 48 --arrive 32 --json", "named-barriers --part cost --json",
        "named-barriers --barrier-ids 0,15 --part bar-sync,producer-consumer --json"}) {
    const json doc = valid_document(args);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(doc["report"]["technique"], "named-barriers") << args;
    EXPECT_EQ(doc["report"]["summary"]["checks_failed"], 0) << args;
  }
}

TEST(NamedBarriersCli, PartSelectsTheSections) {
  EXPECT_EQ(section_ids(valid_document("named-barriers --part bar-red --json")),
            (std::vector<std::string>{"setup", "bar_red"}));
  const bool gpu_below_80 = [] {
    const auto p = probe_gpus();
    return !p.devices.empty() && p.devices.front().compute_capability() < 80;
  }();
  const auto all = section_ids(valid_document("named-barriers --json"));
  std::vector<std::string> want = {"setup", "bar_sync", "producer_consumer", "bar_red", "cuda_barrier", "listing",
                                   "misuse", "cost"};
  if (gpu_below_80) want.erase(want.begin() + 4);
  EXPECT_EQ(all, want);
}

TEST(NamedBarriersCli, ModelRunIsDeterministicAndFollowsTheSeed) {
  const json a = valid_document("named-barriers --backend model --part producer-consumer,bar-red --seed 3 --json");
  const json b = valid_document("named-barriers --backend model --part producer-consumer,bar-red --seed 3 --json");
  const json c = valid_document("named-barriers --backend model --part producer-consumer,bar-red --seed 4 --json");
  EXPECT_EQ(a["report"], b["report"]);
  EXPECT_NE(a["report"], c["report"]);
}

TEST(NamedBarriersCli, ModelShowsTheBarRedOfTheIssue) {
  // lane<5 in a block of 256: 5 lanes in each of 8 warps.
  const json doc = valid_document("named-barriers --backend model --part bar-red --predicate 'lane<5' --json");
  const auto& row = doc["report"]["sections"][1]["tables"][0]["rows"][0];
  EXPECT_EQ(row["predicate"], "lane<5");
  EXPECT_EQ(row["model_count"], 40);
  EXPECT_EQ(row["model_and"], 0);
  EXPECT_EQ(row["model_or"], 1);
}

TEST(NamedBarriersCli, ModelPredictsTheHangOfACountLargerThanTheArrivals) {
  const CliResult r = run_cli("named-barriers --backend model --part misuse --count 128 --arrive 64 --color never");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "hangs forever")) << r.out;
}

}  // namespace
}  // namespace cudasync::test
