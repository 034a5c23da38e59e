// threadfence on a real GPU: with the right fences the outcomes the PTX memory model forbids never
// appear over a million instances each; the lastBlock guards give the model's sum in every run and
// reset their counter; the WorkQueue does every item exactly once; the probes compiled to what the
// PTX ISA says; the whole lesson runs clean through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/kernel_listing.hpp"
#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"
#include "support/run_cli.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {
namespace {

constexpr long long kMillion = 1000000;
constexpr unsigned long long kBudgetNs = 20000000ull;

int cc() { return probe_gpus().devices.front().compute_capability(); }

LitmusSpec spec(threadfence::Test t, Fence f0, Fence f1, Access a = Access::plain,
                Placement p = Placement::different_blocks) {
  LitmusSpec s;
  s.test = t;
  s.fence[0] = f0;
  s.fence[1] = f1;
  s.access = a;
  s.placement = p;
  return s;
}

TEST(ThreadfenceGpu, ForbiddenOutcomesNeverAppearOverAMillionInstances) {
  CUDASYNC_REQUIRE_GPU();
  using T = threadfence::Test;
  const std::vector<LitmusSpec> forbidden = {
      spec(T::mp, Fence::device, Fence::device),
      spec(T::mp, Fence::system, Fence::system),
      spec(T::mp, Fence::rel_acq, Fence::rel_acq),
      spec(T::mp, Fence::block, Fence::block, Access::plain, Placement::same_block),
      spec(T::mp, Fence::device, Fence::device, Access::vol),
      spec(T::sb, Fence::device, Fence::device),
      spec(T::sb, Fence::system, Fence::system, Access::vol),
      spec(T::sb, Fence::block, Fence::block, Access::plain, Placement::same_block),
      spec(T::lb, Fence::device, Fence::device),
      spec(T::lb, Fence::rel_acq, Fence::rel_acq),
      spec(T::corr, Fence::rel_acq, Fence::rel_acq),
      spec(T::corr, Fence::none, Fence::none, Access::vol),
  };
  for (const auto& s : forbidden) {
    const std::string name = std::string(to_string(s.test)) + " " + fences_text(s) + " " + to_string(s.access) + " " +
                             to_string(s.placement);
    const ModelVerdict m = ptx_model(s);
    ASSERT_FALSE(m.weak_allowed(s.test)) << name << ": the test list holds forbidden configurations only";
    const LitmusCounts c = gpu_litmus(s, kMillion, kBudgetNs);
    EXPECT_GE(c.instances, static_cast<std::uint64_t>(kMillion)) << name;
    EXPECT_EQ(c.timed_out, 0u) << name;
    for (int o = 0; o < kOutcomes; ++o) {
      if (!m.allowed[static_cast<std::size_t>(o)]) {
        EXPECT_EQ(c.outcome[o], 0u) << name << ": " << outcome_text(o) << " is forbidden";
      }
    }
    std::uint64_t sum = 0;
    for (auto n : c.outcome) sum += n;
    EXPECT_EQ(sum + c.timed_out, c.instances) << name;
  }
}

TEST(ThreadfenceGpu, AllowedRowsCountEveryInstance) {
  CUDASYNC_REQUIRE_GPU();
  for (const auto& s : {spec(threadfence::Test::mp, Fence::none, Fence::none), spec(threadfence::Test::sb, Fence::none, Fence::none),
                        spec(threadfence::Test::lb, Fence::block, Fence::block), spec(threadfence::Test::corr, Fence::none, Fence::device)}) {
    const LitmusCounts c = gpu_litmus(s, 100000, kBudgetNs);
    std::uint64_t sum = 0;
    for (auto n : c.outcome) sum += n;
    EXPECT_EQ(c.timed_out, 0u);
    EXPECT_EQ(sum, c.instances);
    EXPECT_GE(c.instances, 100000u);
    EXPECT_EQ(c.instances, c.pairs_per_round * static_cast<std::uint64_t>(c.rounds));
    if (s.test == threadfence::Test::mp) {
      EXPECT_EQ(c.outcome[0] + c.outcome[1], 0u) << "the consumer waits: r0 is 1";
    }
  }
}

TEST(ThreadfenceGpu, AWaitOnAPlainLoadEndsAtItsDeadline) {
  CUDASYNC_REQUIRE_GPU();
  LitmusSpec s = spec(threadfence::Test::mp, Fence::none, Fence::none);
  s.weak_wait = true;
  const LitmusCounts c = gpu_litmus(s, 1, 1000000ull);  // one round, 1 ms
  std::uint64_t sum = 0;
  for (auto n : c.outcome) sum += n;
  EXPECT_EQ(sum + c.timed_out, c.instances) << "every instance either completed or gave up: nothing hung";
  EXPECT_EQ(c.rounds, 1);
}

TEST(ThreadfenceGpu, LastBlockCorrectGuardsGiveTheModelsSum) {
  CUDASYNC_REQUIRE_GPU();
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    LastBlockSpec lb;
    lb.blocks = 2 * probe_gpus().devices.front().sm_count;
    lb.runs = 100;
    lb.input = make_last_block_input(lb.elements(), seed);
    const std::uint64_t sum = exact_sum(lb.input);
    for (LastBlockVariant v : {LastBlockVariant::syncthreads_or, LastBlockVariant::shared_flag}) {
      const LastBlockRun r = gpu_last_block(lb, v);
      ASSERT_EQ(r.result.size(), 100u);
      for (int i = 0; i < lb.runs; ++i) {
        const auto k = static_cast<std::size_t>(i);
        EXPECT_EQ(r.result[k], sum) << to_string(v) << " run " << i;
        EXPECT_EQ(r.counter[k], 0u) << to_string(v) << " run " << i << ": the last block resets the counter";
        EXPECT_GE(r.last_block[k], 0) << to_string(v) << " run " << i;
      }
    }
  }
}

TEST(ThreadfenceGpu, WorkQueueDoesEveryItemExactlyOnce) {
  CUDASYNC_REQUIRE_GPU();
  for (std::uint64_t seed : {1u, 5u}) {
    QueueSpec q;
    q.unit_cycles = 200;  // quick: the property is about who does what, not about time
    q.cost_units = make_costs(256, seed);
    const Schedule model = static_schedule(q.cost_units, q.blocks);
    for (bool dynamic : {false, true}) {
      const QueueRun r = gpu_queue(q, dynamic);
      for (std::size_t i = 0; i < q.cost_units.size(); ++i) {
        EXPECT_EQ(r.times_processed[i], 1u) << (dynamic ? "queue" : "a-priori") << " item " << i;
        if (!dynamic) {
          EXPECT_EQ(r.processed_by[i], model.item_block[i]) << "item " << i;
        }
      }
      EXPECT_EQ(r.checksum, checksum_of_all(q.items()));
      int items = 0;
      for (int n : r.block_items) items += n;
      EXPECT_EQ(items, q.items());
      EXPECT_GT(r.ns_per_cycle, 0.0);
    }
  }
}

TEST(ThreadfenceGpu, FenceCostsArePlausible) {
  CUDASYNC_REQUIRE_GPU();
  for (CostShape shape : {CostShape::one_thread, CostShape::warp_per_sm})
    for (int v = 0; v < kCostVariants; ++v) {
      const auto ns = gpu_cost_ns(static_cast<CostVariant>(v), shape, 500, 3);
      ASSERT_EQ(ns.size(), 3u);
      for (double x : ns) {
        EXPECT_GT(x, 0.0) << v;
        EXPECT_LT(x, 100000.0) << v << ": one iteration cannot take 100 us";
      }
    }
}

TEST(ThreadfenceGpu, ProbesCompiledToWhatThePtxIsaSays) {
  CUDASYNC_REQUIRE_GPU();
  const KernelListing& l = kernel_listing();
  if (!l.available) GTEST_SKIP() << l.reason();
  const report::Section s = ptx_section(l, listing_sass_arch(l, cc()));
  for (const auto& c : s.checks) EXPECT_TRUE(c.passed) << c.id << ": " << c.detail;
  EXPECT_FALSE(s.checks.empty());
}

TEST(ThreadfenceGpu, TheDefaultRunPassesEveryCheck) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = test::valid_document("threadfence --backend gpu --json");
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  EXPECT_GT(test::check_count(doc), 10u);
  EXPECT_TRUE(doc["report"]["sections"]["litmus"]["checks"]["no-forbidden-outcome"]["passed"].get<bool>());
}

TEST(ThreadfenceGpu, ThePtxPartPassesEveryCheck) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = test::valid_document("threadfence --backend gpu --part ptx --json");
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
}

}  // namespace
}  // namespace cudasync::threadfence
