// The embedded PTX/SASS listing: its record format, the demangled short names lessons select
// kernels by, and, in a CUDA build made with cuobjdump, that it really holds this tool's kernels.
#include <gtest/gtest.h>

#include "core/kernel_listing.hpp"
#include "core/version.hpp"

namespace cudasync {
namespace {

TEST(KernelListing, ParsesRecordsPerArchAndFunction) {
  const KernelListing l = parse_kernel_listing(
      "S arch sm_80\nS fn _Z1fv\nS BAR.SYNC.DEFER_BLOCKING 0x0\nS fn _Z1gv\nS arch sm_90\nS fn _Z1fv\n"
      "S BAR.ARV R3, R3\nS BAR.SYNC.DEFER_BLOCKING R3, R3\nP arch sm_90\nP fn _Z1fv\nP bar.arrive %r1, %r7\n"
      "junk line\nX fn nothing\n");
  ASSERT_EQ(l.sass.size(), 3u);
  EXPECT_EQ(l.sass[0].arch, "sm_80");
  EXPECT_EQ(l.sass[0].function, "_Z1fv");
  EXPECT_EQ(l.sass[0].instructions, (std::vector<std::string>{"BAR.SYNC.DEFER_BLOCKING 0x0"}));
  EXPECT_TRUE(l.sass[1].instructions.empty());
  EXPECT_EQ(l.sass[2].arch, "sm_90");
  EXPECT_EQ(l.sass[2].instructions.size(), 2u);
  ASSERT_EQ(l.ptx.size(), 1u);
  EXPECT_EQ(l.ptx[0].instructions, (std::vector<std::string>{"bar.arrive %r1, %r7"}));
  EXPECT_EQ(l.sass_archs(), (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(l.ptx_archs(), (std::vector<std::string>{"sm_90"}));
}

TEST(KernelListing, ShortNamesDropNamespacesAndParameters) {
  // cudasync::named_barriers::(anonymous namespace)::groups_kernel(GroupsArgs, long long*)
  EXPECT_EQ(short_kernel_name("_ZN8cudasync14named_barriers12_GLOBAL__N_113groups_kernelENS1_10GroupsArgsEPx"),
            "groups_kernel");
  // template: cost_kernel<2>(int, long long*)
  EXPECT_EQ(short_kernel_name("_ZN8cudasync14named_barriers12_GLOBAL__N_111cost_kernelILi2EEEviPx"), "cost_kernel<2>");
  EXPECT_EQ(short_kernel_name("plain_c_name"), "plain_c_name");
}

TEST(KernelListing, ThisBuildSaysWhatItHas) {
  const KernelListing& l = kernel_listing();
  if (!kCudaBuiltIn) {
    EXPECT_FALSE(l.available);
    EXPECT_NE(l.reason.find("CUDA build"), std::string::npos) << l.reason;
    return;
  }
  if (!l.available) {
    EXPECT_NE(l.reason.find("cuobjdump"), std::string::npos) << l.reason;
    GTEST_SKIP() << l.reason;
  }
  bool found = false;
  for (const auto& k : l.sass) found = found || short_kernel_name(k.function) == "groups_kernel";
  EXPECT_TRUE(found) << "the named-barriers kernels are missing from the listing";
  EXPECT_FALSE(l.ptx.empty());
}

}  // namespace
}  // namespace cudasync
