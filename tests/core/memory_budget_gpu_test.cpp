// The GPU side of the memory budget: require_device_memory against the device's free memory.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/memory_budget.hpp"
#include "support/gpu_available.hpp"

namespace cudasync {
namespace {

TEST(MemoryBudgetGpu, RefusesMoreThanTheGpuHasFree) {
  CUDASYNC_REQUIRE_GPU();
  const GpuProbe probe = probe_gpus();
  RunContext ctx;
  ctx.gpu = true;
  ctx.device = probe.devices.front();
  const auto free = free_device_memory(ctx.device->index);
  ASSERT_TRUE(free.has_value());
  EXPECT_GT(*free, 0u);
  EXPECT_NO_THROW(require_device_memory(ctx, std::uint64_t{1} << 20, "--n"));
  try {
    require_device_memory(ctx, *free + (std::uint64_t{1} << 40), "--n 1099511627776: the input array");
    FAIL() << "1 TiB past the free memory was accepted";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--n 1099511627776"), std::string::npos) << m;
    EXPECT_NE(m.find("of GPU memory"), std::string::npos) << m;
    EXPECT_NE(m.find("free"), std::string::npos) << m;
  }
  EXPECT_THROW(require_device_memory(ctx, std::nullopt, "--n"), UsageError);  // an overflowed size
}

}  // namespace
}  // namespace cudasync
