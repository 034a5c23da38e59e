// named-barriers as a student runs it: bad input exits 2 with a message that names it and says
// what is accepted; every --json document validates against schema/report-v2.json; --part picks
// the sections. Without a GPU the lesson runs on the reference model; with one, on the GPU.
#include <gtest/gtest.h>

#include <algorithm>

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
  for (const auto& [id, s] : doc["report"]["sections"].items()) ids.push_back(id);
  return ids;
}

TEST(NamedBarriersCli, BadInputExits2AndSaysWhatIsAccepted) {
  const UsageCase cases[] = {
      {"named-barriers --barrier-ids 16,2", {"--barrier-ids 16", "0..15", "sixteen"}},
      {"named-barriers --barrier-ids -1,2", {"-1", "0..15"}},
      {"named-barriers --barrier-ids 3,3", {"3,3", "must differ"}},
      {"named-barriers --barrier-ids 1", {"--barrier-ids", "two barrier ids 0..15"}},
      {"named-barriers --groups 48,64", {"--groups 48", "multiple of 32", "--part misuse --count 48"}},
      {"named-barriers --producers 40", {"--producers 40", "multiple of 32"}},
      {"named-barriers --consumers 0", {"--consumers 0", "at least one warp"}},
      {"named-barriers --producers 512 --consumers 544", {"1056 threads", "1024"}},
      {"named-barriers --groups 512,544", {"1056 threads", "1024"}},
      {"named-barriers --part bar-red --predicate 'lane<<5'", {"lane<<5", "lane|warp|tid", "even"}},
      {"named-barriers --predicate sometimes", {"sometimes", "accepted"}},
      {"named-barriers --part misuse --arrive 40", {"--arrive 40", "whole warps"}},
      {"named-barriers --part misuse --count 2000", {"--count", "2000"}},
      {"named-barriers --part misuse --count 96 --arrive 992", {"--count 96", "rescue"}},
      {"named-barriers --part barsync", {"--part", "barsync", "bar-sync"}},
      {"named-barriers --phases 9", {"--phases", "9"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

// Core's rule for options a part reads: the lesson declares them, core refuses the rest.
TEST(NamedBarriersCli, AnOptionOfAPartNotSelectedIsRefused) {
  const UsageCase cases[] = {
      {"named-barriers --part bar-sync --count 48", {"--count", "misuse", "--part"}},
      {"named-barriers --part bar-red --arrive 32", {"--arrive", "misuse"}},
      {"named-barriers --part listing --groups 64,64", {"--groups", "bar-sync"}},
      {"named-barriers --part cost --trace", {"--trace", "producer-consumer", "cuda-barrier"}},
      {"named-barriers --part cuda-barrier --barrier-ids 0,1", {"--barrier-ids", "bar-sync"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

// Found by fuzzing: two counts that each pass alone added up to an int that overflowed, so the
// block's size check passed and the run allocated gigabytes (and hung). Run under a memory limit
// and a timeout, so a regression fails here instead of taking the machine.
TEST(NamedBarriersCli, HugeThreadCountsAreRefusedNotAdded) {
  struct Case {
    const char* args;
    std::vector<const char*> err_has;
  };
  const Case cases[] = {
      {"--part bar-sync --groups 1073741824,1073741824", {"--groups 1073741824,1073741824", "2147483648", "1024"}},
      {"--part producer-consumer --producers 1073741824 --consumers 1073741824",
       {"--producers 1073741824", "--consumers 1073741824", "2147483648", "1024"}},
      {"--groups 2147483616,64", {"--groups 2147483616,64", "1024"}},
  };
  for (const auto& c : cases) {
    // At most 4 GB: ulimit -v, or under AddressSanitizer (which reserves terabytes of address space
    // for its shadow) its own limit on resident memory.
#if defined(__SANITIZE_ADDRESS__)
    const std::string limit = "ASAN_OPTIONS=\"$ASAN_OPTIONS:hard_rss_limit_mb=4000\" ";
#else
    const std::string limit = "ulimit -v 4000000; ";
#endif
    const CliResult r =
        run_shell(limit + "timeout 20 " + binary_path() + " named-barriers " + c.args + " --color never");
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << shown(r);
    for (const char* s : c.err_has) EXPECT_TRUE(contains(r.err, s)) << c.args << ": stderr lacks '" << s << "'\n" << r.err;
    EXPECT_TRUE(contains(r.err, "accepted")) << c.args << "\n" << r.err;
  }
}

// Found by fuzzing: CLI11 read an empty value as "not given" and dropped empty list items.
TEST(NamedBarriersCli, EmptyValuesAndEmptyListItemsAreRefused) {
  const UsageCase cases[] = {
      {"named-barriers --part misuse --arrive ''", {"--arrive", "''", "32..992"}},
      {"named-barriers --barrier-ids 1,,2", {"--barrier-ids 1,,2", "an empty item", "0..15, comma-separated"}},
      {"named-barriers --barrier-ids 1,", {"--barrier-ids 1,", "an empty item", "comma-separated"}},
      {"named-barriers --barrier-ids ''", {"--barrier-ids", "''", "0..15"}},
      {"named-barriers --groups 64,,128", {"--groups 64,,128", "an empty item", "32..992, comma-separated"}},
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
        "named-barriers --part cost --bench --json",
        "named-barriers --barrier-ids 0,15 --part bar-sync,producer-consumer --json"}) {
    const json doc = valid_document(args);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(doc["report"]["command"], "named-barriers") << args;
    EXPECT_EQ(failed_checks(doc), std::vector<std::string>{}) << args;
  }
}

TEST(NamedBarriersCli, PartSelectsTheSections) {
  EXPECT_EQ(section_ids(valid_document("named-barriers --part bar-red --json")),
            (std::vector<std::string>{"setup", "bar-red"}));
  const bool gpu_below_80 = [] {
    const auto p = probe_gpus();
    return !p.devices.empty() && p.devices.front().compute_capability() < 80;
  }();
  const auto all = section_ids(valid_document("named-barriers --json"));
  std::vector<std::string> want = {"overview", "setup",        "bar-sync", "early-stamp", "producer-consumer", "bar-red",
                                   "cuda-barrier", "listing",  "misuse",      "cost"};
  if (gpu_below_80) want.erase(std::find(want.begin(), want.end(), "cuda-barrier"));
  EXPECT_EQ(all, want);
}

TEST(NamedBarriersCli, ModelRunChecksTheModelByItsIds) {
  const json doc = valid_document("named-barriers --backend model --json");
  const auto& sections = doc["report"]["sections"];
  for (const char* part : {"bar-sync", "producer-consumer"})
    EXPECT_TRUE(sections[part]["checks"]["model-finishes"]["passed"].get<bool>()) << part;
  // The listing part checks what this build compiled (where cuobjdump made a listing), whatever the
  // backend; every other check of a model run is about the model's two programs.
  std::size_t checks = 0;
  for (const auto& [id, section] : sections.items())
    if (id != "listing") checks += section["checks"].size();
  EXPECT_EQ(checks, 2u) << "a model run checks the model's two programs, nothing a GPU would give";
  EXPECT_EQ(sections["setup"]["facts"]["bar-sync-block"]["value"], 192);
  EXPECT_EQ(sections["cost"]["measurements"]["syncthreads-at-64"]["needs_gpu"], true);
}

TEST(NamedBarriersCli, ModelRunIsDeterministicAndFollowsTheRandomSeed) {
  const json a = valid_document("named-barriers --backend model --part producer-consumer,bar-red --seed 3 --json");
  const json b = valid_document("named-barriers --backend model --part producer-consumer,bar-red --seed 3 --json");
  const json c = valid_document("named-barriers --backend model --part producer-consumer,bar-red --seed 4 --json");
  EXPECT_EQ(a["report"], b["report"]);
  EXPECT_NE(a["report"], c["report"]);
}

TEST(NamedBarriersCli, ModelShowsTheBarRedOfTheIssue) {
  // lane<5 in a block of 256: 5 lanes in each of 8 warps.
  const json doc = valid_document("named-barriers --backend model --part bar-red --predicate 'lane<5' --json");
  const auto& row = doc["report"]["sections"]["bar-red"]["tables"]["reductions"]["rows"][0];
  EXPECT_EQ(row["predicate"], "lane<5");
  EXPECT_EQ(row["model-count"], 40);
  EXPECT_EQ(row["model-and"], 0);
  EXPECT_EQ(row["model-or"], 1);
}

TEST(NamedBarriersCli, ModelPredictsTheHangOfACountLargerThanTheArrivals) {
  const json doc = valid_document("named-barriers --backend model --part misuse --count 128 --arrive 64 --json");
  const auto& row = doc["report"]["sections"]["misuse"]["tables"]["case-0-model"]["rows"][0];
  EXPECT_EQ(row["rescues"], 2);
  EXPECT_EQ(row["without-rescue"], "hangs forever");
}

TEST(NamedBarriersCli, TheChildModeIsHiddenAndNeedsAGpu) {
  const CliResult help = run_cli("named-barriers --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_FALSE(contains(help.out, "--child")) << help.out;
  EXPECT_FALSE(contains(help.out, "--misuse-child")) << help.out;
  const CliResult old = run_cli("named-barriers --misuse-child /tmp/x");
  EXPECT_EQ(old.exit_code, 2) << shown(old);
  if (probe_gpus().devices.empty()) {
    const CliResult child = run_cli("named-barriers --child misuse --child-out /tmp/cudasync_nb_child_test --count 48");
    EXPECT_EQ(child.exit_code, 3) << shown(child);
  }
}

}  // namespace
}  // namespace cudasync::test
