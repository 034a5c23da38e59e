#include "techniques/deadlock_demo/deadlock_demo_graph.hpp"

#include <algorithm>

namespace cudasync::deadlock_demo {

std::string to_string(State s) {
  switch (s) {
    case State::never_started: return say("state.never-started");
    case State::finished: return say("state.finished");
    case State::gave_up: return say("state.gave-up");
    case State::late: return say("state.late");
  }
  return say("state.never-started");
}

std::vector<Range> fold(const std::vector<Record>& records, const Describe& describe) {
  std::vector<Range> out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const int idx = static_cast<int>(i);
    const State s = static_cast<State>(records[i].state);
    std::string what = describe(idx, records[i]);
    if (!out.empty() && out.back().state == s && out.back().what == what && out.back().last == idx - 1) {
      out.back().last = idx;
      continue;
    }
    out.push_back({idx, idx, s, std::move(what)});
  }
  return out;
}

std::string span_text(int first, int last, const std::string& noun) {
  if (first == last) return say("span.one", {{"noun", noun_word(noun)}, {"index", first}});
  return say("span.many", {{"nouns", nouns_word(noun)}, {"first", first}, {"last", last}});
}

std::string range_text(const Range& r, const std::string& noun) {
  return say("span.did", {{"who", span_text(r.first, r.last, noun)}, {"what", r.what}});
}

std::string ranges_text(const std::vector<Range>& rs, const std::string& noun) {
  std::string s;
  for (const auto& r : rs) s += (s.empty() ? "" : say("list.separator")) + range_text(r, noun);
  return s;
}

int count_in(const std::vector<Range>& rs, State s) {
  int n = 0;
  for (const auto& r : rs)
    if (r.state == s) n += r.last - r.first + 1;
  return n;
}

int WaitGraph::add_node(const std::string& name) {
  const auto it = std::find(nodes.begin(), nodes.end(), name);
  if (it != nodes.end()) return static_cast<int>(it - nodes.begin());
  nodes.push_back(name);
  return static_cast<int>(nodes.size()) - 1;
}

void WaitGraph::add_edge(int from, int to, const std::string& on) { edges.push_back({from, to, on}); }

std::vector<int> WaitGraph::find_cycle() const {
  const int n = static_cast<int>(nodes.size());
  std::vector<std::vector<int>> out(static_cast<std::size_t>(n));
  for (const auto& e : edges) out[static_cast<std::size_t>(e.from)].push_back(e.to);
  // Iterative depth-first search with colours: a grey node reached again closes a cycle, which the
  // path from that node to the top of the stack spells out.
  std::vector<int> colour(static_cast<std::size_t>(n), 0);  // 0 white, 1 grey (on the path), 2 black
  for (int root = 0; root < n; ++root) {
    if (colour[static_cast<std::size_t>(root)] != 0) continue;
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    colour[static_cast<std::size_t>(root)] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& succ = out[static_cast<std::size_t>(v)];
      if (next == succ.size()) {
        colour[static_cast<std::size_t>(v)] = 2;
        stack.pop_back();
        continue;
      }
      const int w = succ[next++];
      if (colour[static_cast<std::size_t>(w)] == 1) {
        std::vector<int> cycle;
        std::size_t k = 0;
        while (stack[k].first != w) ++k;
        for (; k < stack.size(); ++k) cycle.push_back(stack[k].first);
        return cycle;
      }
      if (colour[static_cast<std::size_t>(w)] == 0) {
        colour[static_cast<std::size_t>(w)] = 1;
        stack.push_back({w, 0});
      }
    }
  }
  return {};
}

std::string WaitGraph::cycle_text() const {
  const auto c = find_cycle();
  if (c.empty()) return "";
  const auto name = [&](int i) { return nodes[static_cast<std::size_t>(i)]; };
  std::string s;
  if (c.size() <= 6) {
    for (int v : c) s += name(v) + " -> ";
    return s + name(c.front());
  }
  for (std::size_t i = 0; i < 3; ++i) s += name(c[i]) + " -> ";
  return s + "... -> " + name(c.back()) + " -> " + name(c.front()) + say("graph.nodes", {{"count", c.size()}});
}

}  // namespace cudasync::deadlock_demo
