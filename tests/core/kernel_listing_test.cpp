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

TEST(KernelListing, MemoryAccessesGoIntoTheOrderingOnly) {
  // M / Q records: an atomic or a strong access between the barriers and fences, in program order.
  const KernelListing l = parse_kernel_listing(
      "S arch sm_90\nS fn _Z1fv\nM STG.E.STRONG.SYS desc[UR4][R2.64], R5\nS MEMBAR.SC.GPU\n"
      "M ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R5\nP arch sm_90\nP fn _Z1fv\n"
      "Q st.volatile.global.u32 [%rd2], %r1\nP membar.gl\nQ fn not_a_function\n");
  ASSERT_EQ(l.sass.size(), 1u);
  EXPECT_EQ(l.sass[0].instructions, (std::vector<std::string>{"MEMBAR.SC.GPU"})) << "barriers and fences only";
  EXPECT_EQ(l.sass[0].ordering, (std::vector<std::string>{"STG.E.STRONG.SYS desc[UR4][R2.64], R5", "MEMBAR.SC.GPU",
                                                          "ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R5"}));
  ASSERT_EQ(l.ptx.size(), 1u) << "a Q line never starts a function";
  EXPECT_EQ(l.ptx[0].instructions, (std::vector<std::string>{"membar.gl"}));
  EXPECT_EQ(l.ptx[0].ordering,
            (std::vector<std::string>{"st.volatile.global.u32 [%rd2], %r1", "membar.gl", "fn not_a_function"}));
}

TEST(KernelListing, WarpExchangesGoIntoTheWarpListOnly) {
  // W records: SHFL, VOTE, MATCH, REDUX of the SASS function before them; never a barrier or an access.
  const KernelListing l = parse_kernel_listing(
      "W SHFL.DOWN PT, R1, R2, R3, R4\nS arch sm_90\nS fn _Z1fv\nW SHFL.DOWN PT, R5, R3, R8, R9\n"
      "S WARPSYNC.ALL\nW @P0 SHFL.DOWN PT, R4, R2, R8, R9\nS fn _Z1gv\nW REDUX.SUM UR4, R2\n");
  ASSERT_EQ(l.sass.size(), 2u) << "a W line never starts a function";
  EXPECT_EQ(l.sass[0].warp, (std::vector<std::string>{"SHFL.DOWN PT, R5, R3, R8, R9", "@P0 SHFL.DOWN PT, R4, R2, R8, R9"}));
  EXPECT_EQ(l.sass[0].instructions, (std::vector<std::string>{"WARPSYNC.ALL"}));
  EXPECT_EQ(l.sass[0].ordering, (std::vector<std::string>{"WARPSYNC.ALL"}));
  EXPECT_EQ(opcode_counts(l.sass[0].warp), (std::vector<std::pair<std::string, int>>{{"SHFL.DOWN", 2}}));
  EXPECT_EQ(l.sass[1].warp, (std::vector<std::string>{"REDUX.SUM UR4, R2"}));
  EXPECT_TRUE(l.ptx.empty());
}

TEST(KernelListing, SassArchOfARun) {
  const KernelListing l = parse_kernel_listing("S arch sm_75\nS fn _Z1fv\nS arch sm_90\nS fn _Z1fv\nS arch sm_80\n");
  EXPECT_EQ(listing_sass_arch(l, 75), "sm_75");
  EXPECT_EQ(listing_sass_arch(l, 86), "sm_90") << "not in the build: the newest it has";
  EXPECT_EQ(listing_sass_arch(l, 0), "sm_90") << "no GPU: the newest";
  EXPECT_EQ(listing_sass_arch(KernelListing{}, 90), "");
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
    EXPECT_NE(l.reason().find("CUDA build"), std::string::npos) << l.reason();
    EXPECT_NE(l.why.zh.find("CUDA"), std::string::npos) << l.why.zh;
    return;
  }
  if (!l.available) {
    EXPECT_NE(l.reason().find("cuobjdump"), std::string::npos) << l.reason();
    EXPECT_NE(l.why.zh.find("cuobjdump"), std::string::npos) << l.why.zh;
    GTEST_SKIP() << l.reason();
  }
  bool found = false;
  for (const auto& k : l.sass) found = found || short_kernel_name(k.function) == "groups_kernel";
  EXPECT_TRUE(found) << "the named-barriers kernels are missing from the listing";
  EXPECT_FALSE(l.ptx.empty());
}

TEST(KernelListing, DistinctInstructionsKeepFirstOrderAndCountRepeats) {
  EXPECT_EQ(distinct_instructions({}), "(none)");
  EXPECT_EQ(distinct_instructions({"MEMBAR.ALL.GPU"}), "MEMBAR.ALL.GPU");
  EXPECT_EQ(distinct_instructions({"BAR.SYNC 0x1", "MEMBAR.ALL.GPU", "BAR.SYNC 0x1", "BAR.SYNC 0x1"}),
            "BAR.SYNC 0x1 (x3); MEMBAR.ALL.GPU");
}

TEST(KernelListing, FindKernelByLessonNamespaceArchAndShortName) {
  const KernelListing l = parse_kernel_listing(
      "S arch sm_90\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_113groups_kernelENS1_10GroupsArgsEPx\nS BAR.SYNC R11, R11\n"
      "S fn _ZN8cudasync11threadfence12_GLOBAL__N_113groups_kernelEv\nS MEMBAR.ALL.GPU\n"
      "S arch sm_80\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_113groups_kernelENS1_10GroupsArgsEPx\nS BAR.SYNC 0x1\n");
  const KernelCode* k = find_kernel(l.sass, "sm_90", "named_barriers", "groups_kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->instructions, (std::vector<std::string>{"BAR.SYNC R11, R11"}));
  ASSERT_NE(find_kernel(l.sass, "sm_80", "named_barriers", "groups_kernel"), nullptr);
  EXPECT_EQ(find_kernel(l.sass, "sm_80", "named_barriers", "groups_kernel")->instructions.front(), "BAR.SYNC 0x1");
  EXPECT_EQ(find_kernel(l.sass, "sm_90", "threadfence", "groups_kernel")->instructions.front(), "MEMBAR.ALL.GPU");
  EXPECT_EQ(find_kernel(l.sass, "sm_75", "named_barriers", "groups_kernel"), nullptr);
  EXPECT_EQ(find_kernel(l.sass, "sm_90", "lock", "groups_kernel"), nullptr);
  EXPECT_EQ(find_kernel(l.sass, "sm_90", "named_barriers", "pc_kernel"), nullptr);
}

TEST(KernelListing, OpcodesSkipThePredicateGuard) {
  EXPECT_EQ(opcode_of("@P0 SYNCS.ARRIVE.TRANS64.A1T0 R4"), "SYNCS.ARRIVE.TRANS64.A1T0");
  EXPECT_EQ(opcode_of("BAR.SYNC.DEFER_BLOCKING 0x1"), "BAR.SYNC.DEFER_BLOCKING");
  EXPECT_EQ(opcode_of("NANOSLEEP"), "NANOSLEEP");
  const std::vector<std::string> ins = {"@P0 SYNCS.ARRIVE.TRANS64.A1T0 R4", "SYNCS.PHASECHK.TRANS64.TRYWAIT P0",
                                        "@!P0 SYNCS.PHASECHK.TRANS64.TRYWAIT P0", "NANOSLEEP 0x20"};
  EXPECT_TRUE(has_opcode(ins, "SYNCS.ARRIVE"));
  EXPECT_TRUE(has_opcode(ins, "NANOSLEEP"));
  EXPECT_FALSE(has_opcode(ins, "BAR.SYNC"));
  EXPECT_FALSE(has_opcode(ins, "P0")) << "operands are not opcodes";
  EXPECT_EQ(opcode_counts(ins), (std::vector<std::pair<std::string, int>>{{"SYNCS.ARRIVE.TRANS64.A1T0", 1},
                                                                           {"SYNCS.PHASECHK.TRANS64.TRYWAIT", 2},
                                                                           {"NANOSLEEP", 1}}));
  EXPECT_TRUE(opcode_counts({}).empty());
}

}  // namespace
}  // namespace cudasync
