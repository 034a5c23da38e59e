// named-barriers on a real GPU: values consumed equal values produced over many seeded runs and
// shapes, bar.red equals __syncthreads_* and the model, the named groups do not wait for each
// other, the misuse part (through the real binary, in its child process) never hangs, and the
// barriers' costs are plausible.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/kernel_listing.hpp"
#include "support/gpu_available.hpp"
#include "support/cli_expect.hpp"
#include "support/run_cli.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {
namespace {

int cc() { return probe_gpus().devices.front().compute_capability(); }

void expect_all_checks_pass(const report::Section& s, const std::string& what) {
  for (const auto& c : s.checks) EXPECT_TRUE(c.passed) << what << ": " << c.id << ": " << c.detail;
  EXPECT_FALSE(s.checks.empty()) << what;
}

void expect_pc_passes(const PcSpec& spec, const PcResult& got, const std::string& what) {
  ASSERT_EQ(got.consumed, model_consumed(spec)) << what;
  const PcTiming t = pc_timing(spec, got);
  EXPECT_TRUE(t.consumers_waited()) << what << ": rounds " << t.bad_full_rounds.size();
  EXPECT_TRUE(t.producers_waited()) << what << ": rounds " << t.bad_empty_rounds.size();
}

struct PcShape {
  int producers, consumers, full, empty;
};
const PcShape kShapes[] = {{32, 32, 1, 2}, {32, 32, 0, 1}, {64, 64, 3, 4}, {32, 96, 5, 6},
                           {96, 32, 7, 8}, {256, 256, 15, 14}, {512, 480, 9, 10}};

TEST(NamedBarriersGpu, ProducerConsumerValuesOverManySeeds) {
  CUDASYNC_REQUIRE_GPU();
  int runs = 0;
  for (const auto& shape : kShapes)
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      PcSpec spec;
      spec.producers = shape.producers;
      spec.consumers = shape.consumers;
      spec.ids[0] = shape.full;
      spec.ids[1] = shape.empty;
      spec.rounds = 8;
      spec.input = make_input(spec.rounds, spec.producers, seed);
      expect_pc_passes(spec, gpu_producer_consumer(spec), std::to_string(shape.producers) + "+" +
                                                           std::to_string(shape.consumers) + " seed " +
                                                           std::to_string(seed));
      ++runs;
    }
  EXPECT_EQ(runs, 84);
}

TEST(NamedBarriersGpu, CudaBarrierProducerConsumerOverManySeeds) {
  CUDASYNC_REQUIRE_GPU();
  if (cc() < 80) GTEST_SKIP() << "cuda::barrier part needs compute capability 8.0+";
  for (const auto& shape : kShapes)
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      PcSpec spec;
      spec.producers = shape.producers;
      spec.consumers = shape.consumers;
      spec.rounds = 8;
      spec.input = make_input(spec.rounds, spec.producers, seed);
      expect_pc_passes(spec, gpu_producer_consumer_cuda_barrier(spec),
                       "cuda::barrier " + std::to_string(shape.producers) + " seed " + std::to_string(seed));
    }
}

TEST(NamedBarriersGpu, BarRedEqualsSyncthreadsAndTheModel) {
  CUDASYNC_REQUIRE_GPU();
  for (int threads : {32, 100, 256, 1000, 1024})
    for (const char* text : {"lane<5", "tid<100", "warp==1", "even", "odd", "true", "false", "random", "tid>=999"})
      for (int id : {1, 0, 15}) {
        const Predicate p = *parse_predicate(text);
        const auto values = evaluate(p, threads, 9);
        const RedResult got = gpu_red(RedSpec{threads, id, values});
        const RedTotals m = model_red(values);
        for (int tid = 0; tid < threads; ++tid) {
          const auto at = [&](int c) { return got.values[static_cast<std::size_t>(tid * kRedColumns + c)]; };
          SCOPED_TRACE(std::string(text) + " threads " + std::to_string(threads) + " id " + std::to_string(id) +
                       " tid " + std::to_string(tid));
          ASSERT_EQ(at(red_count), m.count);
          ASSERT_EQ(at(red_ptx_popc), m.count);
          ASSERT_EQ(at(red_and) != 0, m.all != 0);
          ASSERT_EQ(at(red_ptx_and), m.all);
          ASSERT_EQ(at(red_or) != 0, m.any != 0);
          ASSERT_EQ(at(red_ptx_or), m.any);
        }
      }
}

TEST(NamedBarriersGpu, NamedGroupsDoNotWaitForEachOther) {
  CUDASYNC_REQUIRE_GPU();
  struct G {
    int t0, t1, id0, id1, phases;
  };
  for (const G g : {G{64, 128, 1, 2, 4}, G{32, 32, 0, 15, 8}, G{512, 512, 3, 4, 2}, G{32, 992, 6, 7, 3}}) {
    GroupsSpec spec;
    spec.threads[0] = g.t0;
    spec.threads[1] = g.t1;
    spec.ids[0] = g.id0;
    spec.ids[1] = g.id1;
    spec.phases = g.phases;
    spec.work_cycles[0] = 2000;
    spec.work_cycles[1] = 2000LL * (g.phases + 2);
    const GroupsVerdict v = judge_groups(spec, simulate(groups_program(spec), spec.block_threads()), gpu_groups(spec));
    const std::string what = std::to_string(g.t0) + "," + std::to_string(g.t1);
    EXPECT_TRUE(v.agrees()) << what;
    EXPECT_TRUE(v.bad_order.empty()) << what;
    EXPECT_TRUE(v.independent) << what << ": group 0 done at " << v.group0_done << ", group 1 first at "
                               << v.group1_first;
  }
}

TEST(NamedBarriersGpu, MisuseRunsInAChildAndNeverHangs) {
  CUDASYNC_REQUIRE_GPU();
  for (const char* args : {"named-barriers --part misuse --json", "named-barriers --part misuse --count 48 --arrive 32 --json",
                           "named-barriers --part misuse --count 64 --arrive 96 --json"}) {
    const test::CliResult r = test::run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err << r.out.substr(0, 2000);
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{}) << args;
    const auto& s = doc["report"]["sections"]["misuse"];
    ASSERT_TRUE(s.is_object()) << args;
    EXPECT_TRUE(s["checks"].contains("case-0-nothing-hung")) << args << ": " << s["checks"].dump();
    std::cout << "[ MISUSE   ] " << args << ":";
    for (const auto& n : s["notes"]) std::cout << " " << n.get<std::string>();
    std::cout << "\n";
  }
}

TEST(NamedBarriersGpu, CostsArePlausible) {
  CUDASYNC_REQUIRE_GPU();
  for (int v = 0; v < kCostVariants; ++v) {
    if (static_cast<CostVariant>(v) == CostVariant::cuda_barrier && cc() < 80) continue;
    for (int block : {64, 1024}) {
      const double ns = gpu_ns_per_barrier(static_cast<CostVariant>(v), block, 500);
      EXPECT_GT(ns, 1.0) << "variant " << v << " block " << block;
      EXPECT_LT(ns, 20000.0) << "variant " << v << " block " << block;
    }
  }
}

TEST(NamedBarriersGpu, ListingMatchesThisGpu) {
  CUDASYNC_REQUIRE_GPU();
  const KernelListing& l = kernel_listing();
  if (!l.available) GTEST_SKIP() << l.reason();
  const std::string arch = listing_sass_arch(l, cc());
  ASSERT_FALSE(arch.empty());
  expect_all_checks_pass(listing_section(l, arch), arch);
}

// early-stamp: the guarded stamp never comes before the last warp's arrival, for either barrier and
// for every block size; what the naive stamp does is this GPU's answer, printed for the record.
TEST(NamedBarriersGpu, GuardedStampsWaitForTheBarrier) {
  CUDASYNC_REQUIRE_GPU();
  for (int warps : {2, 4, 32})
    for (StampBarrier b : {StampBarrier::syncthreads, StampBarrier::named}) {
      StampSpec spec;
      spec.warps = warps;
      const StampVerdict v = judge_stamps(spec, gpu_early_stamp(spec, b));
      EXPECT_EQ(v.samples, (warps - 1) * spec.rounds);
      EXPECT_TRUE(v.guarded_waited()) << warps << " warps, barrier " << static_cast<int>(b) << ": " << v.guarded_before
                                      << " guarded stamps early";
      EXPECT_GT(v.guarded_median, 0);
      std::cout << "[ INFO ] " << warps << " warps, " << (b == StampBarrier::named ? "bar.sync id, n" : "__syncthreads()")
                << ": " << stamp_finding(v) << "\n";
    }
}

TEST(NamedBarriersGpu, DefaultRunPassesEveryCheck) {
  CUDASYNC_REQUIRE_GPU();
  const auto doc = test::valid_document("named-barriers --backend gpu --json");
  EXPECT_EQ(doc["backend"]["used"], "gpu");
  EXPECT_EQ(test::failed_checks(doc), std::vector<std::string>{});
  EXPECT_GT(test::check_count(doc), 20u);
  const auto& sections = doc["report"]["sections"];
  for (const char* id : {"gpu-agrees", "no-early-release", "groups-independent"})
    EXPECT_TRUE(sections["bar-sync"]["checks"].contains(id)) << id;
  for (const char* id : {"gpu-agrees", "consumers-waited", "producers-waited"})
    EXPECT_TRUE(sections["producer-consumer"]["checks"].contains(id)) << id;
  for (const char* id : {"gpu-agrees-syncthreads", "gpu-agrees-named"})
    EXPECT_TRUE(sections["early-stamp"]["checks"].contains(id)) << id;
  EXPECT_FALSE(sections["cost"]["measurements"]["syncthreads-at-64"]["samples"].empty());
}

}  // namespace
}  // namespace cudasync::named_barriers
