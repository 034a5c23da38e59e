// The parts of threadfence build their sections from the model's and the GPU's results: fed
// made-up GPU results, right ones must pass and wrong ones must fail with the row marked. Checks,
// facts and cells are found by id. (The real GPU runs are in the _gpu_test.)
#include <gtest/gtest.h>

#include <algorithm>

#include "support/report_lookup.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {
namespace {

using T = threadfence::Test;  // inside a TEST, Test is testing::Test
using test::find_check;
using test::find_fact;
using test::find_table;

using test::failed_count;
bool any_note(const report::Section& s, const std::string& part) {
  return std::any_of(s.notes.begin(), s.notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}
bool has_column(const report::Table& t, const std::string& key) {
  return std::any_of(t.columns.begin(), t.columns.end(), [&](const report::Column& c) { return c.key == key; });
}

LitmusCounts run_counts(std::uint64_t c00, std::uint64_t c01, std::uint64_t c10, std::uint64_t c11, std::uint64_t timed_out = 0) {
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
  c.pairs_checked = 135168;
  return c;
}

LitmusRow row(Test t, Fence f, const LitmusCounts& c) {
  LitmusSpec s;
  s.test = t;
  s.fence[0] = s.fence[1] = f;
  LitmusRow r = make_row(s, 200000, 20000000);
  r.gpu = c;
  return r;
}

TEST(ThreadfenceParts, AllowedWeakOutcomesSeenPass) {
  const std::vector<LitmusRow> rows = {row(T::mp, Fence::none, run_counts(0, 0, 150000, 120336)),
                                       row(T::mp, Fence::device, run_counts(0, 0, 0, 270336)),
                                       row(T::sb, Fence::none, run_counts(5, 1000, 1000, 268331))};
  const report::Section s = litmus_section(rows, true);
  EXPECT_EQ(failed_count(s), 0u);
  ASSERT_NE(find_check(s, "no-forbidden-outcome"), nullptr);
  ASSERT_NE(find_check(s, "no-wait-timed-out"), nullptr);
  const report::Table& t = *find_table(s, "outcomes");
  EXPECT_EQ(std::get<std::string>(t.cell(0, "verdict")), "allowed, seen");
  EXPECT_EQ(std::get<std::string>(t.cell(1, "verdict")), "forbidden, not seen");
  EXPECT_EQ(std::get<std::int64_t>(t.cell(0, "r10")), 150000);
  EXPECT_DOUBLE_EQ(std::get<double>(t.cell(0, "weak-share")), 150000.0 / 270336.0);
  EXPECT_EQ(t.columns[t.column_index("weak-share")].format, report::Format::percent);
  EXPECT_EQ(t.columns[t.column_index("instances")].format, report::Format::count);
  ASSERT_NE(find_fact(s, "instances-per-row"), nullptr);
  EXPECT_EQ(std::get<std::int64_t>(find_fact(s, "instances-per-row")->value), 270336);
  EXPECT_EQ(std::get<std::int64_t>(find_fact(s, "blocks")->value), 1056);
}

TEST(ThreadfenceParts, AForbiddenOutcomeSeenIsAFindingAndFails) {
  const std::vector<LitmusRow> rows = {row(T::mp, Fence::none, run_counts(0, 0, 10, 90)),
                                       row(T::sb, Fence::device, run_counts(3, 50, 50, 897))};
  const report::Section s = litmus_section(rows, true);
  EXPECT_EQ(failed_count(s), 1u);
  const report::Check* c = find_check(s, "no-forbidden-outcome");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_EQ(s.tables.front().rows[1].mark, report::RowMark::mismatch);
  EXPECT_EQ(s.tables.front().rows[0].mark, report::RowMark::none);
  EXPECT_TRUE(any_note(s, "FINDING: sb with fence device")) << "the finding names the configuration";
  EXPECT_TRUE(any_note(s, "r0=0 r1=0 3 times"));
}

TEST(ThreadfenceParts, AnUnexpectedTimeoutFailsAndAnExpectedOneDoesNot) {
  const report::Section bad = litmus_section({row(T::mp, Fence::none, run_counts(0, 0, 10, 80, 10))}, true);
  const report::Check* c = find_check(bad, "no-wait-timed-out");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_NE(c->detail.find("10 of 100"), std::string::npos) << c->detail;

  LitmusRow plain_wait = row(T::mp, Fence::none, run_counts(0, 0, 0, 20, 80));
  plain_wait.spec.weak_wait = true;
  plain_wait.timeouts_expected = true;
  plain_wait.label = "mp, plain-load wait";
  const report::Section ok = volatile_section({plain_wait, row(T::sb, Fence::device, run_counts(0, 5, 5, 90))}, true);
  EXPECT_EQ(failed_count(ok), 0u);
  EXPECT_EQ(std::get<std::string>(find_table(ok, "outcomes")->cell(0, "verdict")), "80 of 100 waits gave up");
}

TEST(ThreadfenceParts, ModelRowsHaveNoCounts) {
  LitmusSpec s;
  s.test = T::lb;
  const report::Section sec = litmus_section({make_row(s, 1000, 1)}, false);
  EXPECT_TRUE(sec.checks.empty());
  const report::Table& t = *find_table(sec, "outcomes");
  EXPECT_FALSE(has_column(t, "instances")) << "counts only a GPU gives are left out of the model's table";
  EXPECT_FALSE(has_column(t, "r11"));
  EXPECT_EQ(std::get<std::string>(t.cell(0, "allowed")), "00 01 10 11");
  EXPECT_TRUE(any_note(sec, "counts need a GPU"));
}

TEST(ThreadfenceParts, TheDefaultRowsAreTheMatrix) {
  Options o;
  const auto rows = litmus_rows(o, 1000);
  EXPECT_EQ(rows.size(), 7u + 5u + 5u + 5u) << "mp: five fences and each half alone; sb, lb, corr: five fences";
  o.tests = {"corr"};
  o.fence = {"device"};
  const auto corr = litmus_rows(o, 1000);
  ASSERT_EQ(corr.size(), 1u);
  EXPECT_EQ(corr[0].spec.fence[0], Fence::none) << "one name for corr is the reader's fence";
  EXPECT_EQ(corr[0].spec.fence[1], Fence::device);
  o.tests = {"sb", "mp", "sb"};
  o.fence = {"device", "none"};
  o.access = "volatile";
  o.placement = "same-block";
  const auto two = litmus_rows(o, 1000);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].spec.test, T::sb);
  EXPECT_EQ(two[1].spec.fence[1], Fence::none);
  EXPECT_EQ(two[1].spec.access, Access::vol);
  EXPECT_EQ(two[1].spec.placement, Placement::same_block);
}

TEST(ThreadfenceParts, ScopeRowsSayWhereTheSidesRan) {
  LitmusRow same = row(T::mp, Fence::none, run_counts(0, 0, 0, 100));
  same.spec.placement = Placement::same_block;
  same.gpu->pairs_same_sm = same.gpu->pairs_checked;
  LitmusRow two = row(T::mp, Fence::block, run_counts(0, 0, 40, 60));
  const report::Section s = scope_section({same, two}, true);
  EXPECT_EQ(failed_count(s), 0u) << "block fences in two blocks: the stale read is allowed";
  ASSERT_NE(find_fact(s, "pairs-same-sm-one-block"), nullptr);
  EXPECT_EQ(std::get<std::int64_t>(find_fact(s, "pairs-same-sm-one-block")->value), 135168);
  EXPECT_EQ(find_fact(s, "pairs-same-sm-one-block")->format, report::Format::count);
}

LastBlockRun lb_run(int runs, std::uint64_t sum, int wrong) {
  LastBlockRun r;
  r.result.assign(static_cast<std::size_t>(runs), sum);
  r.counter.assign(static_cast<std::size_t>(runs), 0);
  r.last_block.assign(static_cast<std::size_t>(runs), 7);
  for (int i = 0; i < wrong; ++i) r.result[static_cast<std::size_t>(i)] = sum - 1;
  return r;
}

TEST(ThreadfenceParts, LastBlockJudgesTheCorrectGuardsOnly) {
  LastBlockSpec spec;
  spec.runs = 10;
  std::vector<LastBlockOutcome> runs = {{LastBlockVariant::syncthreads_or, lb_run(10, 99, 0)},
                                        {LastBlockVariant::shared_flag, lb_run(10, 99, 0)},
                                        {LastBlockVariant::no_fence, lb_run(10, 99, 3)},
                                        {LastBlockVariant::other_writer, lb_run(10, 99, 0)}};
  const report::Section good = last_block_section(spec, 99, runs, true);
  EXPECT_EQ(failed_count(good), 0u) << "a broken guard that went wrong is the lesson, not a failure";
  EXPECT_EQ(good.checks.size(), 4u);
  EXPECT_TRUE(any_note(good, "3 wrong of 10"));
  EXPECT_EQ(std::get<std::int64_t>(find_table(good, "guards")->cell(2, "wrong")), 3);
  runs[1].gpu->result[4] = 98;
  runs[0].gpu->counter[2] = 1;
  const report::Section bad = last_block_section(spec, 99, runs, true);
  EXPECT_EQ(failed_count(bad), 2u);
  EXPECT_FALSE(find_check(bad, "shared-flag-sum")->passed);
  EXPECT_FALSE(find_check(bad, "syncthreads-or-counter-reset")->passed);
  EXPECT_EQ(bad.tables.front().rows[1].mark, report::RowMark::mismatch);
}

TEST(ThreadfenceParts, LastBlockOnTheModelGivesTheSumOnly) {
  LastBlockSpec spec;
  const report::Section s = last_block_section(spec, 12345, {{LastBlockVariant::no_fence, std::nullopt}}, false);
  EXPECT_TRUE(s.checks.empty());
  EXPECT_EQ(std::get<std::int64_t>(find_fact(s, "model-sum")->value), 12345);
  EXPECT_FALSE(has_column(*find_table(s, "guards"), "right"));
  EXPECT_TRUE(any_note(s, "the runs need a GPU"));
}

TEST(ThreadfenceParts, WorkQueueChecksEveryItemOnce) {
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
  const report::Section ok = work_queue_section(spec, got, true);
  EXPECT_EQ(failed_count(ok), 0u);
  EXPECT_DOUBLE_EQ(std::get<double>(find_fact(ok, "slowest-a-priori-gpu")->value), 6000.0);
  EXPECT_DOUBLE_EQ(std::get<double>(find_table(ok, "blocks")->cell(1, "queue")), 3000.0);
  got.queue->times_processed[2] = 2;
  got.queue->checksum += item_checksum(2);
  got.a_priori->processed_by[0] = 1;
  const report::Section bad = work_queue_section(spec, got, true);
  EXPECT_EQ(failed_count(bad), 2u);
  EXPECT_FALSE(find_check(bad, "queue-each-item-once")->passed);
  EXPECT_FALSE(find_check(bad, "a-priori-assignment")->passed);
  EXPECT_TRUE(find_check(bad, "a-priori-each-item-once")->passed);
  const report::Section model = work_queue_section(spec, QueueOutcome{}, false);
  EXPECT_EQ(std::get<std::int64_t>(find_fact(model, "slowest-a-priori-model")->value), 6);
  EXPECT_EQ(std::get<std::int64_t>(find_table(model, "blocks")->cell(0, "a-priori")), 6);
}

TEST(ThreadfenceParts, PtxChecksReadTheListing) {
  std::string rec = "S arch sm_90\n";
  const auto fn = [&](const std::string& name, const std::vector<std::string>& sass) {
    rec += "S fn _ZN8cudasync11threadfence6probes" + std::to_string(name.size()) + name + "EPj\n";
    for (const auto& i : sass) rec += i + "\n";
  };
  fn("probe_threadfence_block", {"S MEMBAR.SC.CTA"});
  fn("probe_threadfence", {"S MEMBAR.SC.GPU", "M STG.E.STRONG.GPU", "S CCTL.IVALL"});
  fn("probe_fence_sc_gpu", {"S MEMBAR.SC.GPU", "S CCTL.IVALL"});
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
  EXPECT_EQ(failed_count(s), 0u);
  EXPECT_EQ(s.checks.size(), 13u);
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(std::get<std::string>(find_table(s, "ptx")->cell(7, "ptx")), "fence.sc.gpu; st.relaxed.gpu.b32 [%rd1],%r1");
  EXPECT_EQ(std::get<std::string>(find_table(s, "sass")->cell(1, "sass")), "MEMBAR.SC.GPU; STG.E.STRONG.GPU; CCTL.IVALL");
  // The fences whose SASS sends later plain loads past the L1, read from the listing.
  EXPECT_EQ(std::get<std::string>(find_fact(s, "l1-invalidated-by")->value), "__threadfence(), asm(\"fence.sc.gpu;\")");
  // A different SASS for fence.sc.gpu than for membar.gl would contradict the PTX ISA.
  std::string other = rec;
  other.replace(other.find("S MEMBAR.SC.GPU\nS CCTL.IVALL\nP"), 15, "S MEMBAR.ALL.GPU");
  KernelListing l2 = parse_kernel_listing(other);
  l2.available = true;
  const report::Section s2 = ptx_section(l2, "sm_90");
  EXPECT_EQ(failed_count(s2), 1u);
  EXPECT_FALSE(find_check(s2, "membar-gl-is-fence-sc-gpu")->passed);
  KernelListing none;
  none.why = {"built without CUDA", "构建时没有 CUDA"};
  EXPECT_TRUE(ptx_section(none, "").checks.empty());
}

TEST(ThreadfenceParts, CostIsASweepAgainstTheStoreAndAnL2RoundTrip) {
  const auto fake = [](CostVariant v, CostShape shape) {
    const double k = 10.0 * (static_cast<int>(v) + 1) * (shape == CostShape::one_thread ? 1 : 2);
    return std::vector<double>{k, 1.1 * k};
  };
  const report::Section s = cost_section(fake, true, 2000, false);
  EXPECT_EQ(s.measurements.size(), 18u) << "9 loops x 2 shapes";
  ASSERT_NE(find_table(s, "vs-store"), nullptr);
  // The fence alone, with no store before it, is a row of its own.
  EXPECT_NO_THROW(std::get<double>(find_table(s, "median")->cell(6, "one-thread")));
  ASSERT_NE(find_table(s, "vs-l2-load"), nullptr);
  // __threadfence() is row 2: median 31.5 over the store's 10.5 and the L2 load's 73.5.
  EXPECT_DOUBLE_EQ(std::get<double>(find_table(s, "vs-store")->cell(2, "one-thread")), 3.0);
  EXPECT_NEAR(std::get<double>(find_table(s, "vs-l2-load")->cell(2, "warp-per-sm")), 3.0 / 7.0, 1e-12);
  // Fake costs grow with the row: the cheapest fence is __threadfence_block(), the peers never win.
  EXPECT_EQ(std::get<std::string>(find_table(s, "best")->cell(0, "best")), "store + __threadfence_block()");
  const auto peers_cheap = [&](CostVariant v, CostShape shape) {
    return v == CostVariant::l2_load_chain || v == CostVariant::atomic_chain ? std::vector<double>{1.0} : fake(v, shape);
  };
  EXPECT_EQ(std::get<std::string>(find_table(cost_section(peers_cheap, true, 2000, false), "best")->cell(1, "best")),
            "store + __threadfence_block()");
  const report::Section model = cost_section(fake, false, 2000, false);
  for (const auto& m : model.measurements) EXPECT_TRUE(m.needs_gpu) << m.id;
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(find_table(model, "median")->cell(0, "one-thread")));
}

}  // namespace
}  // namespace cudasync::threadfence
