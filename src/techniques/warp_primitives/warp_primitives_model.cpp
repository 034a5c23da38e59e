#include "techniques/warp_primitives/warp_primitives_model.hpp"

namespace cudasync::warp_primitives {

std::array<ShuffleLane, kWarpSize> model_shuffle(const ShuffleSpec& spec) {
  std::array<ShuffleLane, kWarpSize> out{};
  const int w = spec.width;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    ShuffleLane& r = out[static_cast<std::size_t>(lane)];
    const int base = lane & ~(w - 1);  // first lane of this lane's width segment
    r.segment_lane = lane & (w - 1);
    if (!spec.warp.calls(lane)) {
      r.outcome = LaneOutcome::inactive;
      r.source = lane;
      continue;
    }
    int src = lane;
    bool in_range = true;
    switch (spec.op) {
      case ShuffleOp::idx:  // srcLane is taken modulo width, inside the caller's segment
        src = base + (spec.param & (w - 1));
        break;
      case ShuffleOp::up:  // no wrap: lanes below delta keep their own value
        in_range = r.segment_lane >= spec.param;
        src = lane - spec.param;
        break;
      case ShuffleOp::down:
        in_range = r.segment_lane + spec.param < w;
        src = lane + spec.param;
        break;
      case ShuffleOp::bfly:  // an earlier segment may be read; a later one is not (PTX: j <= maxLane)
        src = lane ^ spec.param;
        in_range = src <= base + w - 1;
        break;
    }
    if (!in_range) {
      r.outcome = LaneOutcome::kept_own;
      r.source = lane;
      r.value = spec.values[static_cast<std::size_t>(lane)];
    } else if (!spec.warp.calls(src)) {
      r.outcome = LaneOutcome::undefined_source;
      r.source = src;
    } else {
      r.outcome = LaneOutcome::received;
      r.source = src;
      r.value = spec.values[static_cast<std::size_t>(src)];
    }
  }
  return out;
}

VoteLanes model_votes(const VoteSpec& spec) {
  const std::uint32_t calling = spec.warp.calling();
  std::uint32_t ballot = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (spec.warp.calls(lane) && spec.predicate[static_cast<std::size_t>(lane)]) ballot |= 1u << lane;
  bool same_key = true;
  int first = -1;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!spec.warp.calls(lane)) continue;
    if (first < 0) first = lane;
    else if (spec.key[static_cast<std::size_t>(lane)] != spec.key[static_cast<std::size_t>(first)]) same_key = false;
  }
  VoteLanes v{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    if (!spec.warp.calls(lane)) continue;
    v.ballot[l] = ballot;
    v.all[l] = ballot == calling ? 1 : 0;
    v.any[l] = ballot != 0 ? 1 : 0;
    v.activemask[l] = calling;
    std::uint32_t peers = 0;
    for (int other = 0; other < kWarpSize; ++other)
      if (spec.warp.calls(other) && spec.key[static_cast<std::size_t>(other)] == spec.key[l]) peers |= 1u << other;
    v.match_any[l] = peers;
    v.match_all[l] = same_key ? calling : 0u;
    v.match_all_pred[l] = same_key ? 1 : 0;
  }
  return v;
}

ReduceLanes model_reduce(const VoteSpec& spec) {
  std::uint32_t sum = 0, lo = 0xffffffffu, hi = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!spec.warp.calls(lane)) continue;
    const auto u = static_cast<std::uint32_t>(spec.values[static_cast<std::size_t>(lane)]);
    sum += u;  // unsigned: wraps modulo 2^32 exactly like the hardware
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
  }
  ReduceLanes r{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!spec.warp.calls(lane)) continue;
    const auto l = static_cast<std::size_t>(lane);
    r.add[l] = sum;
    r.min[l] = lo;
    r.max[l] = hi;
  }
  return r;
}

SharedWords syncwarp_input(const Lanes& values) {
  SharedWords s{};
  for (int i = 0; i < kWarpSize; ++i) s[static_cast<std::size_t>(i)] = values[static_cast<std::size_t>(i)];
  return s;
}

SharedWords model_syncwarp(const Lanes& values, SyncwarpVariant variant) {
  SharedWords s = syncwarp_input(values);
  for (int offset = 16; offset > 0; offset >>= 1) {
    // Every lane reads before any lane writes: what __syncwarp guarantees for the guarded and
    // register variants, and what a converged warp happens to do for the racy one.
    SharedWords next = s;
    for (int t = 0; t < kWarpSize; ++t) {
      const auto i = static_cast<std::size_t>(t);
      const auto j = static_cast<std::size_t>(t + offset);
      if (variant == SyncwarpVariant::guarded && t >= offset) continue;
      next[i] = s[i] + s[j];
    }
    s = next;
  }
  return s;
}

SharedWords model_syncwarp_racy_descending(const Lanes& values) {
  SharedWords s = syncwarp_input(values);
  for (int offset = 16; offset > 0; offset >>= 1)
    for (int t = kWarpSize - 1; t >= 0; --t)
      s[static_cast<std::size_t>(t)] += s[static_cast<std::size_t>(t + offset)];
  return s;
}

ReductionTrace model_reduction_trace(const Lanes& values, ShuffleOp op) {
  ReductionTrace trace{};
  trace[0] = values;
  Lanes v = values;
  int step = 1;
  for (int offset = 16; offset > 0; offset >>= 1, ++step) {
    ShuffleSpec s;
    s.op = op;
    s.param = offset;
    s.width = kWarpSize;
    s.values = v;
    const auto got = model_shuffle(s);
    for (int lane = 0; lane < kWarpSize; ++lane) {
      const auto l = static_cast<std::size_t>(lane);
      v[l] = v[l] + got[l].value;
    }
    trace[static_cast<std::size_t>(step)] = v;
  }
  return trace;
}

int divergence_case(SwitchOn on, int thread) { return on == SwitchOn::warp ? thread / kWarpSize : thread % kWarpSize; }

std::uint32_t case_work(int c, int thread, int iterations) {
  auto x = static_cast<std::uint32_t>(thread);
  for (int i = 0; i < iterations; ++i) x = x * 3u + static_cast<std::uint32_t>(c);
  return x;
}

std::uint32_t path_lanes(SwitchOn on, int thread) {
  const int first = thread - thread % kWarpSize;
  std::uint32_t lanes = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (divergence_case(on, first + lane) == divergence_case(on, thread)) lanes |= 1u << lane;
  return lanes;
}

std::vector<PathStep> model_paths(SwitchOn on) {
  std::vector<PathStep> steps;
  for (int warp = 0; warp < kDivergenceWarps; ++warp)
    for (int c = 0; c < kDivergenceCases; ++c) {
      std::uint32_t lanes = 0;
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (divergence_case(on, warp * kWarpSize + lane) == c) lanes |= 1u << lane;
      if (lanes != 0) steps.push_back({warp, c, lanes});
    }
  return steps;
}

TileLanes model_tiles(const Lanes& values, const Lanes& predicate) {
  TileLanes t{};
  ShuffleSpec down;
  down.op = ShuffleOp::down;
  down.param = 1;
  down.width = kTileSize;
  down.values = values;
  const auto shuffled = model_shuffle(down);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto l = static_cast<std::size_t>(lane);
    t.g32_rank[l] = lane % kWarpSize;
    t.g32_size[l] = kWarpSize;
    t.g4_rank[l] = lane % kTileSize;
    t.g4_size[l] = kTileSize;
    t.shfl_down[l] = shuffled[l].value;
    const int base = lane - lane % kTileSize;
    std::uint32_t ballot = 0;
    for (int r = 0; r < kTileSize; ++r)
      if (predicate[static_cast<std::size_t>(base + r)] != 0) ballot |= 1u << r;
    t.ballot[l] = ballot;
    t.any[l] = ballot != 0 ? 1 : 0;
    t.all[l] = ballot == (1u << kTileSize) - 1u ? 1 : 0;
  }
  return t;
}

Shuffle64Lanes model_shuffle64(const ShuffleSpec& spec) {
  const auto lanes = model_shuffle(spec);
  Shuffle64Lanes r{};
  for (std::size_t l = 0; l < kWarpSize; ++l) {
    if (!lanes[l].defined()) continue;
    const std::int32_t x = spec.values[static_cast<std::size_t>(lanes[l].source)];
    r.ll[l] = wide_long_long(x);
    r.dbl[l] = wide_double(x);
  }
  return r;
}

}  // namespace cudasync::warp_primitives
