// multi-gpu on two GPUs (label multigpu): the results exact, the barrier passes the multi-phase check
// under every method, no stale read with system-scope fences on both sides. Skipped with the reason
// below two GPUs (and the NCCL rows where NCCL is not built in).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <iostream>

#include "core/errors.hpp"
#include "core/version.hpp"
#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"
#include "techniques/multi_gpu/lesson.hpp"

namespace cudasync::multi_gpu {
namespace {

using test::contains;
using test::failed_checks;
using test::run_cli;
using test::shown;
using test::valid_document;

constexpr std::uint64_t kSecond = 1'000'000'000ull;

bool peers() {
  const PeerInfo p = gpu_peer_info(0, 1);
  return p.a_to_b && p.b_to_a;
}

// NCCL's communicators for GPUs 0 and 1, or nullptr where NCCL is not built in or does not load
// (its rows are then waived, and these tests check the others).
std::shared_ptr<NcclComms> nccl_or_null() {
  if (!kNcclBuiltIn) return nullptr;
  try {
    return gpu_nccl_open(0, 1);
  } catch (const WaivedError& e) {
    std::cerr << "NCCL rows not checked: " << e.what() << "\n";
    return nullptr;
  }
}

#define REQUIRE_PEERS()                                                                  \
  do {                                                                                   \
    CUDASYNC_REQUIRE_GPUS(2);                                                            \
    if (!peers()) GTEST_SKIP() << "GPUs 0 and 1 cannot reach each other's memory";       \
  } while (0)

TEST(MultiGpuTwo, PeerFlagWithSystemScopeOnBothSidesNeverReadsStale) {
  REQUIRE_PEERS();
  for (const auto& [p, c] : {std::pair{Fence::system, Fence::system}, std::pair{Fence::rel_acq_system, Fence::rel_acq_system},
                             std::pair{Fence::system, Fence::rel_acq_system}}) {
    const FlagCounts n = gpu_peer_flag({p, c, Consumer::peer_gpu}, 0, 1, 100000, kSecond);
    EXPECT_GE(n.instances, 100000u);
    EXPECT_EQ(n.timed_out, 0u) << fence_key(p) << " -> " << fence_key(c);
    EXPECT_EQ(n.stale, 0u) << fence_key(p) << " -> " << fence_key(c);
  }
}

TEST(MultiGpuTwo, EveryBarrierLeavesTheModelsValues) {
  REQUIRE_PEERS();
  BarrierSpec spec;
  spec.blocks = 64;
  spec.threads = 256;
  spec.phases = 24;
  spec.deadline_ns = kSecond;
  const auto want = model_values(spec, 9);
  const std::shared_ptr<NcclComms> nccl = nccl_or_null();
  for (Method m : {Method::peer, Method::nccl, Method::event}) {
    if (m == Method::nccl && !nccl) continue;
    const BarrierRun r = gpu_barrier_run(m, 0, 1, spec, start_values(spec, 9), nccl.get());
    EXPECT_FALSE(r.deadline_hit) << static_cast<int>(m);
    EXPECT_EQ(r.values, want) << "method " << static_cast<int>(m);
    const BarrierTiming t = gpu_barrier_ns(m, 0, 1, spec, 3, 20, 120, nccl.get());
    EXPECT_EQ(t.ns.size(), 3u);
    EXPECT_FALSE(t.deadline_hit);
  }
}

TEST(MultiGpuTwo, AllReduceIsExact) {
  REQUIRE_PEERS();
  const std::shared_ptr<NcclComms> nccl = nccl_or_null();
  for (Reduce r : {Reduce::nccl, Reduce::peer}) {
    if (r == Reduce::nccl && !nccl) continue;
    const ReduceRun g = gpu_all_reduce(r, 0, 1, 1u << 22, 3, 2, 2, kSecond, nccl.get());
    EXPECT_EQ(g.mismatches[0] + g.mismatches[1], 0u) << "first wrong at " << g.first_mismatch;
    EXPECT_FALSE(g.deadline_hit);
    EXPECT_EQ(g.ns.size(), 2u);
  }
}

TEST(MultiGpuTwo, TheLessonPassesEveryCheck) {
  REQUIRE_PEERS();
  const auto doc = valid_document("multi-gpu --backend gpu --iterations 50000 --json", 0);
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  const auto& s = doc["report"]["sections"];
  EXPECT_TRUE(s["peer-flag"]["checks"]["no-stale-read"]["passed"].get<bool>());
  for (const char* c : {"values-peer", "values-event", "protocol-model", "no-deadline"})
    EXPECT_TRUE(s["barrier"]["checks"][c]["passed"].get<bool>()) << c;
  EXPECT_TRUE(s["all-reduce"]["checks"]["sums-peer"]["passed"].get<bool>());
  if (nccl_or_null()) {
    EXPECT_TRUE(s["barrier"]["checks"]["values-nccl"]["passed"].get<bool>());
    EXPECT_TRUE(s["all-reduce"]["checks"]["sums-nccl"]["passed"].get<bool>());
  } else {
    EXPECT_TRUE(contains(doc.dump(), "NCCL")) << "the NCCL rows say why they were waived";
  }
}

TEST(MultiGpuTwo, BenchSweepsBothTables) {
  REQUIRE_PEERS();
  const auto doc = valid_document("multi-gpu --bench --json", 0);
  EXPECT_EQ(failed_checks(doc), std::vector<std::string>{});
  EXPECT_TRUE(doc["report"]["sections"]["bench"]["tables"].contains("vs-nccl"));
  EXPECT_TRUE(doc["report"]["sections"]["bench-all-reduce"]["tables"].contains("vs-nccl"));
}

TEST(MultiGpuTwo, ADeviceBeyondTheMachineIsRefused) {
  CUDASYNC_REQUIRE_GPUS(2);
  const std::size_t n = probe_gpus().devices.size();
  const auto r = run_cli("multi-gpu --part peer-flag --devices 0," + std::to_string(n));
  EXPECT_EQ(r.exit_code, 2) << shown(r);
  EXPECT_TRUE(contains(r.err, "there is no GPU " + std::to_string(n))) << shown(r);
}

}  // namespace
}  // namespace cudasync::multi_gpu
