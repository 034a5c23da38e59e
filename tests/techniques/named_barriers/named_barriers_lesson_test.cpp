// The lesson's own rules on its options (usage_error), the inputs a run resolves, and when a run
// starts the misuse children: plain functions, no binary.
#include <gtest/gtest.h>

#include <climits>

#include "core/errors.hpp"
#include "core/parts/attach.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {
namespace {

bool has(const std::optional<std::string>& e, const std::string& s) { return e && e->find(s) != std::string::npos; }

TEST(NamedBarriersLesson, DefaultsAreValid) { EXPECT_EQ(usage_error(Options{}), std::nullopt); }

// Found by fuzzing (UBSan: signed overflow in the sum of the two counts): two multiples of 32 that
// each pass alone must not add up, in an int, to a small or negative block.
TEST(NamedBarriersLesson, BlockSizeIsAddedIn64Bits) {
  Options groups;
  groups.groups = {1073741824, 1073741824};
  const auto g = usage_error(groups);
  ASSERT_TRUE(g.has_value()) << "2 x 2^30 threads wrapped around and passed";
  EXPECT_TRUE(has(g, "--groups 1073741824,1073741824")) << *g;
  EXPECT_TRUE(has(g, "2147483648 threads")) << *g;
  EXPECT_TRUE(has(g, "1024")) << *g;
  EXPECT_TRUE(has(g, "accepted")) << *g;

  Options pc;
  pc.producers = 1073741824;
  pc.consumers = 1073741824;
  const auto p = usage_error(pc);
  ASSERT_TRUE(p.has_value()) << "2 x 2^30 producers and consumers wrapped around and passed";
  EXPECT_TRUE(has(p, "--producers 1073741824 --consumers 1073741824")) << *p;
  EXPECT_TRUE(has(p, "2147483648 threads")) << *p;
  EXPECT_TRUE(has(p, "1024")) << *p;

  Options wraps_to_small;  // 2^31 - 32 + 64 = 2^31 + 32: wraps to a negative int
  wraps_to_small.groups = {2147483616, 64};
  EXPECT_TRUE(has(usage_error(wraps_to_small), "2147483680 threads"));
  Options just_fits;
  just_fits.producers = 992;
  just_fits.consumers = 32;
  EXPECT_EQ(usage_error(just_fits), std::nullopt);
  just_fits.consumers = 64;
  EXPECT_TRUE(has(usage_error(just_fits), "1056 threads"));
}

TEST(NamedBarriersLesson, CountsMustBeWholeWarps) {
  Options o;
  o.producers = 40;
  EXPECT_TRUE(has(usage_error(o), "--part misuse --count 40")) << "a small count points to the misuse part";
  o.producers = INT_MAX;
  const auto e = usage_error(o);
  EXPECT_TRUE(has(e, "--producers 2147483647 is not a multiple of 32"));
  EXPECT_FALSE(has(e, "--count")) << "--count takes 1..1024 only: " << *e;
  o.producers = INT_MIN;
  EXPECT_TRUE(has(usage_error(o), "at least one warp"));
}

TEST(NamedBarriersLesson, BarrierIdsAndMisuseCases) {
  Options o;
  o.barrier_ids = {1, 2, 3};
  EXPECT_TRUE(has(usage_error(o), "two barrier ids 0..15"));
  o.barrier_ids = {0, 15};
  EXPECT_EQ(usage_error(o), std::nullopt);
  o.arrive = INT_MAX;  // (arrive + 31) / 32 must never be computed for it
  EXPECT_TRUE(has(usage_error(o), "--arrive 2147483647"));
  o.arrive = 992;
  o.count = 96;
  EXPECT_TRUE(has(usage_error(o), "rescue"));
}

TEST(NamedBarriersLesson, ResolveFollowsTheOptions) {
  Options o;
  o.barrier_ids = {5, 6};
  o.groups = {32, 992};
  o.phases = 3;
  o.count = 64;
  const Inputs in = resolve(o, 7);
  EXPECT_EQ(in.groups.block_threads(), 1024);
  EXPECT_EQ(in.groups.work_cycles[1], 2000 * 5);
  EXPECT_EQ(in.pc.ids[1], 6);
  EXPECT_EQ(in.red_id, 5);
  EXPECT_EQ(in.pc.input.size(), 4u * 32u);
  ASSERT_EQ(in.misuse.size(), 1u) << "--count asks for one case";
  EXPECT_EQ(in.misuse[0].count, 64);
  EXPECT_EQ(in.misuse[0].arrive_threads, 64);
  EXPECT_EQ(resolve(Options{}, 1).misuse.size(), 2u) << "by default the two cases: 48 and 128 with 64 arriving";
  EXPECT_EQ(resolve(Options{}, 1).predicates.size(), kDefaultPredicates.size());
}

TEST(NamedBarriersLesson, ARunRefusesWhatCoreDidNotValidate) {
  // A child (--child misuse) skips core's validation: its Run checks the options itself.
  Options o;
  o.producers = 1073741824;
  o.consumers = 1073741824;
  parts::Selection child;
  child.child = "misuse";
  const RunContext ctx;
  EXPECT_THROW(named_barriers::Run(o, ctx, child), UsageError);
  EXPECT_NO_THROW(named_barriers::Run(Options{}, ctx, child));
}

TEST(NamedBarriersLesson, OnlyAGpuParentStartsTheMisuseChildren) {
  RunContext gpu;
  gpu.gpu = true;
  parts::Selection all;
  all.ids = {"bar-sync", "misuse"};
  EXPECT_TRUE(starts_misuse_children(all, gpu));
  EXPECT_FALSE(starts_misuse_children(all, RunContext{})) << "the model runs no child";
  parts::Selection child = all;
  child.child = "misuse";
  EXPECT_FALSE(starts_misuse_children(child, gpu)) << "a child must not start children of its own";
  parts::Selection other;
  other.ids = {"bar-sync"};
  EXPECT_FALSE(starts_misuse_children(other, gpu));
}

TEST(NamedBarriersLesson, TheTableDeclaresWhatEachPartReads) {
  const auto& l = lesson();
  EXPECT_EQ(l.id, "named-barriers");
  std::vector<std::string> ids;
  for (const auto& p : parts::parts_of(l)) ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"bar-sync", "early-stamp", "producer-consumer", "bar-red", "cuda-barrier", "listing",
                                           "misuse", "cost"}));
  for (const auto& p : parts::parts_of(l))
    if (p.id == "misuse") {
      EXPECT_TRUE(p.child);
      EXPECT_EQ(p.reads, (std::vector<std::string>{"--barrier-ids", "--count", "--arrive"}));
    }
  ASSERT_EQ(l.children.size(), 1u);
  EXPECT_EQ(l.children[0].id, "misuse");
}

}  // namespace
}  // namespace cudasync::named_barriers
