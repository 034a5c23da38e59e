// The reference model of multi-gpu: which fences make the handoff across the system safe, the
// values of the multi-phase computation, and the barrier protocol over random interleavings.
#include <gtest/gtest.h>

#include <set>

#include "techniques/multi_gpu/lesson.hpp"

namespace cudasync::multi_gpu {
namespace {

bool sys_scoped(Fence f) { return f == Fence::system || f == Fence::rel_acq_system; }

TEST(MultiGpuModel, FencesRoundTripByName) {
  ASSERT_EQ(fence_names().size(), static_cast<std::size_t>(kFences));
  for (int i = 0; i < kFences; ++i) {
    const Fence f = static_cast<Fence>(i);
    EXPECT_EQ(parse_fence(fence_key(f)), f) << fence_key(f);
    EXPECT_STRNE(fence_code(f), "");
  }
  EXPECT_FALSE(parse_fence("rel-acq"));
  EXPECT_FALSE(parse_fence("System"));
  EXPECT_FALSE(parse_fence(""));
}

// Across two GPUs the stale read is forbidden exactly when both sides synchronize at .sys.
TEST(MultiGpuModel, PeerHandoffNeedsSystemScopeOnBothSides) {
  int forbidden = 0;
  for (int p = 0; p < kFences; ++p)
    for (int c = 0; c < kFences; ++c) {
      const FlagSpec s{static_cast<Fence>(p), static_cast<Fence>(c), Consumer::peer_gpu};
      const FlagVerdict v = flag_model(s);
      SCOPED_TRACE(std::string(fence_key(s.producer)) + " -> " + fence_key(s.consumer));
      EXPECT_EQ(v.stale_allowed, !(sys_scoped(s.producer) && sys_scoped(s.consumer)));
      EXPECT_FALSE(v.reason.empty());
      forbidden += v.stale_allowed ? 0 : 1;
    }
  EXPECT_EQ(forbidden, 4);  // {system, rel-acq-system} on each side
}

TEST(MultiGpuModel, HostHandoffNeedsASystemScopeReleaseOnTheGpu) {
  for (int p = 0; p < kFences; ++p) {
    const FlagSpec s{static_cast<Fence>(p), Fence::none, Consumer::host};
    const FlagVerdict v = flag_model(s);
    EXPECT_EQ(v.stale_allowed, !sys_scoped(s.producer)) << fence_key(s.producer);
    EXPECT_NE(v.consumer_ptx.find("__ATOMIC_ACQUIRE"), std::string::npos);
  }
}

TEST(MultiGpuModel, ReasonsNameTheRuleThatDecides) {
  const auto why = [](Fence p, Fence c) { return flag_model({p, c, Consumer::peer_gpu}).reason; };
  EXPECT_NE(why(Fence::none, Fence::system).find("no release"), std::string::npos);
  EXPECT_NE(why(Fence::system, Fence::none).find("no acquire"), std::string::npos);
  EXPECT_NE(why(Fence::device, Fence::device).find("fence.sc.gpu"), std::string::npos);
  EXPECT_NE(why(Fence::system, Fence::device).find("consumer"), std::string::npos);
  EXPECT_NE(why(Fence::rel_acq_device, Fence::rel_acq_device).find("st.release.gpu"), std::string::npos);
  EXPECT_NE(why(Fence::system, Fence::rel_acq_system).find("causality"), std::string::npos);
}

TEST(MultiGpuModel, PtxIsWhatEachFenceCompilesTo) {
  const auto ptx = [](Fence p, Fence c) { return flag_model({p, c, Consumer::peer_gpu}); };
  EXPECT_NE(ptx(Fence::system, Fence::system).producer_ptx.find("fence.sc.sys"), std::string::npos);
  EXPECT_NE(ptx(Fence::device, Fence::device).consumer_ptx.find("fence.sc.gpu"), std::string::npos);
  EXPECT_NE(ptx(Fence::rel_acq_system, Fence::rel_acq_system).producer_ptx.find("st.release.sys"), std::string::npos);
  EXPECT_NE(ptx(Fence::rel_acq_system, Fence::rel_acq_system).consumer_ptx.find("ld.acquire.sys"), std::string::npos);
  EXPECT_NE(ptx(Fence::rel_acq_device, Fence::rel_acq_device).consumer_ptx.find("ld.acquire.gpu"), std::string::npos);
  EXPECT_EQ(ptx(Fence::none, Fence::none).producer_ptx.find("fence"), std::string::npos);
}

// The values by hand for 2 GPUs x 1 block x 2 threads (n = 4, m = 2), one phase.
TEST(MultiGpuModel, OnePhaseMixesTheOtherGpusValue) {
  BarrierSpec s;
  s.blocks = 1;
  s.threads = 2;
  s.phases = 1;
  const auto x = start_values(s, 7);
  ASSERT_EQ(x.size(), 4u);
  const auto v = model_values(s, 7);
  for (std::size_t g = 0; g < 4; ++g) EXPECT_EQ(v[g], mix(x[g], x[(g + 3) % 4], x[(g + 2) % 4], 1)) << g;
}

TEST(MultiGpuModel, FinalValuesDependOnBothGpusAndOnTheSeed) {
  BarrierSpec s;
  s.blocks = 2;
  s.threads = 32;
  s.phases = 4;
  const auto a = model_values(s, 1), b = model_values(s, 2);
  ASSERT_EQ(a.size(), static_cast<std::size_t>(2 * 2 * 32));
  EXPECT_NE(a, b);
  // Two phases more change the values (no fixed point), and the same seed gives the same values.
  BarrierSpec longer = s;
  longer.phases = 6;
  EXPECT_NE(model_values(longer, 1), a);
  EXPECT_EQ(model_values(s, 1), a);
}

TEST(MultiGpuModel, TheProtocolLetsNobodyLeaveEarly) {
  for (int blocks : {1, 2, 5})
    for (int barriers : {1, 4}) {
      const ProtocolSim sim = simulate_protocol(blocks, barriers, 300, 11, true);
      EXPECT_EQ(sim.early, 0) << blocks << " blocks, " << barriers << " barriers: " << sim.first_early;
    }
}

TEST(MultiGpuModel, PollingOnlyTheOwnGpusFlagLetsBlocksLeaveEarly) {
  const ProtocolSim sim = simulate_protocol(3, 3, 300, 11, false);
  EXPECT_GT(sim.early, 0);
  EXPECT_NE(sim.first_early.find("left barrier"), std::string::npos) << sim.first_early;
}

TEST(MultiGpuModel, StepsOfOneBarrierOnTwoByTwoBlocks) {
  const ProtocolSim sim = simulate_protocol(2, 1, 1, 3, true);
  int arrive = 0, last = 0, publish = 0, pass = 0;
  for (const auto& s : sim.steps) {
    arrive += s.action.rfind("arrive", 0) == 0;
    last += s.action.find("last of GPU") != std::string::npos;
    publish += s.action.rfind("publish", 0) == 0;
    pass += s.action == "poll: pass";
  }
  EXPECT_EQ(arrive, 4);
  EXPECT_EQ(last, 2);
  EXPECT_EQ(publish, 4);  // each GPU's last block: its own copy and the other GPU's
  EXPECT_EQ(pass, 4);
  ASSERT_FALSE(sim.steps.empty());
  EXPECT_EQ(sim.steps.back().flags[0], "1,1");
  EXPECT_EQ(sim.steps.back().flags[1], "1,1");
  EXPECT_EQ(sim.steps.back().counters, "2 | 2");
  // The same seed, the same interleaving.
  const ProtocolSim again = simulate_protocol(2, 1, 1, 3, true);
  ASSERT_EQ(again.steps.size(), sim.steps.size());
  for (std::size_t i = 0; i < sim.steps.size(); ++i) EXPECT_EQ(again.steps[i].action, sim.steps[i].action);
}

TEST(MultiGpuModel, AllReduceSumsWrap) {
  std::set<std::uint32_t> seen;
  for (std::uint64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(reduced_value(5, i), static_cast<std::uint32_t>(input_value(5, 0, i) + input_value(5, 1, i)));
    EXPECT_NE(input_value(5, 0, i), input_value(5, 1, i));
    seen.insert(reduced_value(5, i));
  }
  EXPECT_GT(seen.size(), 60u);  // a hash, not a constant
}

}  // namespace
}  // namespace cudasync::multi_gpu
