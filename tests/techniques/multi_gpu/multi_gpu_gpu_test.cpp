// multi-gpu on one real GPU (label gpu): host-flag runs for real, and with exactly one GPU the
// two-GPU parts are waived with the reason (exit 77) and --bench says why each cell did not run.
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>

#include "core/device_info.hpp"
#include "core/errors.hpp"
#include "core/version.hpp"
#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"
#include "techniques/multi_gpu/lesson.hpp"
#include "techniques/multi_gpu/multi_gpu_test_support.hpp"

namespace cudasync::multi_gpu {
namespace {

using test::contains;
using test::failed_checks;
using test::valid_document;

constexpr std::uint64_t kSecond = 1'000'000'000ull;

std::size_t gpus() { return probe_gpus().devices.size(); }

// NCCL is loaded with dlopen when first asked for (the binary does not link it): the library loads
// and is the version of the nccl.h this build saw. Needs no GPU, only a CUDA build.
TEST(MultiGpuGpu, NcclLoadsAndIsTheVersionOfItsHeader) {
  if (!kNcclBuiltIn) GTEST_SKIP() << "NCCL is not built into this cudasync";
  int v = 0;
  try {
    v = gpu_nccl_version();
  } catch (const WaivedError& e) {
    FAIL() << e.what();
  }
  const std::string want = kNcclVersion;  // "2.28.9" -> 22809
  int major = 0, minor = 0, patch = 0;
  ASSERT_EQ(std::sscanf(want.c_str(), "%d.%d.%d", &major, &minor, &patch), 3) << want;
  EXPECT_EQ(v, major * 10000 + minor * 100 + patch) << want;
}

TEST(MultiGpuGpu, HostFlagWithSystemScopeReleaseNeverReadsStale) {
  CUDASYNC_REQUIRE_GPU();
  for (Fence f : {Fence::system, Fence::rel_acq_system}) {
    const FlagCounts c = gpu_host_flag({f, Fence::none, Consumer::host}, 0, 5000, kSecond);
    EXPECT_EQ(c.instances, 5000u);
    EXPECT_EQ(c.timed_out, 0u);
    EXPECT_EQ(c.stale, 0u);
    EXPECT_EQ(c.fresh, 5000u);
  }
}

TEST(MultiGpuGpu, HostFlagPartOnTheGpu) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = valid_document("multi-gpu --backend gpu --part host-flag --iterations 3000 --json", 0);
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  const auto& s = doc["report"]["sections"]["host-flag"];
  EXPECT_TRUE(s["checks"]["no-stale-read"]["passed"].get<bool>());
  EXPECT_TRUE(s["checks"]["no-timeout"]["passed"].get<bool>());
  const auto& rows = s["tables"]["outcomes"]["rows"];
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& r : rows) EXPECT_EQ(r["handoffs"].get<int>(), 3000) << r.dump();
}

TEST(MultiGpuGpu, OneGpuWaivesTheTwoGpuPartsWithTheReason) {
  CUDASYNC_REQUIRE_GPU();
  if (gpus() != 1) GTEST_SKIP() << gpus() << " GPUs here: the one-GPU waive path is not taken";
  // Every part asked for waived: exit 77, the reason in the document.
  const auto doc = valid_document("multi-gpu --part peer-flag,barrier,all-reduce --json", 77);
  for (const char* part : {"peer-flag", "barrier", "all-reduce"}) {
    const std::string reason = doc["report"]["waived"][part]["reason"].get<std::string>();
    EXPECT_TRUE(contains(reason, "needs two GPUs") && contains(reason, "this machine has 1 GPU")) << reason;
  }
  // The default run: host-flag runs, the others are waived, exit 0.
  const auto all = valid_document("multi-gpu --iterations 1000 --json", 0);
  EXPECT_TRUE(all["report"]["sections"].contains("host-flag"));
  EXPECT_EQ(all["report"]["waived"].size(), 3u);
  // --bench keeps its tables' shape: exit 0, every cell not run, with the reason.
  const auto bench = valid_document("multi-gpu --bench --json", 0);
  for (const char* sec : {"bench", "bench-all-reduce"}) {
    const auto& ms = bench["report"]["sections"][sec]["measurements"];
    ASSERT_FALSE(ms.empty()) << sec;
    for (const auto& m : ms) {
      EXPECT_FALSE(m["needs_gpu"].get<bool>()) << m.dump();  // waived on this GPU, not "needs a GPU"
      EXPECT_TRUE(contains(m["note"].get<std::string>(), "needs two GPUs")) << m.dump();
    }
  }
}

// The text fits 80 columns on a GPU too, where its tables hold counts and its waived parts say why.
TEST(MultiGpuGpu, TextFitsEightyColumnsOnTheGpu) {
  CUDASYNC_REQUIRE_GPU();
  const int two = gpus() >= 2 ? 0 : 77;
  const std::pair<const char*, int> runs[] = {
      {"multi-gpu --backend gpu --iterations 1000 --color never", 0},
      {"multi-gpu --backend gpu --part host-flag --fence device --iterations 1000 --color never", 0},
      {"multi-gpu --backend gpu --part peer-flag --fence none --iterations 1000 --color never", two},
      {"multi-gpu --backend gpu --part barrier --phases 8 --color never", two},
      {"multi-gpu --backend gpu --part all-reduce --mib 1 --color never", two},
  };
  for (const auto& [args, exit] : runs) {
    const test::CliResult r = test::run_shell(std::string("COLUMNS=80 '") + test::binary_path() + "' " + args);  // folds to $COLUMNS
    EXPECT_EQ(r.exit_code, exit) << test::shown(r);
    EXPECT_EQ(test_support::wider_lines(r.out), std::vector<std::string>{}) << args;
  }
}

}  // namespace
}  // namespace cudasync::multi_gpu
