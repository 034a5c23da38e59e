#pragma once
// What the multi-gpu tests share: made-up GPU counts, and the lines of a text wider than a terminal.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "techniques/multi_gpu/flags.hpp"

namespace cudasync::multi_gpu::test_support {

// One flag configuration's outcomes, as a grid of 132 blocks of 256 threads in one round reports them.
inline FlagCounts counts(std::uint64_t fresh, std::uint64_t stale, std::uint64_t timed_out = 0) {
  FlagCounts c;
  c.fresh = fresh;
  c.stale = stale;
  c.timed_out = timed_out;
  c.instances = fresh + stale + timed_out;
  c.blocks = 132;
  c.threads = 256;
  c.rounds = 1;
  return c;
}

// "line N: TEXT" for each line of `text` longer than `columns` bytes (the output is ASCII).
inline std::vector<std::string> wider_lines(const std::string& text, std::size_t columns = 80) {
  std::vector<std::string> out;
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (++n, line.size() > columns) out.push_back("line " + std::to_string(n) + ": " + line);
  return out;
}

}  // namespace cudasync::multi_gpu::test_support
