#pragma once
// warp-primitives: the warp-level functions of Fan, ch. 10 (sections 10.1-10.4), run in one warp
// on the GPU and computed by the reference model, lane by lane. This header holds the plain structs
// both backends fill and the GPU entries (each launches one block and copies its lanes back); nvcc
// compiles it too, so it includes nothing but the standard library and core/gpu_entry.hpp.
#include <array>
#include <cstdint>

#include "core/gpu_entry.hpp"

namespace cudasync::warp_primitives {

inline constexpr int kWarpSize = 32;
using Lanes = std::array<std::int32_t, kWarpSize>;
using LaneMasks = std::array<std::uint32_t, kWarpSize>;

// Written by the GPU into lanes that never ran the intrinsic, so "not written" is recognisable.
inline constexpr std::int32_t kPoison = static_cast<std::int32_t>(0xABABABABu);

// One warp of `threads` threads (1..32); the lanes in `mask` that exist call the intrinsic with
// `mask` as its member mask. A block of 16 with mask 0xffffffff is Fan's own setup (10.3): lanes
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

// Fan, 10.2: the last warp of a shared-memory reduction, three ways.
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

// Fan, 10.1: in a block of 128 threads, switch (threadIdx.x / 32) gives every warp one case;
// switch (threadIdx.x % 32) gives every lane of a warp its own case. The tool's switch has 32
// cases doing the same work, so each thread runs one case either way.
inline constexpr int kDivergenceThreads = 128;
inline constexpr int kDivergenceWarps = kDivergenceThreads / kWarpSize;
inline constexpr int kDivergenceCases = 32;
enum class SwitchOn : int { warp = 0, lane = 1 };  // threadIdx.x / 32, threadIdx.x % 32
using BlockMasks = std::array<std::uint32_t, kDivergenceThreads>;
using BlockValues = std::array<std::uint32_t, kDivergenceThreads>;
struct DivergenceRun {
  BlockMasks activemask{};  // __activemask() as each thread entered its case
  BlockValues result{};     // what each thread's case computed
  std::array<std::int64_t, kDivergenceWarps> cycles{};  // clock64 around the switch, per warp
};

// Fan, 10.4: one warp of 32 threads. thread_group g32 = tiled_partition(block, 32) and
// g4 = tiled_partition(g32, 4); then thread_block_tile<4> t4 = tiled_partition<4>(block).
inline constexpr int kTileSize = 4;
struct TileLanes {
  Lanes g32_rank{}, g32_size{}, g4_rank{}, g4_size{};  // thread_rank() and size() per lane
  Lanes shfl_down{};   // t4.shfl_down(v, 1)
  Lanes any{}, all{};  // t4.any(pred), t4.all(pred)
  LaneMasks ballot{};  // t4.ballot(pred): bit r is the predicate of the tile's rank r
};

// Fan, 10.3: the shuffles take 64-bit types too. Lane t's value x gives the long long
// x * 2^32 + x (both 32-bit halves hold x) and the double x + 0.1.
using Lanes64 = std::array<long long, kWarpSize>;
using LanesF64 = std::array<double, kWarpSize>;
struct Shuffle64Lanes {
  Lanes64 ll{};   // __shfl_down_sync on a long long
  LanesF64 dbl{};  // __shfl_down_sync on a double
};
inline long long wide_long_long(std::int32_t x) {
  return static_cast<long long>(x) * 4294967296LL + static_cast<long long>(static_cast<std::uint32_t>(x));
}
inline double wide_double(std::int32_t x) { return static_cast<double>(x) + 0.1; }

// ---------------------------------------------------------------- the GPU side

// Lanes that did not call keep kPoison.
CUDASYNC_GPU_ENTRY(Lanes, gpu_shuffle, (const ShuffleSpec& spec))
CUDASYNC_GPU_ENTRY(VoteLanes, gpu_votes, (const VoteSpec& spec))
// Needs compute capability 8.0+: the caller waives below.
CUDASYNC_GPU_ENTRY(ReduceLanes, gpu_reduce, (const VoteSpec& spec))
CUDASYNC_GPU_ENTRY(SharedWords, gpu_syncwarp, (const Lanes& values, SyncwarpVariant variant))
// Full warp, width 32.
CUDASYNC_GPU_ENTRY(ReductionTrace, gpu_reduction_trace, (const Lanes& values, ShuffleOp op))

// Fan 10.1: one block of kDivergenceThreads runs the 32-case switch on the warp or on the lane;
// each case does `iterations` dependent steps.
CUDASYNC_GPU_ENTRY(DivergenceRun, gpu_divergence, (SwitchOn on, int iterations))
// Fan 10.4: one warp; ranks and sizes of the thread_group partitions, a thread_block_tile<4>'s
// shfl_down(v, 1), any, all and ballot of `predicate`.
CUDASYNC_GPU_ENTRY(TileLanes, gpu_tiles, (const Lanes& values, const Lanes& predicate))
// Fan 10.3: __shfl_down_sync(spec.warp.mask, v, spec.param, spec.width) on the long long and the
// double of each lane's value (wide_long_long, wide_double); lanes that did not call keep 0xAB bytes.
CUDASYNC_GPU_ENTRY(Shuffle64Lanes, gpu_shuffle64, (const ShuffleSpec& spec))

// Latency of one operation in a dependent chain in one warp, in SM cycles (clock64).
enum class CostProbe : int {
  shfl_xor = 0,
  ballot,
  match_any,
  sum_shared_syncwarp,  // Fan 10.2: the guarded shared-memory loop, 5 steps
  sum_shfl_down,        // Fan 10.3.2: five __shfl_down_sync
  sum_shfl_xor,
  sum_cg_reduce,        // cooperative_groups::reduce on a thread_block_tile<32>
  sum_reduce_add,       // __reduce_add_sync: one instruction (REDUX) on 8.0+
};
inline constexpr int kCostProbes = 8;
CUDASYNC_GPU_ENTRY(double, gpu_cycles_per_op, (CostProbe probe, int iterations))

}  // namespace cudasync::warp_primitives
