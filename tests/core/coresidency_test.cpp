// The co-residency numbers and the refusal a software grid barrier owes the user: both numbers,
// where they come from, and why such a grid would deadlock.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"

#include <string>

#include "core/coresidency.hpp"

namespace cudasync {
namespace {

using cudasync::test::contains;

Coresidency h100_at_256() {
  Coresidency c;
  c.blocks_per_sm = 8;
  c.sm_count = 132;
  c.threads = 256;
  c.source = "occupancy API, GPU 0";
  return c;
}

TEST(Coresidency, LimitAndText) {
  const Coresidency c = h100_at_256();
  EXPECT_EQ(c.limit(), 1056);
  EXPECT_EQ(c.text(), "8 blocks of 256 threads per SM x 132 SMs = 1056 (occupancy API, GPU 0)");
  Coresidency one = c;
  one.blocks_per_sm = 1;
  one.source.clear();
  EXPECT_EQ(one.text(), "1 block of 256 threads per SM x 132 SMs = 132");
}

TEST(Coresidency, NoRefusalUpToTheLimit) {
  const Coresidency c = h100_at_256();
  for (int blocks : {1, 132, 1055, 1056}) EXPECT_FALSE(coresidency_refusal(blocks, c, "--blocks", "").has_value()) << blocks;
}

TEST(Coresidency, RefusalGivesBothNumbersAndTheDeadlock) {
  const auto m = coresidency_refusal(5000, h100_at_256(), "--blocks", "--allow-unsafe to run it anyway");
  ASSERT_TRUE(m.has_value());
  for (const char* s : {"--blocks 5000", "1056", "8 blocks of 256 threads per SM x 132 SMs", "occupancy API",
                        "deadlock", "3944", "cannot start until a resident block exits", "--blocks 1..1056",
                        "--allow-unsafe to run it anyway"})
    EXPECT_TRUE(contains(*m, s)) << "missing '" << s << "' in: " << *m;
  const auto plain = coresidency_refusal(1057, h100_at_256(), "--grid", "");
  ASSERT_TRUE(plain.has_value());
  EXPECT_TRUE(contains(*plain, "--grid 1057")) << *plain;
  EXPECT_FALSE(contains(*plain, ", or ")) << *plain;
}

TEST(Coresidency, ClustersCountWholeClusters) {
  // A launch in clusters of 8 fits whole clusters only: what cudaOccupancyMaxActiveClusters said on
  // a 132-SM Hopper at 256 threads, where 1056 blocks fit one by one.
  Coresidency c = h100_at_256();
  c.cluster_size = 8;
  c.clusters = 124;
  c.source = "cudaOccupancyMaxActiveClusters, GPU 0";
  EXPECT_EQ(c.limit(), 992);
  EXPECT_EQ(c.text(), "124 clusters of 8 blocks of 256 threads = 992 (cudaOccupancyMaxActiveClusters, GPU 0)");
  EXPECT_FALSE(coresidency_refusal(992, c, "--blocks", "").has_value());
  const auto m = coresidency_refusal(1000, c, "--blocks", "");
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(contains(*m, "124 clusters of 8 blocks")) << *m;
  EXPECT_TRUE(contains(*m, "--blocks 1..992")) << *m;
  // Assumed: whole clusters of the blocks that fit.
  const Coresidency a = assumed_cluster_coresidency(h100_at_256(), 8, "assumed");
  EXPECT_EQ(a.clusters, 132);
  EXPECT_EQ(a.limit(), 1056);
  EXPECT_EQ(assumed_cluster_coresidency(h100_at_256(), 5, "assumed").limit(), 1055);
  EXPECT_EQ(a.source, "assumed");
}

TEST(Coresidency, AssumedFromHardwareLimits) {
  // An H100: 32 blocks, 2048 threads and 64K registers per SM, 132 SMs.
  EXPECT_EQ(assumed_coresidency(256, 32, kH100Limits, "x").blocks_per_sm, 8);
  EXPECT_EQ(assumed_coresidency(1024, 32, kH100Limits, "x").blocks_per_sm, 2);
  EXPECT_EQ(assumed_coresidency(128, 32, kH100Limits, "x").blocks_per_sm, 16);
  EXPECT_EQ(assumed_coresidency(32, 32, kH100Limits, "x").blocks_per_sm, 32);   // the block limit
  EXPECT_EQ(assumed_coresidency(1, 32, kH100Limits, "x").blocks_per_sm, 32);    // a block is at least one warp
  EXPECT_EQ(assumed_coresidency(256, 64, kH100Limits, "x").blocks_per_sm, 4);   // registers limit
  EXPECT_EQ(assumed_coresidency(100, 32, kH100Limits, "x").blocks_per_sm, 16);  // 4 warps each
  const Coresidency c = assumed_coresidency(256, 32, kH100Limits, "assumed");
  EXPECT_EQ(c.limit(), 1056);
  EXPECT_EQ(c.source, "assumed");
}

}  // namespace
}  // namespace cudasync
