// core/ptx instruction by instruction, on small hand-written kernels: each thread computes %r10 and
// stores it to out[global thread id]; the test compares with what the PTX ISA says the GPU returns
// (shfl.sync's clamp and segment mask, vote, match, redux, bar.red, atomics, conversions).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "core/ptx/ptx_machine.hpp"

namespace cudasync::ptx {
namespace {

std::string instr_kernel(const std::string& body, const std::string& decls = "") {
  return R"(.version 9.0
.target sm_90
.address_size 64
)" + decls + R"(
.visible .entry k(.param .u64 k_param_0)
{
  .reg .pred %p<9>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<9>;
  ld.param.u64 %rd1, [k_param_0];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r10, 0;
)" + body + R"(
  st.global.u32 [%rd4], %r10;
  ret;
}
)";
}

Outcome instr_run(const std::string& body, int grid, int block, const Schedule& s = Schedule::round_robin(),
            const std::string& decls = "", std::size_t extra_words = 0) {
  Launch l;
  l.grid = grid;
  l.block = block;
  l.buffers = {{"out", std::vector<std::uint8_t>((static_cast<std::size_t>(grid * block) + extra_words) * 4)}};
  l.args = {Arg::buffer_of(0)};
  l.limits.max_steps = 200000;
  return run_kernel(parse_program(instr_kernel(body, decls)), l, s);
}

std::string instr_messages(const Outcome& o) {
  std::string s;
  for (const auto& f : o.findings) s += f.kind + ": " + f.message + "\n";
  return s;
}

void expect_each(const std::string& body, int block, const std::function<std::int64_t(int)>& want,
                 const std::vector<Schedule>& schedules = {Schedule::round_robin(), Schedule::reverse(),
                                                           Schedule::seeded_random(9)}) {
  for (const Schedule& s : schedules) {
    const Outcome o = instr_run(body, 1, block, s);
    ASSERT_TRUE(o.findings.empty()) << s.name() << "\n" << instr_messages(o);
    const auto out = ints_of(o.buffers.at(0));
    for (int t = 0; t < block; ++t)
      ASSERT_EQ(out.at(static_cast<std::size_t>(t)), static_cast<std::int32_t>(want(t))) << s.name() << " thread " << t;
  }
}

TEST(PtxShfl, UpWithWidthEightKeepsTheFirstLaneOfEachSegment) {
  // __shfl_up_sync(~0u, lane, 1, 8): c = (32 - 8) << 8.
  expect_each("  shfl.sync.up.b32 %r10|%p1, %r1, 1, 0x1800, -1;", 32, [](int t) { return t % 8 == 0 ? t : t - 1; });
}

TEST(PtxShfl, DownWithWidthEightClampsAtTheSegmentsEnd) {
  // __shfl_down_sync(~0u, lane, 2, 8): c = ((32 - 8) << 8) | 0x1f.
  expect_each("  shfl.sync.down.b32 %r10|%p1, %r1, 2, 0x181f, -1;", 32, [](int t) { return t % 8 + 2 < 8 ? t + 2 : t; });
}

TEST(PtxShfl, IdxReadsTheGivenLaneOfItsSegment) {
  expect_each("  shfl.sync.idx.b32 %r10|%p1, %r1, 3, 0x181f, -1;", 32, [](int t) { return t / 8 * 8 + 3; });
}

TEST(PtxShfl, BflyExchangesWithTheXorPartner) {
  expect_each("  shfl.sync.bfly.b32 %r10|%p1, %r1, 5, 0x1f, -1;", 32, [](int t) { return t ^ 5; });
}

TEST(PtxShfl, ThePredicateSaysWhetherTheSourceLaneWasInRange) {
  expect_each("  shfl.sync.down.b32 %r11|%p1, %r1, 4, 0x1f, -1;\n  selp.u32 %r10, 1, 0, %p1;", 32,
              [](int t) { return t + 4 <= 31 ? 1 : 0; });
}

TEST(PtxShfl, LanesAtTwoShufflesWithTheSameQualifiersMeet) {
  // Even and odd lanes reach different shfl.sync instructions of one kind: on sm_70 and newer they
  // exchange with each other (the PTX ISA asks for the same qualifiers and mask, not one instruction).
  expect_each(R"(  and.b32 %r5, %r1, 1;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 bra $L_even;
  shfl.sync.bfly.b32 %r10|%p2, %r1, 1, 0x1f, -1;
  bra.uni $L_done;
$L_even:
  add.s32 %r6, %r1, 0;
  shfl.sync.bfly.b32 %r10|%p3, %r6, 1, 0x1f, -1;
$L_done:)",
              32, [](int t) { return t ^ 1; });
}

TEST(PtxShfl, LanesAtShufflesOfDifferentModesDeadlock) {
  const Outcome o = instr_run(R"(  and.b32 %r5, %r1, 1;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 bra $L_even;
  shfl.sync.bfly.b32 %r10|%p2, %r1, 1, 0x1f, -1;
  bra.uni $L_done;
$L_even:
  shfl.sync.idx.b32 %r10|%p3, %r1, 1, 0x1f, -1;
$L_done:)",
                              1, 32);
  const Finding* f = o.first("deadlock");
  ASSERT_NE(f, nullptr) << instr_messages(o);
  EXPECT_NE(f->message.find("wait for their warp"), std::string::npos) << f->message;
}

TEST(PtxWarp, BallotOfOddLanes) {
  expect_each("  and.b32 %r5, %r1, 1;\n  setp.eq.u32 %p1, %r5, 1;\n  vote.sync.ballot.b32 %r10, %p1, -1;", 32,
              [](int) { return static_cast<std::int32_t>(0xaaaaaaaau); });
}

TEST(PtxWarp, VoteAllAnyAndUni) {
  expect_each(R"(  setp.lt.u32 %p1, %r1, 40;
  vote.sync.all.pred %p2, %p1, -1;
  setp.eq.u32 %p3, %r1, 7;
  vote.sync.any.pred %p4, %p3, -1;
  vote.sync.uni.pred %p5, %p3, -1;
  selp.u32 %r5, 1, 0, %p2;
  selp.u32 %r6, 2, 0, %p4;
  selp.u32 %r7, 4, 0, %p5;
  or.b32 %r8, %r5, %r6;
  or.b32 %r10, %r8, %r7;)",
              32, [](int) { return 3; });
}

TEST(PtxWarp, MatchAnyGroupsLanesWithTheSameValue) {
  expect_each("  shr.u32 %r5, %r1, 2;\n  match.any.sync.b32 %r10, %r5, -1;", 32,
              [](int t) { return static_cast<std::int32_t>(0xfu << (t / 4 * 4)); });
}

TEST(PtxWarp, MatchAllSetsItsPredicateOnlyWhenEveryLaneAgrees) {
  expect_each("  shr.u32 %r5, %r1, 5;\n  match.all.sync.b32 %r6|%p1, %r5, -1;\n  selp.u32 %r10, %r6, 7, %p1;", 32,
              [](int) { return -1; });
}

TEST(PtxWarp, ReduxAddsAndTakesTheMaximum) {
  expect_each("  redux.sync.add.u32 %r5, %r1, -1;\n  sub.s32 %r6, 0, %r1;\n  redux.sync.max.s32 %r7, %r6, -1;\n  add.s32 %r10, %r5, %r7;",
              32, [](int) { return 496; });
}

TEST(PtxWarp, ActivemaskNamesTheLanesThatHaveNotExited) {
  // Round robin: no lane has reached its ret when the others run activemask.
  expect_each("  activemask.b32 %r10;", 20, [](int) { return static_cast<std::int32_t>(0xfffffu); },
              {Schedule::round_robin()});
}

TEST(PtxBarrierReduction, PopcCountsThePredicatesOfTheBlock) {
  expect_each("  setp.lt.u32 %p1, %r1, 50;\n  bar.red.popc.u32 %r10, 0, %p1;", 128, [](int) { return 50; });
}

TEST(PtxBarrierReduction, AndIsTrueOnlyWhenEveryThreadIs) {
  expect_each("  setp.lt.u32 %p1, %r1, 50;\n  bar.red.and.pred %p2, 0, %p1;\n  bar.red.or.pred %p3, 0, %p1;\n"
              "  selp.u32 %r5, 1, 0, %p2;\n  selp.u32 %r6, 2, 0, %p3;\n  or.b32 %r10, %r5, %r6;",
              64, [](int) { return 2; });
}

TEST(PtxArith, IntegerOperationsFollowTheirTypes) {
  expect_each(R"(  sub.s32 %r5, 3, %r1;
  div.s32 %r6, %r5, 2;
  rem.s32 %r7, %r5, 2;
  shr.s32 %r8, %r5, 1;
  shr.u32 %r9, %r5, 28;
  mul.hi.u32 %r11, %r9, 0x40000000;
  min.s32 %r12, %r5, 0;
  abs.s32 %r13, %r12;
  add.s32 %r14, %r6, %r7;
  add.s32 %r14, %r14, %r8;
  add.s32 %r14, %r14, %r9;
  add.s32 %r14, %r14, %r11;
  add.s32 %r10, %r14, %r13;)",
              8, [](int t) {
                const std::int32_t v = 3 - t;
                const auto u = static_cast<std::uint32_t>(v);
                const std::uint32_t hi = static_cast<std::uint32_t>((static_cast<std::uint64_t>(u >> 28) * 0x40000000u) >> 32);
                const std::int32_t mn = v < 0 ? v : 0;
                return static_cast<std::int64_t>(v / 2 + v % 2 + (v >> 1) + static_cast<std::int32_t>(u >> 28) +
                                                 static_cast<std::int32_t>(hi) + (mn < 0 ? -mn : mn));
              });
}

TEST(PtxArith, ConversionsRoundAsAsked) {
  // -2.5f: rzi -> -2, rni -> -2 (to even), rmi -> -3, rpi -> -2; 300 as u8 -> 44; -1 as s8 -> s32 -1.
  expect_each(R"(  mov.f32 %f1, 0fC0200000;
  cvt.rzi.s32.f32 %r5, %f1;
  cvt.rni.s32.f32 %r6, %f1;
  cvt.rmi.s32.f32 %r7, %f1;
  cvt.rpi.s32.f32 %r8, %f1;
  mov.u32 %r9, 300;
  cvt.u8.u32 %r11, %r9;
  mov.u32 %r12, 255;
  cvt.s32.s8 %r13, %r12;
  mul.lo.s32 %r5, %r5, 1000000;
  mul.lo.s32 %r6, %r6, 100000;
  mul.lo.s32 %r7, %r7, 10000;
  mul.lo.s32 %r8, %r8, 1000;
  add.s32 %r10, %r5, %r6;
  add.s32 %r10, %r10, %r7;
  add.s32 %r10, %r10, %r8;
  add.s32 %r10, %r10, %r11;
  add.s32 %r10, %r10, %r13;)",
              1, [](int) { return -2000000 - 200000 - 30000 - 2000 + 44 - 1; });
}

TEST(PtxArith, FloatAddMulAndFma) {
  // (tid + 0.5) * 2 + 1 via fma, back to an int.
  expect_each(R"(  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, 0f3F000000;
  fma.rn.f32 %f3, %f2, 0f40000000, 0f3F800000;
  mul.f32 %f4, %f3, 0f3F800000;
  cvt.rzi.s32.f32 %r10, %f4;)",
              8, [](int t) { return 2 * t + 2; });
}

TEST(PtxArith, SetpCombinesWithAnotherPredicate) {
  expect_each("  setp.gt.u32 %p1, %r1, 2;\n  setp.lt.and.u32 %p2, %r1, 6, %p1;\n  selp.u32 %r10, 1, 0, %p2;", 8,
              [](int t) { return t > 2 && t < 6 ? 1 : 0; });
}

TEST(PtxMemory, LocalMemoryThroughAGenericAddress) {
  expect_each(R"(  .local .align 4 .b8 __local_depot0[16];
  mov.u64 %rd10, __local_depot0;
  cvta.local.u64 %rd11, %rd10;
  st.u32 [%rd11+4], %r1;
  ld.local.u32 %r10, [%rd10+4];)",
              4, [](int t) { return t; });
}

TEST(PtxMemory, ConstantsAndDynamicSharedMemory) {
  // An .extern .shared array sized at launch, after a static one; a .const table with its initialiser.
  const std::string decls = ".const .align 4 .b8 table[8] = {1, 0, 0, 0, 2, 0, 0, 0};\n"
                            ".extern .shared .align 4 .b8 dyn[];";
  const std::string body = R"(  .shared .align 4 .b8 fixed[8];
  shl.b32 %r5, %r1, 2;
  mov.u32 %r6, dyn;
  add.s32 %r7, %r6, %r5;
  st.shared.u32 [%r7], %r1;
  ld.shared.u32 %r8, [%r7];
  ld.const.u32 %r9, [table+4];
  mov.u32 %r11, fixed;
  sub.s32 %r12, %r6, %r11;
  mad.lo.s32 %r10, %r9, 1000, %r8;
  add.s32 %r10, %r10, %r12;)";
  Launch l;
  l.grid = 2;
  l.block = 4;
  l.buffers = {{"out", std::vector<std::uint8_t>(8 * 4)}};
  l.args = {Arg::buffer_of(0)};
  l.dynamic_shared = 16;
  const Outcome o = run_kernel(parse_program(instr_kernel(body, decls)), l, Schedule::round_robin());
  ASSERT_TRUE(o.findings.empty()) << instr_messages(o);
  const auto out = ints_of(o.buffers.at(0));
  for (int t = 0; t < 8; ++t) EXPECT_EQ(out.at(static_cast<std::size_t>(t)), 2000 + t % 4 + 8) << t;
  l.dynamic_shared = 8;  // too small for 4 threads' words
  EXPECT_NE(run_kernel(parse_program(instr_kernel(body, decls)), l, Schedule::round_robin()).first("out-of-bounds"),
            nullptr);
}

TEST(PtxAtomics, EveryAddIsCountedAndEachOldValueIsUnique) {
  // Thread t adds 1 to word 64 (past the 64 threads' words) and keeps the old value.
  const std::string body = R"(  add.s64 %rd5, %rd2, 256;
  atom.global.add.u32 %r10, [%rd5], 1;)";
  for (const Schedule& s : {Schedule::round_robin(), Schedule::seeded_random(3), Schedule::switch_every_access(4)}) {
    const Outcome o = instr_run(body, 2, 32, s, "", 1);
    ASSERT_TRUE(o.findings.empty()) << instr_messages(o);
    auto out = ints_of(o.buffers.at(0));
    EXPECT_EQ(out.at(64), 64);
    out.resize(64);
    std::sort(out.begin(), out.end());
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], i);
  }
}

TEST(PtxAtomics, CasExchIncDecMinMax) {
  const std::string body = R"(  add.s64 %rd5, %rd2, 4;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra $L_done;
  atom.global.cas.b32 %r5, [%rd5], 0, 10;
  atom.global.exch.b32 %r6, [%rd5], 20;
  atom.global.inc.u32 %r7, [%rd5], 20;
  atom.global.dec.u32 %r8, [%rd5], 5;
  atom.global.min.s32 %r9, [%rd5], -3;
  atom.global.max.u32 %r11, [%rd5], 7;
  ld.global.u32 %r12, [%rd5];
  mul.lo.s32 %r6, %r6, 100;
  mul.lo.s32 %r7, %r7, 10000;
  add.s32 %r10, %r5, %r6;
  add.s32 %r10, %r10, %r7;
  add.s32 %r10, %r10, %r8;
  add.s32 %r10, %r10, %r9;
  add.s32 %r10, %r10, %r11;
  add.s32 %r10, %r10, %r12;
$L_done:)";
  const Outcome o = instr_run(body, 1, 1, Schedule::round_robin(), "", 1);
  ASSERT_TRUE(o.findings.empty()) << instr_messages(o);
  // cas: old 0 -> 10; exch: old 10 -> 20; inc(20): old 20 >= 20 -> 0; dec(5): old 0 -> 5;
  // min(-3): old 5 -> -3; max.u32(7): old -3 (0xfffffffd) stays; final 0xfffffffd.
  EXPECT_EQ(ints_of(o.buffers.at(0)).at(0), 0 + 1000 + 200000 + 0 + 5 + (-3) + (-3));
}

}  // namespace
}  // namespace cudasync::ptx
