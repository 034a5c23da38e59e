// The sections of threadfence judge GPU results: fed made-up GPU results, right ones must pass and
// wrong ones must fail with the row marked. (The real GPU runs are in the _gpu_test.)
#include <gtest/gtest.h>

#include <algorithm>

#include "techniques/threadfence/threadfence_sections.hpp"

namespace cudasync::threadfence {
namespace {

std::size_t failed(const report::Section& s) {
  return static_cast<std::size_t>(std::count_if(s.checks.begin(), s.checks.end(), [](const auto& c) { return !c.passed; }));
}
const report::Check* check_named(const report::Section& s, const std::string& part) {
  for (const auto& c : s.checks)
    if (c.name.find(part) != std::string::npos) return &c;
  return nullptr;
}
bool any_note(const report::Section& s, const std::string& part) {
  return std::any_of(s.notes.begin(), s.notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

LitmusCounts counts(std::uint64_t c00, std::uint64_t c01, std::uint64_t c10, std::uint64_t c11, std::uint64_t timed_out = 0) {
  LitmusCounts c;
  c.outcome[0] = c00;
  c.outcome[1] = c01;
  c.outcome[2] = c10;
  c.outcome[3] = c11;
  c.timed_out = timed_out;
  c.instances = c00 + c01 + c10 + c11 + timed_out;
  c.blocks = 1056;
  c.threads = 256;
  c.pairs_per_round = 135168;
  c.rounds = 2;
  c.launches = 1;
  c.pairs_checked = 135168;
  return c;
}

LitmusRow row(threadfence::Test t, Fence f, const LitmusCounts& c) {
  LitmusSpec s;
  s.test = t;
  s.fence[0] = s.fence[1] = f;
  LitmusRow r = make_row(s, 200000, 20000000);
  r.gpu = c;
  return r;
}

TEST(ThreadfenceSections, AllowedWeakOutcomesSeenPass) {
  const std::vector<LitmusRow> rows = {row(threadfence::Test::mp, Fence::none, counts(0, 0, 150000, 120336)),
                                       row(threadfence::Test::mp, Fence::device, counts(0, 0, 0, 270336)),
                                       row(threadfence::Test::sb, Fence::none, counts(5, 1000, 1000, 268331))};
  const report::Section s = litmus_section(rows, true);
  EXPECT_EQ(failed(s), 0u);
  ASSERT_NE(check_named(s, "no outcome the PTX memory model forbids"), nullptr);
  const auto& t = s.tables.front();
  const auto col = [&](const std::string& key) {
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].key == key) return c;
    return t.columns.size();
  };
  EXPECT_EQ(std::get<std::string>(t.rows[0][col("verdict")]), "allowed, seen");
  EXPECT_EQ(std::get<std::string>(t.rows[1][col("verdict")]), "forbidden, not seen");
  EXPECT_EQ(std::get<std::int64_t>(t.rows[0][col("r10")]), 150000);
  EXPECT_EQ(std::get<std::string>(t.rows[0][col("weak_per_million")]), "554865.1");
  EXPECT_EQ(std::get<std::string>(t.rows[2][col("weak_per_million")]), "18.5");
}

TEST(ThreadfenceSections, AForbiddenOutcomeSeenIsAFindingAndFails) {
  const std::vector<LitmusRow> rows = {row(threadfence::Test::mp, Fence::none, counts(0, 0, 10, 90)),
                                       row(threadfence::Test::sb, Fence::device, counts(3, 50, 50, 897))};
  const report::Section s = litmus_section(rows, true);
  EXPECT_EQ(failed(s), 1u);
  const report::Check* c = check_named(s, "no outcome the PTX memory model forbids");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_EQ(s.tables.front().marks[1], report::RowMark::mismatch);
  EXPECT_EQ(s.tables.front().marks[0], report::RowMark::none);
  EXPECT_TRUE(any_note(s, "FINDING: sb with fence device")) << "the finding names the configuration";
  EXPECT_TRUE(any_note(s, "r0=0 r1=0 3 times"));
}

TEST(ThreadfenceSections, AnUnexpectedTimeoutFailsAndAnExpectedOneDoesNot) {
  const report::Section bad = litmus_section({row(threadfence::Test::mp, Fence::none, counts(0, 0, 10, 80, 10))}, true);
  const report::Check* c = check_named(bad, "every wait ended before its deadline");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_NE(c->detail.find("10 of 100"), std::string::npos) << c->detail;

  LitmusRow plain_wait = row(threadfence::Test::mp, Fence::none, counts(0, 0, 0, 20, 80));
  plain_wait.spec.weak_wait = true;
  plain_wait.timeouts_expected = true;
  plain_wait.label = "wait with a plain load";
  const report::Section ok = volatile_section({plain_wait, row(threadfence::Test::sb, Fence::device, counts(0, 5, 5, 90))}, true);
  EXPECT_EQ(failed(ok), 0u);
  const auto& t = ok.tables.front();
  EXPECT_EQ(std::get<std::string>(t.rows[0].back()), "80 of 100 waits gave up");
}

TEST(ThreadfenceSections, ModelRowsHaveNoCounts) {
  LitmusSpec s;
  s.test = threadfence::Test::lb;
  const report::Section sec = litmus_section({make_row(s, 1000, 1)}, false);
  EXPECT_TRUE(sec.checks.empty());
  EXPECT_TRUE(std::holds_alternative<report::Undefined>(sec.tables.front().rows[0][2]));
  EXPECT_TRUE(any_note(sec, "counts need a GPU"));
}

TEST(ThreadfenceSections, ScopeRowsSayWhereTheSidesRan) {
  LitmusRow same = row(threadfence::Test::mp, Fence::none, counts(0, 0, 0, 100));
  same.spec.placement = Placement::same_block;
  same.gpu->pairs_same_sm = same.gpu->pairs_checked;
  LitmusRow two = row(threadfence::Test::mp, Fence::block, counts(0, 0, 40, 60));
  const report::Section s = scope_section({same, two}, true);
  EXPECT_EQ(failed(s), 0u) << "block fences in two blocks: the stale read is allowed";
  bool fact = false;
  for (const auto& f : s.facts) fact = fact || f.name == "pairs on one SM, one block";
  EXPECT_TRUE(fact);
}

LastBlockRun lb_run(int runs, std::uint64_t sum, int wrong) {
  LastBlockRun r;
  r.result.assign(static_cast<std::size_t>(runs), sum);
  r.counter.assign(static_cast<std::size_t>(runs), 0);
  r.last_block.assign(static_cast<std::size_t>(runs), 7);
  for (int i = 0; i < wrong; ++i) r.result[static_cast<std::size_t>(i)] = sum - 1;
  return r;
}

TEST(ThreadfenceSections, LastBlockJudgesTheCorrectGuardsOnly) {
  LastBlockSpec spec;
  spec.runs = 10;
  std::vector<LastBlockOutcome> runs = {{LastBlockVariant::syncthreads_or, lb_run(10, 99, 0)},
                                        {LastBlockVariant::shared_flag, lb_run(10, 99, 0)},
                                        {LastBlockVariant::no_fence, lb_run(10, 99, 3)},
                                        {LastBlockVariant::other_writer, lb_run(10, 99, 0)}};
  const report::Section good = last_block_section(spec, 99, runs, true);
  EXPECT_EQ(failed(good), 0u) << "a broken guard that went wrong is the lesson, not a failure";
  EXPECT_TRUE(any_note(good, "3 wrong of 10"));
  runs[1].gpu->result[4] = 98;
  runs[0].gpu->counter[2] = 1;
  const report::Section bad = last_block_section(spec, 99, runs, true);
  EXPECT_EQ(failed(bad), 2u);
  EXPECT_EQ(bad.tables.front().marks[1], report::RowMark::mismatch);
}

TEST(ThreadfenceSections, WorkQueueChecksEveryItemOnce) {
  QueueSpec spec;
  spec.blocks = 2;
  spec.cost_units = {5, 1, 1, 1};
  const auto make = [&](const Schedule& sch) {
    QueueRun r;
    r.processed_by = sch.item_block;
    r.times_processed.assign(4, 1);
    r.block_items = sch.block_items;
    for (auto u : sch.block_units) r.block_cycles.push_back(static_cast<long long>(u) * 2000);
    r.checksum = checksum_of_all(4);
    r.ns_per_cycle = 0.5;
    return r;
  };
  QueueOutcome got{make(static_schedule(spec.cost_units, 2)), make(queue_schedule(spec.cost_units, 2))};
  const report::Section ok = queue_section(spec, got, true);
  EXPECT_EQ(failed(ok), 0u);
  got.queue->times_processed[2] = 2;
  got.queue->checksum += item_checksum(2);
  got.a_priori->processed_by[0] = 1;
  const report::Section bad = queue_section(spec, got, true);
  EXPECT_EQ(failed(bad), 2u);
  EXPECT_NE(check_named(bad, "WorkQueue: every item processed exactly once"), nullptr);
}

TEST(ThreadfenceSections, PtxChecksReadTheListing) {
  std::string rec = "S arch sm_90\n";
  const auto fn = [&](const std::string& name, const std::vector<std::string>& sass) {
    rec += "S fn _ZN8cudasync11threadfence6probes" + std::to_string(name.size()) + name + "EPj\n";
    for (const auto& i : sass) rec += i + "\n";
  };
  fn("probe_threadfence", {"S MEMBAR.SC.GPU", "M STG.E.STRONG.GPU"});
  fn("probe_fence_sc_gpu", {"S MEMBAR.SC.GPU"});
  rec += "P arch sm_90\n";
  const auto pfn = [&](const std::string& name, const std::vector<std::string>& ptx) {
    rec += "P fn _ZN8cudasync11threadfence6probes" + std::to_string(name.size()) + name + "EPj\n";
    for (const auto& i : ptx) rec += i + "\n";
  };
  pfn("probe_threadfence_block", {"P membar.cta"});
  pfn("probe_threadfence", {"P membar.gl"});
  pfn("probe_threadfence_system", {"P membar.sys"});
  pfn("probe_fence_sc_gpu", {"P fence.sc.gpu"});
  pfn("probe_fence_acq_rel_gpu", {"P fence.acq_rel.gpu"});
  pfn("probe_store_release", {"Q st.release.gpu.b32 [%rd1],%r1"});
  pfn("probe_load_acquire", {"Q ld.acquire.gpu.b32 %r1,[%rd1]"});
  pfn("probe_store_seq_cst", {"P fence.sc.gpu", "Q st.relaxed.gpu.b32 [%rd1],%r1"});
  pfn("probe_volatile", {"Q st.volatile.global.u32 [%rd2], %r1", "Q ld.volatile.global.u32 %r2, [%rd2+4]"});
  pfn("probe_atomic_add", {"Q atom.global.add.u32 %r1, [%rd1], 1"});
  pfn("probe_atomic_add_unused", {"Q atom.global.add.u32 %r1, [%rd1], 1"});
  pfn("probe_fetch_add_acq_rel", {"Q atom.add.acq_rel.gpu.u32 %r1,[%rd1],%r2"});
  KernelListing l = parse_kernel_listing(rec);
  l.available = true;
  const report::Section s = ptx_section(l, "sm_90");
  EXPECT_EQ(failed(s), 0u);
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(std::get<std::string>(s.tables[0].rows[7][2]), "fence.sc.gpu; st.relaxed.gpu.b32 [%rd1],%r1");
  EXPECT_EQ(std::get<std::string>(s.tables[1].rows[1][1]), "MEMBAR.SC.GPU; STG.E.STRONG.GPU");
  // A different SASS for fence.sc.gpu than for membar.gl would contradict the PTX ISA.
  std::string other = rec;
  other.replace(other.find("S MEMBAR.SC.GPU\nP"), 15, "S MEMBAR.ALL.GPU");
  KernelListing l2 = parse_kernel_listing(other);
  l2.available = true;
  EXPECT_EQ(failed(ptx_section(l2, "sm_90")), 1u);
  KernelListing none;
  none.reason = "built without CUDA";
  EXPECT_TRUE(ptx_section(none, "").checks.empty());
}

TEST(ThreadfenceSections, CostRatiosNeedBothPeers) {
  std::vector<CostRow> rows;
  for (CostShape shape : {CostShape::one_thread, CostShape::warp_per_sm})
    for (int v = 0; v < kCostVariants; ++v) rows.push_back({static_cast<CostVariant>(v), shape, {10.0 * (v + 1), 11.0 * (v + 1)}});
  const report::Section s = cost_section(rows, true, 2000, false);
  EXPECT_EQ(s.measurements.size(), 16u);
  bool ratio = false;
  for (const auto& f : s.facts)
    ratio = ratio || (f.name == "store + __threadfence(), one thread" &&
                      std::get<std::string>(f.value) == "3.0x the store alone, 0.43x an L2 round trip");
  EXPECT_TRUE(ratio);
  EXPECT_TRUE(cost_section({}, false, 2000, false).facts.empty());
}

}  // namespace
}  // namespace cudasync::threadfence
