#include "techniques/threadfence/threadfence_race_model.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

#include <algorithm>
#include <queue>
#include <random>

namespace cudasync::threadfence {

// ---- WorkQueue race ---------------------------------------------------------------------------------

RaceSpec make_race_spec(std::uint64_t seed) {
  RaceSpec s;
  constexpr int kItems = 64;
  std::mt19937_64 rng(seed * 0xA24BAED4963EE407ull + 29);
  s.cost_units.resize(kItems);
  s.share.resize(static_cast<std::size_t>(kItems * s.warps()));
  for (int i = 0; i < kItems; ++i) {
    s.cost_units[static_cast<std::size_t>(i)] = 1u + static_cast<std::uint32_t>(rng() % 4);
    for (int w = 0; w < s.warps(); ++w)
      s.share[static_cast<std::size_t>(i * s.warps() + w)] = w == 0 ? kWarpZeroShare : (rng() % 2 ? 3u : 1u);
  }
  return s;
}

std::string to_string(RaceVariant v) {
  return v == RaceVariant::barrier ? std::string("__syncthreads()") : say("race.no-barrier");
}

const char* race_id(RaceVariant v) { return v == RaceVariant::barrier ? "barrier" : "no-barrier"; }

namespace {

std::uint32_t share_of(const RaceSpec& s, std::int32_t item, int warp) {
  return s.share[static_cast<std::size_t>(item) * static_cast<std::size_t>(s.warps()) + static_cast<std::size_t>(warp)];
}

long long warp_cycles(const RaceSpec& s, std::int32_t item, int warp) {
  return static_cast<long long>(s.cost_units[static_cast<std::size_t>(item)]) * share_of(s, item, warp) * s.unit_cycles;
}

long long block_cycles(const RaceSpec& s, std::int32_t item) {
  long long m = 0;
  for (int w = 0; w < s.warps(); ++w) m = std::max(m, warp_cycles(s, item, w));
  return m;
}

}  // namespace

std::int32_t filed_under(const RaceSpec& spec, RaceVariant v, std::int32_t item, std::int32_t next, int warp) {
  if (v == RaceVariant::barrier || warp == 0) return item;
  return share_of(spec, item, warp) > share_of(spec, item, 0) ? next : item;
}

std::vector<std::vector<std::int32_t>> race_schedule(const RaceSpec& spec, RaceVariant v) {
  std::vector<std::vector<std::int32_t>> seq(static_cast<std::size_t>(spec.blocks));
  using Fetch = std::pair<long long, int>;  // (time, block): the earliest first, then the lower block
  std::priority_queue<Fetch, std::vector<Fetch>, std::greater<Fetch>> fetches;
  std::vector<long long> turn_start(static_cast<std::size_t>(spec.blocks), 0);
  for (int b = 0; b < spec.blocks; ++b) fetches.push({0, b});
  std::int32_t next = 0;
  while (!fetches.empty()) {
    const auto [t, b] = fetches.top();
    fetches.pop();
    auto& mine = seq[static_cast<std::size_t>(b)];
    const std::int32_t item = next < spec.items() ? next++ : kNoItem;
    // The turn this fetch feeds starts when the whole block has reached fetch()'s barrier.
    long long& start = turn_start[static_cast<std::size_t>(b)];
    if (!mine.empty()) start += block_cycles(spec, mine.back());
    mine.push_back(item);
    if (item == kNoItem) continue;
    fetches.push({start + (v == RaceVariant::barrier ? block_cycles(spec, item) : warp_cycles(spec, item, 0)), b});
  }
  return seq;
}

RaceCounts race_counts(const RaceSpec& spec, RaceVariant v, const std::vector<std::vector<std::int32_t>>& fetched) {
  RaceCounts r;
  r.counts.assign(static_cast<std::size_t>(spec.items() * spec.warps()), 0);
  for (const auto& seq : fetched)
    for (std::size_t k = 0; k < seq.size(); ++k) {
      const std::int32_t item = seq[k];
      if (item < 0) break;
      const std::int32_t next = k + 1 < seq.size() ? seq[k + 1] : kNoTurn;
      for (int w = 0; w < spec.warps(); ++w) {
        const std::int32_t f = filed_under(spec, v, item, next, w);
        if (f == kNoTurn) {
          ++r.unknown;
          continue;
        }
        if (f != item) ++r.misfiled;
        if (f >= 0) ++r.counts[static_cast<std::size_t>(f * spec.warps() + w)];
      }
    }
  return r;
}

RaceSummary summarize_counts(const std::vector<std::uint32_t>& counts) {
  RaceSummary s;
  s.portions = counts.size();
  for (auto c : counts) {
    s.once += c == 1 ? 1 : 0;
    s.lost += c == 0 ? 1 : 0;
    s.twice += c >= 2 ? 1 : 0;
  }
  return s;
}

// ---- lastBlock called by only some threads -----------------------------------------------------------

PartialSpec make_partial_spec(std::uint64_t seed) {
  PartialSpec s;
  std::mt19937_64 rng(seed * 0x9FB21C651E98DF25ull + 41);
  s.input.resize(static_cast<std::size_t>(s.data_blocks * s.threads));
  for (auto& x : s.input) x = static_cast<std::uint32_t>(rng() >> 44);  // 0..1048575
  return s;
}

std::string to_string(PartialVariant v) {
  switch (v) {
    case PartialVariant::every_block: return say("partial.every-block");
    case PartialVariant::skipping_blocks: return say("partial.skipping-blocks");
    case PartialVariant::thread_zero_only: return say("partial.thread-zero-only");
  }
  return "?";
}

const char* partial_id(PartialVariant v) {
  switch (v) {
    case PartialVariant::every_block: return "every-block";
    case PartialVariant::skipping_blocks: return "skipping-blocks";
    case PartialVariant::thread_zero_only: return "thread-zero-only";
  }
  return "?";
}

std::uint64_t partial_sum(const PartialSpec& spec) {
  std::uint64_t s = 0;
  for (auto x : spec.input) s += x;
  return s;
}

PartialPrediction partial_model(const PartialSpec& spec, PartialVariant v) {
  PartialPrediction p;
  switch (v) {
    case PartialVariant::every_block:
      p.tickets = static_cast<std::uint32_t>(spec.blocks);
      p.merged = true;
      p.why = say("partial.why-every-block");
      break;
    case PartialVariant::skipping_blocks:
      p.tickets = static_cast<std::uint32_t>(spec.data_blocks);
      p.why = say("partial.why-skipping-blocks",
                  {{"data-blocks", spec.data_blocks}, {"last", spec.data_blocks - 1}, {"grid-last", spec.blocks - 1}});
      break;
    case PartialVariant::thread_zero_only:
      p.defined = false;
      p.tickets = static_cast<std::uint32_t>(spec.blocks);
      p.why = say("partial.why-thread-zero-only");
      break;
  }
  return p;
}

}  // namespace cudasync::threadfence
