// core/ptx on real nvcc output (tests/core/ptx/*.cu -> *.ptx, nvcc -ptx -arch=compute_90 -lineinfo):
// a right block_sum and warp_sum give the GPU's answers under every schedule; a missing
// __syncthreads(), a narrowed shuffle mask, a spin that never ends, a barrier in a branch, and
// message passing without (or with too narrow) fences are each found and named by the student's line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include "core/ptx/ptx_machine.hpp"

namespace cudasync::ptx {
namespace {

std::string machine_fixture(const std::string& name) {
  std::ifstream in(std::string(CUDASYNC_SOURCE_DIR) + "/tests/core/ptx/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The exercise harness: in[t] -> out[t], grid x block threads.
Launch exercise_launch(int grid, int block, std::vector<std::int32_t> in) {
  Launch l;
  l.grid = grid;
  l.block = block;
  const std::size_t n = static_cast<std::size_t>(grid) * static_cast<std::size_t>(block);
  in.resize(n);
  l.buffers = {{"in", bytes_of(in)}, {"out", std::vector<std::uint8_t>(n * 4)}};
  l.args = {Arg::buffer_of(0), Arg::buffer_of(1)};
  return l;
}

std::vector<std::int32_t> exercise_inputs(std::size_t n, int seed) {
  std::vector<std::int32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>((i * 37 + static_cast<std::size_t>(seed) * 11) % 100);
  return v;
}

std::string machine_messages(const Outcome& o) {
  std::string s;
  for (const auto& f : o.findings) s += f.kind + ": " + f.message + "\n";
  return s;
}

std::vector<Schedule> a_handful(const Launch& l) {
  return {Schedule::round_robin(), Schedule::reverse(), Schedule::seeded_random(1), Schedule::seeded_random(2),
          Schedule::one_ahead(0), Schedule::one_ahead(l.grid * l.block - 1, true), Schedule::switch_every_access(3)};
}

TEST(PtxBlockSum, ARightBlockSumGivesEachBlocksSumInThreadZeroUnderEverySchedule) {
  const Program p = parse_program(machine_fixture("block_sum_right.ptx"));
  const auto in = exercise_inputs(8 * 128, 5);
  const Launch l = exercise_launch(8, 128, in);
  for (const Schedule& s : a_handful(l)) {
    const Outcome o = run_kernel(p, l, s);
    ASSERT_TRUE(o.findings.empty()) << s.name() << "\n" << machine_messages(o);
    ASSERT_TRUE(o.finished) << s.name();
    const auto out = ints_of(o.buffers.at(1));
    for (int b = 0; b < 8; ++b) {
      const auto from = in.begin() + b * 128;
      EXPECT_EQ(out[static_cast<std::size_t>(b) * 128], std::accumulate(from, from + 128, 0)) << s.name() << " block " << b;
    }
  }
}

TEST(PtxBlockSum, WithoutSyncthreadsARaceNamesTheSharedStoreAndTheSharedLoad) {
  const Program p = parse_program(machine_fixture("block_sum_no_sync.ptx"));
  const Launch l = exercise_launch(8, 128, exercise_inputs(8 * 128, 1));
  const Outcome o = check_schedules(p, l, a_handful(l));
  const Finding* race = o.first("data-race");
  ASSERT_NE(race, nullptr) << machine_messages(o);
  ASSERT_EQ(race->where.size(), 2u);
  // block_sum_no_sync.cu: line 5 stores the warp's sum, line 6 (the __syncthreads() line is gone)
  // reads the four sums.
  std::vector<std::string> lines = {to_string(race->where[0]), to_string(race->where[1])};
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"block_sum.cu:5", "block_sum.cu:6"})) << race->message;
  EXPECT_NE(race->address.find("warp_sums"), std::string::npos) << race->address;
  EXPECT_NE(race->message.find("block_sum.cu:5"), std::string::npos);
  EXPECT_FALSE(race->schedule.empty());
  ASSERT_EQ(race->threads.size(), 2u);
  EXPECT_EQ(race->threads[0].block, race->threads[1].block);
}

// block_sum_right.nvrtc.ptx and block_sum_no_sync.nvrtc.ptx: the same .cu files compiled by NVRTC
// 13.0 (nvrtcCompileProgram with --gpu-architecture=compute_90 -lineinfo -std=c++17), as the
// exercise command compiles a student's file; NVRTC addresses shared memory with 64-bit registers.
TEST(PtxBlockSum, NvrtcsOwnPtxGivesTheSameSumsAndTheSameRace) {
  const auto in = exercise_inputs(8 * 128, 3);
  const Launch l = exercise_launch(8, 128, in);
  const Outcome right = run_kernel(parse_program(machine_fixture("block_sum_right.nvrtc.ptx")), l, Schedule::seeded_random(4));
  ASSERT_TRUE(right.findings.empty()) << machine_messages(right);
  const auto out = ints_of(right.buffers.at(1));
  for (int b = 0; b < 8; ++b) {
    const auto from = in.begin() + b * 128;
    EXPECT_EQ(out[static_cast<std::size_t>(b) * 128], std::accumulate(from, from + 128, 0)) << "block " << b;
  }
  const Outcome racy = run_kernel(parse_program(machine_fixture("block_sum_no_sync.nvrtc.ptx")), l, Schedule::reverse());
  const Finding* race = racy.first("data-race");
  ASSERT_NE(race, nullptr) << machine_messages(racy);
  std::vector<std::string> lines = {to_string(race->where[0]), to_string(race->where[1])};
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"block_sum.cu:5", "block_sum.cu:6"})) << race->message;
}

TEST(PtxWarpSum, AnXorShuffleGivesEveryLaneItsWarpsSum) {
  const Program p = parse_program(machine_fixture("warp_sum_right.ptx"));
  const auto in = exercise_inputs(64, 2);
  const Launch l = exercise_launch(1, 64, in);
  for (const Schedule& s : a_handful(l)) {
    const Outcome o = run_kernel(p, l, s);
    ASSERT_TRUE(o.findings.empty()) << s.name() << "\n" << machine_messages(o);
    const auto out = ints_of(o.buffers.at(1));
    for (int t = 0; t < 64; ++t) {
      const auto from = in.begin() + t / 32 * 32;
      EXPECT_EQ(out[static_cast<std::size_t>(t)], std::accumulate(from, from + 32, 0)) << s.name() << " lane " << t;
    }
  }
}

TEST(PtxWarpSum, AMaskNarrowedToSixteenLanesIsReportedAtTheShuffle) {
  const Program p = parse_program(machine_fixture("warp_sum_half_mask.ptx"));
  const Launch l = exercise_launch(1, 64, exercise_inputs(64, 2));
  for (const Schedule& s : a_handful(l)) {
    const Outcome o = run_kernel(p, l, s);
    const Finding* f = o.first("warp-mask");
    ASSERT_NE(f, nullptr) << s.name() << "\n" << machine_messages(o);
    EXPECT_EQ(to_string(f->where.at(0)), "warp_sum.cu:2") << f->message;
    EXPECT_NE(f->message.find("0x0000ffff"), std::string::npos) << f->message;
  }
}

TEST(PtxSpin, ASpinThatNeverEndsStopsAtTheStepLimitNamingItsLine) {
  const Program p = parse_program(machine_fixture("spin_forever.ptx"));
  Launch l = exercise_launch(1, 32, exercise_inputs(32, 0));
  l.limits.max_steps = 20000;
  const Outcome o = run_kernel(p, l, Schedule::round_robin());
  const Finding* f = o.first("step-limit");
  ASSERT_NE(f, nullptr) << machine_messages(o);
  EXPECT_FALSE(o.finished);
  EXPECT_NE(f->message.find("20000 steps"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("spin.cu:3"), std::string::npos) << f->message;
}

TEST(PtxBarrier, ASyncthreadsInsideABranchIsBarrierDivergenceAtItsLine) {
  const Program p = parse_program(machine_fixture("sync_in_branch.ptx"));
  const Launch l = exercise_launch(1, 128, exercise_inputs(128, 0));
  for (const Schedule& s : {Schedule::round_robin(), Schedule::reverse(), Schedule::seeded_random(4)}) {
    const Outcome o = run_kernel(p, l, s);
    const Finding* f = o.first("barrier-divergence");
    ASSERT_NE(f, nullptr) << s.name() << "\n" << machine_messages(o);
    EXPECT_EQ(to_string(f->where.at(0)), "block_sum.cu:5") << f->message;
    EXPECT_NE(f->message.find("64-127"), std::string::npos) << f->message;
  }
}

// Message passing: block 0's thread 0 writes data then a flag, block 1's thread 0 spins on the flag
// and reads the data.
Launch message_launch() {
  Launch l;
  l.entry = "message";
  l.grid = 2;
  l.block = 32;
  l.buffers = {{"data", std::vector<std::uint8_t>(4)}, {"flag", std::vector<std::uint8_t>(4)},
               {"out", std::vector<std::uint8_t>(4)}};
  l.args = {Arg::buffer_of(0), Arg::buffer_of(1), Arg::buffer_of(2)};
  l.limits.max_steps = 200000;
  return l;
}

std::vector<Schedule> message_schedules() {
  return {Schedule::round_robin(), Schedule::reverse(), Schedule::one_ahead(32), Schedule::seeded_random(7),
          Schedule::switch_every_access(8)};
}

TEST(PtxMessage, DataThenFlagWithThreadfenceOnBothSidesHasNoRace) {
  const Program p = parse_program(machine_fixture("message_fenced.ptx"));
  for (const Schedule& s : message_schedules()) {
    const Outcome o = run_kernel(p, message_launch(), s);
    EXPECT_TRUE(o.findings.empty()) << s.name() << "\n" << machine_messages(o);
    EXPECT_TRUE(o.finished);
    EXPECT_EQ(ints_of(o.buffers.at(2)).at(0), 42) << s.name();
  }
}

TEST(PtxMessage, WithoutTheFencesTheDataIsARace) {
  const Program p = parse_program(machine_fixture("message_unfenced.ptx"));
  const Outcome o = check_schedules(p, message_launch(), message_schedules());
  const Finding* race = o.first("data-race");
  ASSERT_NE(race, nullptr) << machine_messages(o);
  EXPECT_EQ(race->address, "data+0");
  EXPECT_EQ(to_string(race->where.at(0)), "message.cu:3");
  EXPECT_EQ(to_string(race->where.at(1)), "message.cu:11");
  EXPECT_EQ(race->threads.at(0).block, 0);
  EXPECT_EQ(race->threads.at(1).block, 1);
}

TEST(PtxMessage, ABlockScopedFenceDoesNotOrderAcrossBlocks) {
  const Program p = parse_program(machine_fixture("message_block_fence.ptx"));
  const Outcome o = check_schedules(p, message_launch(), message_schedules());
  const Finding* race = o.first("data-race");
  ASSERT_NE(race, nullptr) << machine_messages(o);
  EXPECT_EQ(race->address, "data+0");
}

TEST(PtxUnsupported, AnUnknownInstructionIsNamedWithItsLine) {
  const std::string text = replaced(machine_fixture("block_sum_right.ptx"), "ld.global.u32 \t%r8, [%rd6];",
                                    "tex.1d.v4.s32.s32 \t{%r8, %r40, %r41, %r42}, [tex_in, {%r7}];");
  const Program p = parse_program(text);
  const Outcome o = run_kernel(p, exercise_launch(8, 128, exercise_inputs(8 * 128, 0)), Schedule::round_robin());
  const Finding* f = o.first("unsupported-instruction");
  ASSERT_NE(f, nullptr) << machine_messages(o);
  EXPECT_NE(f->message.find("tex.1d.v4.s32.s32"), std::string::npos) << f->message;
  ASSERT_EQ(f->ptx_lines.size(), 1u);
  std::istringstream lines(text);
  std::string line;
  int n = 0, at = 0;
  while (std::getline(lines, line))
    if (++n && line.find("tex.1d") != std::string::npos) at = n;
  EXPECT_EQ(f->ptx_lines[0], at);
  EXPECT_NE(f->message.find("line " + std::to_string(at)), std::string::npos) << f->message;
}

TEST(PtxUnsupported, WmmaIsNamedToo) {
  const std::string text = replaced(machine_fixture("warp_sum_right.ptx"), "ret;",
                                    "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2}, [%rd1];\n\tret;");
  const Outcome o = run_kernel(parse_program(text), exercise_launch(1, 64, exercise_inputs(64, 0)), Schedule::round_robin());
  const Finding* f = o.first("unsupported-instruction");
  ASSERT_NE(f, nullptr) << machine_messages(o);
  EXPECT_NE(f->message.find("wmma.load"), std::string::npos) << f->message;
}

TEST(PtxUnsupported, AMalformedLineInAFixtureNamesItsLine) {
  const std::string text = replaced(machine_fixture("warp_sum_right.ptx"), "ret;", "ret %r1 %r2;");
  try {
    parse_program(text);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "malformed");
    EXPECT_GT(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("line " + std::to_string(e.line())), std::string::npos);
  }
}

}  // namespace
}  // namespace cudasync::ptx
