// The binary on a real GPU: the default run uses it, every table agrees with the model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/gpu_available.hpp"
#include "support/run_cli.hpp"

namespace cudasync::test {
namespace {

TEST(CliGpu, WarpPrimitivesOnTheGpuPassesEveryCheck) {
  CUDASYNC_REQUIRE_GPU();
  const CliResult r = run_cli("warp-primitives --backend gpu --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["backend"]["used"], "gpu");
  EXPECT_TRUE(doc["device"].is_object());
  EXPECT_EQ(doc["report"]["summary"]["checks_failed"], 0);
  int agreement = 0;  // the agreement checks, by id: gpu-agrees, <variant>-gpu-agrees, shfl-*-agrees
  for (const auto& s : doc["report"]["sections"])
    for (const auto& [id, c] : s["checks"].items())
      if (id.size() >= 6 && id.compare(id.size() - 6, 6, "agrees") == 0) ++agreement;
  // 4 shuffles + 6 votes + (3 reduces on 8.0+) + 2 syncwarp variants + 2 traces
  EXPECT_GE(agreement, 14);
  for (const auto& m : doc["report"]["sections"]["cost"]["measurements"])
    if (m["needs_gpu"].get<bool>()) ADD_FAILURE() << "a GPU run left a measurement unmeasured: " << m["id"];
}

TEST(CliGpu, AutoBackendChoosesTheGpu) {
  CUDASYNC_REQUIRE_GPU();
  const CliResult r = run_cli("warp-primitives --part ballot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("backend: gpu"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("[PASS] GPU agrees with the reference model: ballot"), std::string::npos) << r.out;
  const CliResult j = run_cli("warp-primitives --part ballot --json");
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["report"]["sections"]["ballot"]["checks"]["gpu-agrees"]["passed"], true) << j.out;
}

TEST(CliGpu, DeviceOutOfRangeIsAUsageError) {
  CUDASYNC_REQUIRE_GPU();
  const CliResult r = run_cli("warp-primitives --device 99");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--device 99"), std::string::npos) << r.err;
}

TEST(CliGpu, DevicesListsComputeCapabilityAndSms) {
  CUDASYNC_REQUIRE_GPU();
  const CliResult r = run_cli("devices --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("compute capability"), std::string::npos);
  EXPECT_NE(r.out.find("max resident blocks per SM"), std::string::npos);
}

}  // namespace
}  // namespace cudasync::test
