#pragma once
// warp-primitives: the warp-level functions of seed 002 (sections 10.1-10.3), run in one warp on
// the GPU and computed by the reference model, lane by lane. This header holds the plain structs
// both backends fill; it is compiled by nvcc too, so it includes nothing but the standard library.
#include <array>
#include <cstdint>

namespace cudasync::warp_primitives {

inline constexpr int kWarpSize = 32;
using Lanes = std::array<std::int32_t, kWarpSize>;
using LaneMasks = std::array<std::uint32_t, kWarpSize>;

// Written by the GPU into lanes that never ran the intrinsic, so "not written" is recognisable.
inline constexpr std::int32_t kPoison = static_cast<std::int32_t>(0xABABABABu);

// One warp of `threads` threads (1..32); the lanes in `mask` that exist call the intrinsic with
// `mask` as its member mask. A block of 16 with mask 0xffffffff is the seed's own setup: lanes
// 16-31 do not exist, which CUDA treats like exited threads.
struct WarpSetup {
  int threads = kWarpSize;
  std::uint32_t mask = 0xffffffffu;
  std::uint32_t existing() const { return threads >= 32 ? 0xffffffffu : ((1u << threads) - 1u); }
  std::uint32_t calling() const { return mask & existing(); }
  bool calls(int lane) const { return (calling() >> lane) & 1u; }
};

enum class ShuffleOp : int { idx = 0, up = 1, down = 2, bfly = 3 };  // shfl, shfl_up, shfl_down, shfl_xor

struct ShuffleSpec {
  ShuffleOp op = ShuffleOp::down;
  int param = 1;   // srcLane (idx), delta (up, down) or laneMask (bfly)
  int width = kWarpSize;
  WarpSetup warp;
  Lanes values{};  // the `var` each lane passes in
};

// Per-lane results of the vote and match functions (the same call in every calling lane).
struct VoteSpec {
  WarpSetup warp;
  Lanes predicate{};  // 0 or 1
  Lanes key{};        // value compared by __match_*_sync
  Lanes values{};     // value reduced by __reduce_*_sync (as unsigned)
};

struct VoteLanes {
  LaneMasks ballot{};
  Lanes all{};
  Lanes any{};
  LaneMasks activemask{};
  LaneMasks match_any{};
  LaneMasks match_all{};
  Lanes match_all_pred{};
};

struct ReduceLanes {  // __reduce_{add,min,max}_sync on unsigned values (compute capability 8.0+)
  LaneMasks add{};
  LaneMasks min{};
  LaneMasks max{};
};

// Seed 002, 10.2: the last warp of a shared-memory reduction, three ways.
enum class SyncwarpVariant : int {
  guarded = 0,   // if (tid < offset) s[tid] += s[tid + offset]; __syncwarp();
  registers = 1, // v += s[tid + offset]; __syncwarp(); s[tid] = v; __syncwarp();
  racy = 2,      // s[tid] += s[tid + offset]; __syncwarp();   (read-write race)
};
inline constexpr int kSyncwarpShared = 2 * kWarpSize;  // s[32..63] are zero: the rest of a block
using SharedWords = std::array<std::int32_t, kSyncwarpShared>;

// Warp sum by shuffles, offset 16, 8, 4, 2, 1: steps[0] is the input, steps[k] after offset 32>>k.
inline constexpr int kTraceSteps = 6;
using ReductionTrace = std::array<Lanes, kTraceSteps>;

}  // namespace cudasync::warp_primitives
