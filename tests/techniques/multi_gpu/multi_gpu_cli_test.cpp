// multi-gpu as a student runs it, on the reference model: every part's model, bad input refused at
// once with the reason (exit 2), --bench's sweep, and every --json document valid against
// schema/report-v2.json. Checks and facts are found by id.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/cli_expect.hpp"
#include "techniques/multi_gpu/multi_gpu_test_support.hpp"

namespace cudasync::multi_gpu {
namespace {

namespace t = cudasync::test;

TEST(MultiGpuCli, BadInputExits2WithTheReasonAndWhatIsAccepted) {
  const t::UsageCase cases[] = {
      {"multi-gpu --devices 0", {"--devices 0", "accepted: two GPUs", "--devices 0,1"}},
      {"multi-gpu --devices 0,0", {"--devices 0,0", "two different GPUs"}},
      {"multi-gpu --devices 0,1,2", {"--devices 0,1,2", "accepted: two GPUs"}},
      {"multi-gpu --devices 0,x", {"--devices x", "not a whole number", "0..1023"}},
      {"multi-gpu --devices -1,0", {"--devices -1", "0..1023"}},
      {"multi-gpu --device 0,1", {"--device 0,1", "one GPU index", "--devices A,B"}},
      {"multi-gpu --fence sys", {"--fence sys", "rel-acq-system"}},
      {"multi-gpu --fence system,device,none", {"--fence", "two (producer,consumer)"}},
      {"multi-gpu --fence system,device", {"host-flag", "acquire", "--part peer-flag"}},
      {"multi-gpu --iterations 0", {"--iterations 0", "1..200000"}},
      {"multi-gpu --iterations 200001", {"--iterations 200001", "200000"}},
      {"multi-gpu --blocks 0", {"--blocks 0", "1..4096"}},
      {"multi-gpu --phases 1", {"--phases 1", "2..10000"}},
      {"multi-gpu --mib 0", {"--mib 0", "1..1024"}},
      {"multi-gpu --mib 4096", {"--mib 4096", "1..1024"}},
      {"multi-gpu --blocks lots", {"--blocks lots", "not a whole number", "1..4096"}},
      {"multi-gpu --deadline-ms 0", {"--deadline-ms 0", "1..10000"}},
      {"multi-gpu --part peer_flag", {"--part", "peer_flag", "peer-flag"}},
      {"multi-gpu --part host-flag --mib 16", {"--mib", "all-reduce"}},
      {"multi-gpu --part barrier --fence none", {"--fence", "host-flag", "peer-flag"}},
      {"multi-gpu --part all-reduce --blocks 4", {"--blocks", "barrier"}},
      {"multi-gpu --backend model --bench --iterations 10", {"--iterations", "--bench"}},
      {"multi-gpu --backend model --bench --part barrier", {"--part barrier", "--bench"}},
      {"multi-gpu --part barrier --blocks 4096 --phases 10000", {"2^28"}},
  };
  for (const auto& c : cases) t::expect_usage_error(c);
}

TEST(MultiGpuCli, ABarrierGridPastCoResidencyIsRefused) {
  const t::CliResult r = t::run_cli("multi-gpu --backend model --part barrier --blocks 2000");
  EXPECT_EQ(r.exit_code, 2) << t::shown(r);
  for (const char* s : {"--blocks 2000", "1056"}) EXPECT_TRUE(t::contains(r.err, s)) << s << "\n" << t::shown(r);
}

TEST(MultiGpuCli, ModelRunShowsEveryPartsModel) {
  const auto doc = t::valid_document("multi-gpu --backend model --json", 0);
  EXPECT_EQ(t::section_ids(doc), (std::vector<std::string>{"overview", "setup", "host-flag", "peer-flag", "barrier", "all-reduce"}));
  EXPECT_EQ(t::failed_checks(doc), std::vector<std::string>{});
  const auto& secs = doc["report"]["sections"];
  EXPECT_EQ(secs["setup"]["facts"]["nccl-nvls-enable"]["value"], "0");
  EXPECT_TRUE(secs["barrier"]["checks"]["protocol-model"]["passed"].get<bool>());
  EXPECT_EQ(secs["barrier"]["facts"]["early-cross-gpu"]["value"].get<int>(), 0);
  EXPECT_GT(secs["barrier"]["facts"]["early-own-gpu"]["value"].get<int>(), 0);
  // The model says which rows forbid a stale read: across GPUs, only .sys on both sides.
  const auto& peer = secs["peer-flag"]["tables"]["outcomes"]["rows"];
  ASSERT_EQ(peer.size(), 8u);
  int forbidden = 0;
  for (const auto& row : peer) forbidden += row["verdict"] == "forbidden";
  EXPECT_EQ(forbidden, 3);
  // No GPU, no counts: no check on them.
  EXPECT_FALSE(secs["peer-flag"]["checks"].contains("no-stale-read"));
  EXPECT_TRUE(doc["report"]["waived"].empty());
}

TEST(MultiGpuCli, FenceAndDevicesChooseTheRows) {
  const auto doc = t::valid_document("multi-gpu --backend model --part peer-flag --fence system,rel-acq-system --json");
  const auto& rows = doc["report"]["sections"]["peer-flag"]["tables"]["outcomes"]["rows"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["producer"], "system");
  EXPECT_EQ(rows[0]["consumer"], "rel-acq-system");
  EXPECT_EQ(rows[0]["verdict"], "forbidden");
  const auto devs = t::valid_document("multi-gpu --backend model --part all-reduce --devices 3,1 --mib 1 --json");
  EXPECT_EQ(devs["report"]["sections"]["setup"]["facts"]["devices"]["value"], "3,1");
  EXPECT_EQ(devs["report"]["sections"]["all-reduce"]["facts"]["elements"]["value"].get<int>(), 262144);
}

TEST(MultiGpuCli, BenchOnTheModelHasBothSweepsWaitingForAGpu) {
  const auto doc = t::valid_document("multi-gpu --backend model --bench --json");
  EXPECT_EQ(t::section_ids(doc), (std::vector<std::string>{"setup", "bench", "bench-all-reduce"}));
  const auto& bench = doc["report"]["sections"]["bench"];
  EXPECT_TRUE(bench["tables"].contains("median"));
  EXPECT_TRUE(bench["tables"].contains("vs-nccl"));
  EXPECT_EQ(bench["tables"]["median"]["rows"].size(), 3u);
  EXPECT_EQ(doc["report"]["sections"]["bench-all-reduce"]["tables"]["median"]["rows"].size(), 2u);
}

TEST(MultiGpuCli, TextFitsEightyColumns) {
  for (const char* args :
       {"multi-gpu --backend model --color never", "multi-gpu --backend model --bench --color never",
        "multi-gpu --backend model --part host-flag --fence device --color never",
        "multi-gpu --backend model --part peer-flag --fence system,device --color never",
        "multi-gpu --backend model --part barrier --phases 32 --color never",
        "multi-gpu --backend model --part all-reduce --mib 256 --color never"}) {
    // Off a terminal the text folds to $COLUMNS (a pipe alone has no width).
    const t::CliResult r = t::run_shell("COLUMNS=80 '" + t::binary_path() + "' " + args);
    ASSERT_EQ(r.exit_code, 0) << t::shown(r);
    EXPECT_EQ(test_support::wider_lines(r.out), std::vector<std::string>{}) << args;
  }
}

}  // namespace
}  // namespace cudasync::multi_gpu
