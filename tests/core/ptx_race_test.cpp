// core/ptx happens-before on small hand-written kernels: which pairs of accesses the PTX memory
// model orders (barriers, bar.warp.sync, release/acquire of a sufficient scope, fence pairs,
// morally strong atomics) and which it leaves racing (shfl, .cta scope across blocks, plain
// accesses); and the other findings: deadlock, out-of-bounds, uninitialised shared, limits.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/ptx/ptx_machine.hpp"

namespace cudasync::ptx {
namespace {

// Words of the buffer "mem": [0] data, [1] flag, [2] result.
std::string race_kernel(const std::string& body, const std::string& decls = "") {
  return R"(.version 9.0
.target sm_90
.address_size 64
)" + decls + R"(
.visible .entry k(.param .u64 k_param_0)
{
  .reg .pred %p<9>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [k_param_0];
  cvta.to.global.u64 %rd2, %rd1;
  add.s64 %rd3, %rd2, 4;
  add.s64 %rd4, %rd2, 8;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
)" + body + R"(
  ret;
}
)";
}

std::vector<Schedule> race_schedules() {
  return {Schedule::round_robin(), Schedule::reverse(), Schedule::one_ahead(0), Schedule::one_ahead(1),
          Schedule::seeded_random(1), Schedule::seeded_random(2), Schedule::switch_every_access(3)};
}

Launch race_launch(int grid, int block, std::uint64_t steps = 100000) {
  Launch l;
  l.grid = grid;
  l.block = block;
  l.buffers = {{"mem", std::vector<std::uint8_t>(16)}};
  l.args = {Arg::buffer_of(0)};
  l.limits.max_steps = steps;
  return l;
}

std::string race_messages(const Outcome& o) {
  std::string s;
  for (const auto& f : o.findings) s += f.kind + ": " + f.message + "\n";
  return s;
}

Outcome race_check(const std::string& body, int grid, int block, const std::string& decls = "") {
  return check_schedules(parse_program(race_kernel(body, decls)), race_launch(grid, block), race_schedules());
}

// Message passing between block 0 (writer) and block 1 (reader), thread 0 of each, with the
// given flag store / flag load and the fences around them.
std::string message_body(const std::string& store_flag, const std::string& load_flag, const std::string& fence_w = "",
                    const std::string& fence_r = "") {
  return R"(  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra $L_read;
  mov.u32 %r5, 42;
  st.global.u32 [%rd2], %r5;
  )" + fence_w + R"(
  mov.u32 %r6, 1;
  )" + store_flag + R"( [%rd3], %r6;
  bra.uni $L_end;
$L_read:
  )" + load_flag + R"( %r7, [%rd3];
  setp.eq.u32 %p3, %r7, 0;
  @%p3 bra $L_read;
  )" + fence_r + R"(
  ld.global.u32 %r8, [%rd2];
  st.global.u32 [%rd4], %r8;
$L_end:)";
}

TEST(PtxHappensBefore, ReleaseStoreAndAcquireLoadAtGpuScopeOrderTheData) {
  const Outcome o = race_check(message_body("st.release.gpu.global.u32", "ld.acquire.gpu.global.u32"), 2, 1);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
  EXPECT_EQ(ints_of(o.buffers.at(0)).at(2), 42);
}

TEST(PtxHappensBefore, RelaxedFlagWithoutFencesLeavesTheDataRacing) {
  const Outcome o = race_check(message_body("st.relaxed.gpu.global.u32", "ld.relaxed.gpu.global.u32"), 2, 1);
  const Finding* f = o.first("data-race");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_EQ(f->address, "mem+0");
}

// A launch spread over two GPUs (Launch::gpus, the multi-gpu exercise): .gpu scope no longer reaches
// the other block, .sys does.
TEST(PtxHappensBefore, OverTwoGpusGpuScopeDoesNotReachTheOtherBlockAndSysDoes) {
  const auto over_two = [](const std::string& store, const std::string& load) {
    Launch l = race_launch(2, 1);
    l.gpus = 2;
    return check_schedules(parse_program(race_kernel(message_body(store, load))), l, race_schedules());
  };
  const Outcome gpu = over_two("st.release.gpu.global.u32", "ld.acquire.gpu.global.u32");
  // The flag's .gpu accesses no longer include each other (not morally strong), and the data is unordered.
  ASSERT_NE(gpu.first("data-race"), nullptr) << race_messages(gpu);
  const Outcome sys = over_two("st.release.sys.global.u32", "ld.acquire.sys.global.u32");
  EXPECT_TRUE(sys.findings.empty()) << race_messages(sys);
  EXPECT_EQ(ints_of(sys.buffers.at(0)).at(2), 42);
  // On one GPU the .gpu pair is enough: the test above is about the split, not the scopes.
  EXPECT_TRUE(race_check(message_body("st.release.gpu.global.u32", "ld.acquire.gpu.global.u32"), 2, 1).findings.empty());
}

TEST(PtxHappensBefore, FenceScGpuOnBothSidesOfARelaxedFlagOrdersTheData) {
  const Outcome o = race_check(message_body("st.relaxed.gpu.global.u32", "ld.relaxed.gpu.global.u32", "fence.sc.gpu;",
                                  "fence.acq_rel.gpu;"),
                          2, 1);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
}

TEST(PtxHappensBefore, AReleaseFenceAndAnAcquireFenceOrderTheData) {
  const Outcome o = race_check(message_body("st.relaxed.gpu.global.u32", "ld.relaxed.gpu.global.u32",
                                            "fence.release.gpu;", "fence.acquire.gpu;"),
                               2, 1);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
}

TEST(PtxHappensBefore, OneSidedFencesOnTheWrongSidesOrderNothing) {
  const Outcome o = race_check(message_body("st.relaxed.gpu.global.u32", "ld.relaxed.gpu.global.u32",
                                            "fence.acquire.gpu;", "fence.release.gpu;"),
                               2, 1);
  EXPECT_NE(o.first("data-race"), nullptr) << race_messages(o);
}

TEST(PtxHappensBefore, CtaScopeDoesNotReachAnotherBlock) {
  const Outcome o = race_check(message_body("st.release.cta.global.u32", "ld.acquire.cta.global.u32"), 2, 1);
  EXPECT_NE(o.first("data-race"), nullptr) << race_messages(o);
}

TEST(PtxHappensBefore, CtaScopeIsEnoughInsideOneBlock) {
  // The same program with the writer and the reader as threads 0 and 32 of one block.
  std::string body = message_body("st.release.cta.global.u32", "ld.acquire.cta.global.u32");
  body.replace(body.find("setp.ne.u32 %p1, %r1, 0;"), 24, "and.b32 %r9, %r1, 31;\n  setp.ne.u32 %p1, %r9, 0;");
  body.replace(body.find("setp.ne.u32 %p2, %r2, 0;"), 24, "setp.ne.u32 %p2, %r1, 0;");
  const Outcome o = race_check(body, 1, 64);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
}

TEST(PtxHappensBefore, APlainFlagIsItselfARace) {
  const Outcome o = race_check(message_body("st.global.u32", "ld.global.u32", "membar.gl;", "membar.gl;"), 2, 1);
  const Finding* f = o.first("data-race");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_EQ(f->address, "mem+4");
}

TEST(PtxHappensBefore, AtomicsOnOneWordAreMorallyStrongAndDoNotRace) {
  const Outcome o = race_check("  atom.global.add.u32 %r5, [%rd2], 1;\n  red.global.add.u32 [%rd2], 1;", 4, 32);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
  EXPECT_EQ(ints_of(o.buffers.at(0)).at(0), 256);
}

TEST(PtxHappensBefore, AnAtomicAndAPlainLoadOfOneWordRace) {
  const Outcome o = race_check("  atom.global.add.u32 %r5, [%rd2], 1;\n  ld.global.u32 %r6, [%rd2];", 2, 1);
  EXPECT_NE(o.first("data-race"), nullptr) << race_messages(o);
}

// Lane 0 writes a shared word, then `between`, then lane 1 reads it.
std::string shared_handoff(const std::string& between) {
  return R"(  .shared .align 4 .b8 box[4];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  mov.u32 %r5, 7;
  st.shared.u32 [box], %r5;
$L_wait:
  )" + between + R"(
  setp.ne.u32 %p2, %r1, 1;
  @%p2 bra $L_end;
  ld.shared.u32 %r6, [box];
  st.global.u32 [%rd4], %r6;
$L_end:)";
}

TEST(PtxHappensBefore, BarWarpSyncOrdersTheLanesOfAWarp) {
  const Outcome o = race_check(shared_handoff("bar.warp.sync -1;"), 1, 32);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
  EXPECT_EQ(ints_of(o.buffers.at(0)).at(2), 7);
}

TEST(PtxHappensBefore, AShuffleOrdersNoMemory) {
  const Outcome o = race_check(shared_handoff("shfl.sync.idx.b32 %r20|%p5, %r1, 0, 0x1f, -1;"), 1, 32);
  const Finding* f = o.first("data-race");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_EQ(f->address, "box+0 (shared, block 0)");
}

TEST(PtxHappensBefore, BarSyncOrdersTheBlock) {
  const Outcome o = race_check(shared_handoff("bar.sync 0;"), 1, 64);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
}

TEST(PtxHappensBefore, BarArriveThenBarSyncWithACountOrdersProducerAndConsumer) {
  // Warp 0 produces and arrives at barrier 1; warp 1 waits there (64 threads) and consumes.
  const std::string body = R"(  .shared .align 4 .b8 box[4];
  setp.gt.u32 %p1, %r1, 31;
  @%p1 bra $L_consumer;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $L_arrive;
  mov.u32 %r5, 9;
  st.shared.u32 [box], %r5;
$L_arrive:
  bar.arrive 1, 64;
  bra.uni $L_end;
$L_consumer:
  bar.sync 1, 64;
  setp.ne.u32 %p3, %r1, 32;
  @%p3 bra $L_end;
  ld.shared.u32 %r6, [box];
  st.global.u32 [%rd4], %r6;
$L_end:)";
  const Outcome o = race_check(body, 1, 64);
  EXPECT_TRUE(o.findings.empty()) << race_messages(o);
  EXPECT_EQ(ints_of(o.buffers.at(0)).at(2), 9);
}

// The PTX ISA asks one thread count of every arrival at a barrier: the producer that counts only its
// own warp is found whichever warp arrives first (named-barriers 5's bug).
TEST(PtxFindings, ArrivalsWithDifferentCountsAtOneBarrierAreNamed) {
  const std::string body = R"(  setp.gt.u32 %p1, %r1, 31;
  @%p1 bra $L_consumer;
  bar.arrive 1, 32;
  bra.uni $L_end;
$L_consumer:
  bar.sync 1, 64;
$L_end:)";
  // Warp 1 first (reverse): it waits for 64, then warp 0 arrives counting 32. In thread order the
  // 32 complete a phase of their own and warp 1 then waits for ever: a deadlock, also a finding.
  EXPECT_NE(race_check(body, 1, 64).first("deadlock"), nullptr);
  const Outcome o = run_kernel(parse_program(race_kernel(body)), race_launch(1, 64), Schedule::reverse());
  const Finding* f = o.first("barrier-count");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_NE(f->message.find("with 32"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("with 64"), std::string::npos) << f->message;
  EXPECT_EQ(f->ptx_lines.size(), 2u);
}

TEST(PtxFindings, TwoWarpsAtDifferentNamedBarriersDeadlockAndBothLinesAreNamed) {
  const std::string body = R"(  setp.gt.u32 %p1, %r1, 31;
  @%p1 bra $L_other;
  bar.sync 1, 64;
  bra.uni $L_end;
$L_other:
  bar.sync 2, 64;
$L_end:)";
  const Outcome o = run_kernel(parse_program(race_kernel(body)), race_launch(1, 64), Schedule::round_robin());
  const Finding* f = o.first("deadlock");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_EQ(f->ptx_lines.size(), 2u);
  EXPECT_NE(f->message.find("bar.sync 1, 64"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("bar.sync 2, 64"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("block 0 threads 0-31"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("block 0 threads 32-63"), std::string::npos) << f->message;
}

TEST(PtxFindings, ATrapStopsTheKernelAndIsNamed) {
  const Outcome o = run_kernel(parse_program(race_kernel("  setp.eq.u32 %p1, %r1, 1;\n  @%p1 trap;")),
                               race_launch(1, 4), Schedule::round_robin());
  const Finding* f = o.first("trap");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_EQ(f->threads.at(0).thread, 1);
  EXPECT_FALSE(o.finished);
}

TEST(PtxFindings, ACallIsAnUnsupportedInstruction) {
  const std::string body = R"(  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  call.uni vprintf, (param0);
  })";
  const Outcome o = run_kernel(parse_program(race_kernel(body)), race_launch(1, 1), Schedule::round_robin());
  const Finding* f = o.first("unsupported-instruction");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_NE(f->message.find("call.uni vprintf"), std::string::npos) << f->message;
}

TEST(PtxFindings, AStorePastTheEndOfABufferIsOutOfBounds) {
  const Outcome o = run_kernel(parse_program(race_kernel("  st.global.u32 [%rd2+16], %r1;")), race_launch(1, 1),
                               Schedule::round_robin());
  const Finding* f = o.first("out-of-bounds");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_FALSE(o.finished);
}

TEST(PtxFindings, AnAddressThatWrapsAroundIsOutOfBoundsNotACrash) {
  const Outcome o = run_kernel(parse_program(race_kernel("  mov.u64 %rd5, -4;\n  ld.global.u32 %r5, [%rd5+8];")),
                               race_launch(1, 1), Schedule::round_robin());
  EXPECT_NE(o.first("out-of-bounds"), nullptr) << race_messages(o);
}

TEST(PtxFindings, AVectorLoadWithTooFewRegistersIsRefused) {
  const Outcome o = run_kernel(parse_program(race_kernel("  ld.global.v4.u32 {%r5, %r6}, [%rd2];")),
                               race_launch(1, 1), Schedule::round_robin());
  EXPECT_NE(o.first("unsupported-instruction"), nullptr) << race_messages(o);
}

TEST(PtxFindings, ASharedAccessPastTheVariablesIsOutOfBounds) {
  const Outcome o = run_kernel(
      parse_program(race_kernel("  .shared .align 4 .b8 box[4];\n  st.shared.u32 [box+4], %r1;")), race_launch(1, 1),
      Schedule::round_robin());
  EXPECT_NE(o.first("out-of-bounds"), nullptr) << race_messages(o);
}

TEST(PtxFindings, ReadingSharedMemoryNobodyWroteIsReported) {
  const Outcome o = run_kernel(
      parse_program(race_kernel("  .shared .align 4 .b8 box[8];\n  ld.shared.u32 %r5, [box+4];\n  st.global.u32 [%rd4], %r5;")),
      race_launch(1, 1), Schedule::round_robin());
  const Finding* f = o.first("uninitialised-shared");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_EQ(f->address, "box+4 (shared, block 0)");
  EXPECT_TRUE(o.finished);
}

TEST(PtxFindings, MoreThreadsThanTheModelRunsAreRefused) {
  const Outcome o = run_kernel(parse_program(race_kernel("")), race_launch(3, 1024), Schedule::round_robin());
  const Finding* f = o.first("limit");
  ASSERT_NE(f, nullptr) << race_messages(o);
  EXPECT_NE(f->message.find("2048"), std::string::npos) << f->message;
}

TEST(PtxFindings, BuffersOverTheMemoryBoundAreRefused) {
  Launch l = race_launch(1, 1);
  l.buffers[0].bytes.resize(8u << 20);
  const Outcome o = run_kernel(parse_program(race_kernel("")), l, Schedule::round_robin());
  EXPECT_NE(o.first("limit"), nullptr) << race_messages(o);
}

TEST(PtxSchedules, ReverseRunsTheHighestThreadFirst) {
  // Each thread takes a ticket with an atomic: the order of the tickets is the schedule's order.
  const std::string body = R"(  atom.global.add.u32 %r5, [%rd2], 1;
  mul.wide.u32 %rd10, %r1, 4;
  add.s64 %rd11, %rd2, %rd10;
  add.s64 %rd12, %rd11, 4;
  st.global.u32 [%rd12], %r5;)";
  Launch l = race_launch(1, 3);
  const Program p = parse_program(race_kernel(body));
  const auto rev = ints_of(run_kernel(p, l, Schedule::reverse()).buffers.at(0));
  EXPECT_EQ(std::vector<std::int32_t>(rev.begin() + 1, rev.end()), (std::vector<std::int32_t>{2, 1, 0}));
  const auto rr = ints_of(run_kernel(p, l, Schedule::round_robin()).buffers.at(0));
  EXPECT_EQ(std::vector<std::int32_t>(rr.begin() + 1, rr.end()), (std::vector<std::int32_t>{0, 1, 2}));
  const auto ahead = ints_of(run_kernel(p, l, Schedule::one_ahead(2, true)).buffers.at(0));
  EXPECT_EQ(std::vector<std::int32_t>(ahead.begin() + 1, ahead.end()), (std::vector<std::int32_t>{0, 1, 2}));
}

TEST(PtxSchedules, OneBlockAheadTakesItsTicketsFirst) {
  const std::string body = R"(  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  atom.global.add.u32 %r5, [%rd2], 1;
  mul.wide.u32 %rd10, %r4, 4;
  add.s64 %rd11, %rd2, %rd10;
  st.global.u32 [%rd11+4], %r5;)";
  Launch l = race_launch(2, 2);
  l.buffers[0].bytes.resize(5 * 4);
  const Program p = parse_program(race_kernel(body));
  const auto last = ints_of(run_kernel(p, l, Schedule::one_ahead(3)).buffers.at(0));
  EXPECT_EQ(std::vector<std::int32_t>(last.begin() + 1, last.end()), (std::vector<std::int32_t>{2, 3, 0, 1}));
  const auto first = ints_of(run_kernel(p, l, Schedule::one_ahead(0)).buffers.at(0));
  EXPECT_EQ(std::vector<std::int32_t>(first.begin() + 1, first.end()), (std::vector<std::int32_t>{0, 1, 2, 3}));
}

TEST(PtxSchedules, ASeededRandomScheduleRepeatsItselfAndSeedsDiffer) {
  const std::string body = R"(  atom.global.add.u32 %r5, [%rd2], 1;
  mul.wide.u32 %rd10, %r1, 4;
  add.s64 %rd11, %rd2, %rd10;
  st.global.u32 [%rd11+4], %r5;)";
  Launch l = race_launch(1, 3);
  const Program p = parse_program(race_kernel(body));
  const auto a = run_kernel(p, l, Schedule::seeded_random(11)).buffers.at(0);
  const auto b = run_kernel(p, l, Schedule::seeded_random(11)).buffers.at(0);
  EXPECT_EQ(a, b);
  bool differs = false;
  for (std::uint64_t seed = 0; seed < 20 && !differs; ++seed)
    differs = run_kernel(p, l, Schedule::seeded_random(seed)).buffers.at(0) != a;
  EXPECT_TRUE(differs);
  EXPECT_EQ(Schedule::seeded_random(11).name(), "seeded-random (seed 11)");
}

TEST(PtxSchedules, TheHuntingSetHasEveryKind) {
  Launch l = race_launch(2, 64);
  const auto s = hunting_schedules(l, 5, 2);
  std::set<std::string> kinds;
  for (const auto& x : s) kinds.insert(x.kind_name());
  EXPECT_EQ(kinds, (std::set<std::string>{"round-robin", "reverse", "one-ahead", "switch-every-access", "seeded-random"}));
}

}  // namespace
}  // namespace cudasync::ptx
