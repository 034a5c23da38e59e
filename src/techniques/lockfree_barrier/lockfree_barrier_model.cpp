#include "techniques/lockfree_barrier/lockfree_barrier_model.hpp"

#include <algorithm>

#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"

namespace cudasync::lockfree_barrier {

namespace {

struct BarrierName {
  Barrier barrier;
  const char* key;
  const char* heading;  // the catalog key of its title
};

const BarrierName kNames[] = {
    {Barrier::relaunch, "relaunch", "title.relaunch"},
    {Barrier::graph, "graph", "title.graph"},
    {Barrier::xf_lock, "xf-lock", "title.xf-lock"},
    {Barrier::xf_lockfree, "xf-lockfree", "title.xf-lockfree"},
    {Barrier::grid_sync, "grid-sync", "title.grid-sync"},
    {Barrier::own, "own", "title.own"},
    {Barrier::own_cluster, "own-cluster", "title.own-cluster"},
    {Barrier::xf_lock_unrepaired, "xf-lock-unrepaired", "title.xf-lock-unrepaired"},
    {Barrier::xf_lockfree_unrepaired, "xf-lockfree-unrepaired", "title.xf-lockfree-unrepaired"},
    {Barrier::own_stagger, "own-stagger", "title.own-stagger"},
    {Barrier::own_paced, "own-paced", "title.own-paced"},
};

}  // namespace

const char* barrier_key(Barrier b) {
  for (const auto& n : kNames)
    if (n.barrier == b) return n.key;
  return "?";
}

std::string barrier_title(Barrier b) {
  // The part table is built before the run's language is known: its titles are the catalog's English.
  for (const auto& n : kNames)
    if (n.barrier == b) return words::say_in(words::Lang::en, "lockfree-barrier", n.heading);
  return "?";
}

std::string barrier_heading(Barrier b) {
  for (const auto& n : kNames)
    if (n.barrier == b) return say(n.heading);
  return "?";
}

std::optional<Barrier> barrier_from_key(const std::string& key) {
  for (const auto& n : kNames)
    if (key == n.key) return n.barrier;
  return std::nullopt;
}

const std::vector<Barrier>& all_barriers() {
  static const std::vector<Barrier> v = {Barrier::relaunch,     Barrier::graph,       Barrier::xf_lock,
                                         Barrier::xf_lockfree,  Barrier::grid_sync,   Barrier::own,
                                         Barrier::own_cluster,  Barrier::xf_lock_unrepaired, Barrier::xf_lockfree_unrepaired};
  return v;
}

int own_counters_for(int blocks) {
  if (blocks <= 192) return 1;
  return std::clamp((blocks + 527) / 528, 2, kMaxOwnCounters);
}

int own_pollers_for(int blocks, int sm_count, int threads) {
  if (blocks <= 0 || sm_count <= 0) return 1;
  return std::clamp(std::min(4 * sm_count / blocks, threads / kWarpSize), 1, kMaxOwnPollers);
}

int own_share(int blocks, int counters, int l) {
  if (counters <= 0 || l < 0 || l >= counters || l >= blocks) return 0;
  return (blocks - l + counters - 1) / counters;
}

Coresidency model_coresidency(int threads) {
  return assumed_coresidency(threads, 32, kH100Limits, say("model.assumed"));
}

Coresidency model_cluster_coresidency(int threads, int cluster_size) {
  return assumed_cluster_coresidency(model_coresidency(threads), cluster_size,
                                     say("model.assumed-clusters"));
}

int own_cluster_size(int blocks, const std::vector<Coresidency>& by_size) {
  int best = 1, best_limit = -1;
  for (int i = kClusterSizeCount - 1; i >= 0; --i) {
    const int cs = kClusterSizes[i];
    if (blocks % cs != 0 || static_cast<std::size_t>(i) >= by_size.size()) continue;
    const int limit = by_size[static_cast<std::size_t>(i)].limit();
    if (blocks <= limit) return cs;
    if (limit > best_limit) {
      best = cs;
      best_limit = limit;
    }
  }
  return best;
}

std::vector<std::uint32_t> initial_values(int blocks, int threads, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads);
  std::vector<std::uint32_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = initial_value(seed, static_cast<std::uint32_t>(i));
  return x;
}

std::vector<std::uint32_t> model_values(int blocks, int threads, int phases, std::uint64_t seed) {
  std::vector<std::uint32_t> cur = initial_values(blocks, threads, seed), next(cur.size());
  const auto T = static_cast<std::size_t>(threads);
  const auto N = static_cast<std::size_t>(blocks);
  for (int p = 1; p <= phases; ++p) {
    for (std::size_t b = 0; b < N; ++b) {
      const std::size_t right = (b + 1) % N, left = (b + N - 1) % N;
      for (std::size_t t = 0; t < T; ++t)
        next[b * T + t] = mix(cur[b * T + t], cur[right * T + t], cur[left * T + (t + 1) % T], static_cast<std::uint32_t>(p));
    }
    cur.swap(next);
  }
  return cur;
}

std::vector<std::uint32_t> final_words(Barrier b, int blocks, int phases, int own_counters) {
  const auto k = static_cast<std::uint32_t>(std::max(0, phases - 1));
  const auto N = static_cast<std::uint32_t>(blocks);
  switch (b) {
    case Barrier::xf_lock:
    case Barrier::xf_lock_unrepaired: return {k * N};
    case Barrier::xf_lockfree:
    case Barrier::xf_lockfree_unrepaired: return std::vector<std::uint32_t>(2 * static_cast<std::size_t>(blocks), k);
    case Barrier::own:
    case Barrier::own_cluster: {
      std::vector<std::uint32_t> w;
      for (int l = 0; l < own_counters; ++l) w.push_back(k * static_cast<std::uint32_t>(own_share(blocks, own_counters, l)));
      return w;
    }
    default: return {};
  }
}

std::string block_ranges(const std::vector<int>& blocks, std::size_t max_ranges) {
  std::vector<int> v = blocks;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string s;
  std::size_t ranges = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (ranges == max_ranges) {
      s += ", ... (" + std::to_string(v.size() - i) + " more)";
      break;
    }
    s += (s.empty() ? "" : ", ") + std::to_string(v[i]) + (j > i ? "-" + std::to_string(v[j]) : "");
    ++ranges;
    i = j + 1;
  }
  return s;
}

}  // namespace cudasync::lockfree_barrier
