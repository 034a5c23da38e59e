#include "techniques/threadfence/threadfence_model.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <random>

#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

// ---- names ---------------------------------------------------------------------------------------

const char* to_string(Test t) {
  switch (t) {
    case Test::mp: return "mp";
    case Test::sb: return "sb";
    case Test::lb: return "lb";
    case Test::corr: return "corr";
  }
  return "?";
}

const char* to_string(Fence f) {
  switch (f) {
    case Fence::none: return "none";
    case Fence::block: return "block";
    case Fence::device: return "device";
    case Fence::system: return "system";
    case Fence::rel_acq: return "rel-acq";
  }
  return "?";
}

const char* to_string(Access a) { return a == Access::plain ? "plain" : "volatile"; }
const char* to_string(Placement p) { return p == Placement::same_block ? "same-block" : "different-blocks"; }

std::optional<Test> parse_test(const std::string& s) {
  for (int i = 0; i < kTests; ++i)
    if (kTestNames[static_cast<std::size_t>(i)] == s) return static_cast<Test>(i);
  return std::nullopt;
}

std::optional<Fence> parse_fence(const std::string& s) {
  for (int i = 0; i < kFences; ++i)
    if (kFenceNames[static_cast<std::size_t>(i)] == s) return static_cast<Fence>(i);
  return std::nullopt;
}

std::string test_title(Test t) {
  switch (t) {
    case Test::mp: return say("test.mp");
    case Test::sb: return say("test.sb");
    case Test::lb: return say("test.lb");
    case Test::corr: return say("test.corr");
  }
  return "?";
}

std::string fences_text(const LitmusSpec& s) {
  if (s.fence[0] == s.fence[1]) return to_string(s.fence[0]);
  return std::string(to_string(s.fence[0])) + "," + to_string(s.fence[1]);
}

std::string outcome_text(int index) {
  return "r0=" + std::to_string(index / 2) + " r1=" + std::to_string(index % 2);
}

std::string registers_meaning(Test t) {
  switch (t) {
    case Test::mp: return say("test.mp-registers");
    case Test::sb: return say("test.sb-registers");
    case Test::lb: return say("test.lb-registers");
    case Test::corr: return say("test.corr-registers");
  }
  return "";
}

int weak_outcome(Test t) {
  switch (t) {
    case Test::mp: return outcome_index(1, 0);
    case Test::sb: return outcome_index(0, 0);
    case Test::lb: return outcome_index(1, 1);
    case Test::corr: return outcome_index(1, 0);
  }
  return 0;
}

bool meaningful(const LitmusSpec& s) {
  if (s.test == Test::corr && (s.fence[0] == Fence::block || s.fence[0] == Fence::device || s.fence[0] == Fence::system))
    return false;
  if (s.weak_wait && (s.test != Test::mp || s.fence[1] == Fence::rel_acq)) return false;
  return true;
}
// ---- lastBlock ------------------------------------------------------------------------------------

std::vector<std::uint32_t> make_last_block_input(long long n, std::uint64_t seed) {
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 5);
  for (auto& x : v) x = static_cast<std::uint32_t>(rng() >> 48);  // 0..65535: the sum fits easily
  return v;
}

std::uint64_t exact_sum(const std::vector<std::uint32_t>& v) {
  std::uint64_t s = 0;
  for (auto x : v) s += x;
  return s;
}

std::string to_string(LastBlockVariant v) {
  switch (v) {
    case LastBlockVariant::syncthreads_or: return say("guard.syncthreads-or");
    case LastBlockVariant::shared_flag: return say("guard.shared-flag");
    case LastBlockVariant::no_fence: return say("guard.no-fence");
    case LastBlockVariant::other_writer: return say("guard.other-writer");
  }
  return "?";
}

const char* guard_id(LastBlockVariant v) {
  switch (v) {
    case LastBlockVariant::syncthreads_or: return "syncthreads-or";
    case LastBlockVariant::shared_flag: return "shared-flag";
    case LastBlockVariant::no_fence: return "no-fence";
    case LastBlockVariant::other_writer: return "other-writer";
  }
  return "?";
}

bool guard_is_correct(LastBlockVariant v) {
  return v == LastBlockVariant::syncthreads_or || v == LastBlockVariant::shared_flag;
}

// ---- WorkQueue ------------------------------------------------------------------------------------

std::vector<std::uint32_t> make_costs(int items, std::uint64_t seed) {
  std::vector<std::uint32_t> c(static_cast<std::size_t>(items));
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ull + 13);
  for (auto& x : c) x = 1u << (rng() % 6);  // 1, 2, 4, 8, 16 or 32 units
  return c;
}

std::uint64_t Schedule::makespan() const {
  return block_units.empty() ? 0 : *std::max_element(block_units.begin(), block_units.end());
}

Schedule static_schedule(const std::vector<std::uint32_t>& costs, int blocks) {
  Schedule s;
  s.block_units.assign(static_cast<std::size_t>(blocks), 0);
  s.block_items.assign(static_cast<std::size_t>(blocks), 0);
  s.item_block.assign(costs.size(), -1);
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const auto b = i % static_cast<std::size_t>(blocks);
    s.block_units[b] += costs[i];
    s.block_items[b] += 1;
    s.item_block[i] = static_cast<std::int32_t>(b);
  }
  return s;
}

Schedule queue_schedule(const std::vector<std::uint32_t>& costs, int blocks) {
  Schedule s;
  s.block_units.assign(static_cast<std::size_t>(blocks), 0);
  s.block_items.assign(static_cast<std::size_t>(blocks), 0);
  s.item_block.assign(costs.size(), -1);
  using Slot = std::pair<std::uint64_t, int>;  // (free at, block): the smallest first
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> free_at;
  for (int b = 0; b < blocks; ++b) free_at.push({0, b});
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const Slot slot = free_at.top();
    free_at.pop();
    const auto b = static_cast<std::size_t>(slot.second);
    s.block_units[b] += costs[i];
    s.block_items[b] += 1;
    s.item_block[i] = slot.second;
    free_at.push({slot.first + costs[i], slot.second});
  }
  return s;
}

std::uint64_t checksum_of_all(int items) {
  std::uint64_t s = 0;
  for (int i = 0; i < items; ++i) s += item_checksum(static_cast<std::uint32_t>(i));
  return s;
}

}  // namespace cudasync::threadfence
