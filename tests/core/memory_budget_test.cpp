// The host-memory budget (core/memory_budget.hpp): a run that would allocate more than
// --max-memory stops first with a usage error naming the estimate, the bound and the option.
#include <gtest/gtest.h>

#include <string>

#include "core/checked.hpp"
#include "core/errors.hpp"
#include "core/memory_budget.hpp"

namespace cudasync {
namespace {

std::string message_of(const RunContext& ctx, std::optional<std::uint64_t> bytes, const char* what) {
  try {
    require_host_memory(ctx, bytes, what);
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(MemoryBudget, DefaultBoundIsOneGiB) {
  RunContext ctx;
  EXPECT_EQ(ctx.max_memory, std::uint64_t{1} << 30);
  EXPECT_EQ(message_of(ctx, std::uint64_t{1} << 30, "--n"), "");  // the bound itself is allowed
  EXPECT_EQ(message_of(ctx, 0, "--n"), "");
}

TEST(MemoryBudget, AboveTheBoundNamesEstimateBoundAndOption) {
  RunContext ctx;
  const auto bytes = checked_product({1073741824, 4});  // cg-reduce --n 1073741824 floats
  const std::string m = message_of(ctx, bytes, "--n 1073741824: the input array");
  EXPECT_NE(m.find("--n 1073741824: the input array"), std::string::npos) << m;
  EXPECT_NE(m.find("4.0 GiB (4,294,967,296 bytes)"), std::string::npos) << m;
  EXPECT_NE(m.find("1.0 GiB (1,073,741,824 bytes)"), std::string::npos) << m;
  EXPECT_NE(m.find("--max-memory 4G"), std::string::npos) << m;
  EXPECT_NE(m.find("accepted:"), std::string::npos) << m;
}

TEST(MemoryBudget, TheBoundFollowsMaxMemory) {
  RunContext ctx;
  ctx.max_memory = std::uint64_t{8} << 30;
  EXPECT_EQ(message_of(ctx, std::uint64_t{4} << 30, "--n"), "");
  ctx.max_memory = std::uint64_t{1} << 20;
  const std::string m = message_of(ctx, (std::uint64_t{1} << 20) + 1, "--n");
  EXPECT_NE(m.find("--max-memory 2M"), std::string::npos) << m;
}

TEST(MemoryBudget, AnOverflowedSizeIsRefusedNotWrapped) {
  RunContext ctx;
  const auto bytes = checked_product({std::uint64_t{1} << 40, std::uint64_t{1} << 40});
  EXPECT_FALSE(bytes.has_value());
  const std::string m = message_of(ctx, bytes, "--n times --blocks");
  EXPECT_NE(m.find("overflows"), std::string::npos) << m;
  EXPECT_NE(m.find("--max-memory"), std::string::npos) << m;
}

TEST(MemoryBudget, DeviceCheckIsIdleOnTheModel) {
  RunContext ctx;  // gpu false
  EXPECT_NO_THROW(require_device_memory(ctx, std::nullopt, "--n"));
  EXPECT_NO_THROW(require_device_memory(ctx, std::uint64_t{1} << 60, "--n"));
}

}  // namespace
}  // namespace cudasync
