#pragma once
// Who was stuck, and on whom: the per-block records folded into ranges ("blocks 0-1055: spun on the
// counter at 1056/2112"), and the wait-for graph (an edge from a waiter to the one it waits for,
// labelled with what it waits on) with the cycle that makes a deadlock. The GPU's records and the
// model's predictions go through the same folding, so the two can be compared range by range.
// Host-only code, no CUDA.
#include <functional>
#include <string>
#include <vector>

#include "techniques/deadlock_demo/deadlock_demo.hpp"

namespace cudasync::deadlock_demo {

// Consecutive records with the same state and the same description.
struct Range {
  int first = 0, last = 0;
  State state = State::never_started;
  std::string what;  // "spun on the counter at 1056/2112"
  bool operator==(const Range& o) const {
    return first == o.first && last == o.last && state == o.state && what == o.what;
  }
};

// describe(i, record) says what record i did, without times (times differ run to run); records
// whose state and description agree with the one before join its range.
using Describe = std::function<std::string(int, const Record&)>;
std::vector<Range> fold(const std::vector<Record>& records, const Describe& describe);

// A count as text ("1056"), for the sentences that quote one.
inline std::string number_text(long long v) { return std::to_string(v); }
// "blocks 0-1055", "block 7", "lanes 0-31"; `noun` is the singular ("block", "lane", "thread").
std::string span_text(int first, int last, const std::string& noun);
// "blocks 0-1055 spun on the counter at 1056/2112"
std::string range_text(const Range& r, const std::string& noun);
// The ranges joined with "; ".
std::string ranges_text(const std::vector<Range>& rs, const std::string& noun);
// How many records the ranges in state `s` cover.
int count_in(const std::vector<Range>& rs, State s);

// A wait-for graph. Nodes are whatever waits (a block, a lane, a range of them); an edge a -> b
// says a cannot go on until b does something (`on` says what).
struct WaitGraph {
  struct Edge {
    int from = 0, to = 0;
    std::string on;
  };
  std::vector<std::string> nodes;
  std::vector<Edge> edges;

  int add_node(const std::string& name);  // returns its index; an existing name returns the same index
  void add_edge(int from, int to, const std::string& on);
  // The nodes around one cycle, in order (the first is not repeated at the end); empty when the
  // graph has none. Deterministic: starts from the lowest node on a cycle.
  std::vector<int> find_cycle() const;
  // "block 0 -> block 1 -> block 0"; long cycles are shortened: "lane 0 -> lane 1 -> lane 2 -> ... ->
  // lane 31 -> lane 0 (32 nodes)". "" when there is no cycle.
  std::string cycle_text() const;
};

}  // namespace cudasync::deadlock_demo
