// core/ptx against the hardware: warp_probe.ptx (nvcc output, inline asm with nested blocks
// included) run by the model under several schedules gives, value for value, what an H200 gave for
// the same PTX (tests/core/ptx/warp_probe.h200.txt: shfl.sync in every mode over clamp and segment
// words, vote, match, redux, and integer and float arithmetic and conversions).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/ptx/ptx_machine.hpp"

namespace cudasync::ptx {
namespace {

std::string probe_text(const std::string& name) {
  std::ifstream in(std::string(CUDASYNC_SOURCE_DIR) + "/tests/core/ptx/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "in N v..." and "out M v..." lines of the GPU's answer.
std::vector<std::int32_t> probe_values(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream w(line);
    std::string k;
    std::size_t n = 0;
    if (!(w >> k) || k != key || !(w >> n)) continue;
    std::vector<std::int32_t> v(n);
    for (auto& x : v) w >> x;
    return v;
  }
  return {};
}

TEST(PtxGpuCompare, TheWarpProbeGivesWhatAnH200GaveUnderEverySchedule) {
  const std::string gpu = probe_text("warp_probe.h200.txt");
  const auto in = probe_values(gpu, "in");
  const auto want = probe_values(gpu, "out");
  ASSERT_EQ(in.size(), 256u);
  ASSERT_EQ(want.size(), 64u * 336u);
  const Program p = parse_program(probe_text("warp_probe.ptx"));
  Launch l;
  l.grid = 1;
  l.block = 64;
  l.buffers = {{"in", bytes_of(in)}, {"out", std::vector<std::uint8_t>(want.size() * 4)}};
  l.args = {Arg::buffer_of(0), Arg::buffer_of(1)};
  for (const Schedule& s : {Schedule::round_robin(), Schedule::reverse(), Schedule::seeded_random(5),
                            Schedule::switch_every_access(6)}) {
    const Outcome o = run_kernel(p, l, s);
    ASSERT_TRUE(o.findings.empty()) << s.name() << ": " << o.findings[0].kind << ": " << o.findings[0].message;
    const auto got = ints_of(o.buffers.at(1));
    int wrong = 0;
    for (std::size_t i = 0; i < want.size() && wrong < 10; ++i)
      if (got[i] != want[i]) {
        ++wrong;
        ADD_FAILURE() << s.name() << ": thread " << i / 336 << " output " << i % 336 << ": model " << got[i]
                      << ", H200 " << want[i];
      }
  }
}

}  // namespace
}  // namespace cudasync::ptx
