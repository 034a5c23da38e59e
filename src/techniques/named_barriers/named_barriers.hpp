#pragma once
// named-barriers: the sixteen hardware barriers of a block (PTX ISA 9.0, barrier{.cta}: bar.sync /
// bar.arrive / bar.red) and their modern form, cuda::barrier. This header holds the plain structs the GPU and
// the reference model both fill; nvcc compiles it too, so it includes only the standard library.
#include <cstdint>
#include <vector>

namespace cudasync::named_barriers {

inline constexpr int kWarpSize = 32;
inline constexpr int kBarrierCount = 16;   // barriers per CTA, ids 0..15 (PTX ISA, "bar, barrier")
inline constexpr int kMaxBlockThreads = 1024;
inline constexpr int kMaxWarps = kMaxBlockThreads / kWarpSize;
// Written by the GPU into slots that were never written, so "not written" is recognisable.
inline constexpr std::int32_t kPoison = static_cast<std::int32_t>(0xABABABABu);

// ---- bar.sync with a thread count: two groups of warps, each on its own barrier ----------------
// Group g has threads[g] threads (a multiple of 32) and runs `phases` phases; each phase is
// `work_cycles[g]` cycles of work, then `bar.sync ids[g], threads[g]`. Group 1 is held before its
// first barrier until group 0 has passed all of its own.
struct GroupsSpec {
  int threads[2] = {64, 128};
  int ids[2] = {1, 2};
  int phases = 4;
  long long work_cycles[2] = {2000, 12000};
  int block_threads() const { return threads[0] + threads[1]; }
  int warps(int g) const { return threads[g] / kWarpSize; }
};

// clock64 stamps taken by lane 0 of each warp (one SM, one counter): just before each bar.sync
// and just after it. Index [warp * phases + phase].
struct GroupsTrace {
  std::vector<long long> arrive;
  std::vector<long long> leave;
  std::vector<int> passed;             // barriers each warp got through, per warp
  std::vector<int> arrivals;           // warps counted at [g * phases + phase] (atomicAdd before arriving)
  double ns_per_cycle = 0.0;           // from %globaltimer over the same kernel
  bool hold_gave_up = false;           // group 1, held until group 0 was done, stopped waiting (deadline)
};

// ---- producer / consumer with bar.arrive (the PTX ISA's example) --------------------------------
// `producers` threads write slot[p] = input[round][p], signal with bar.arrive on `ids[0]` (full),
// fetch the next value from global memory, then wait with bar.sync on `ids[1]` (empty). The
// `consumers` threads bar.sync on full, read the slots, and bar.arrive on empty. Both barriers
// count producers + consumers threads.
struct PcSpec {
  int producers = 32;
  int consumers = 32;
  int ids[2] = {1, 2};  // full, empty
  int rounds = 4;
  std::vector<std::int32_t> input;  // rounds * producers values, [round * producers + p]
  int block_threads() const { return producers + consumers; }
  int producer_warps() const { return producers / kWarpSize; }
  int consumer_warps() const { return consumers / kWarpSize; }
};

// Per warp and round, clock64 stamps of lane 0. Producers: t0 before bar.arrive(full), t1 after
// it, t2 when the next value has been fetched, t3 when bar.sync(empty) returned. Consumers: t0
// before bar.sync(full), t1 after it, t2 after reading (just before bar.arrive(empty)), t3 = t2.
inline constexpr int kPcStamps = 4;
struct PcResult {
  std::vector<std::int32_t> consumed;  // [round * producers + slot], written by the consumer that read it
  std::vector<long long> stamps;       // [(warp * rounds + round) * kPcStamps + k], warps: producers first
  double ns_per_cycle = 0.0;
};

// ---- bar.red: the three block-wide predicate reductions -----------------------------------------
// Every thread passes predicate[tid] (0/1) to __syncthreads_count/and/or and to the inline PTX
// bar.red.popc.u32 / bar.red.and.pred / bar.red.or.pred on barrier `id`; each writes what it got.
enum RedColumn : int { red_count = 0, red_and, red_or, red_ptx_popc, red_ptx_and, red_ptx_or, kRedColumns };
struct RedSpec {
  int threads = 256;
  int id = 1;
  std::vector<std::int32_t> predicate;  // one per thread
};
struct RedResult {
  std::vector<std::int32_t> values;  // [tid * kRedColumns + column]
};

// ---- misuse: a bad thread count, run so that nothing can hang -----------------------------------
// `arrive_threads` threads (whole warps) execute `bar.sync id, count` with a count that is not a
// multiple of 32 or larger than the threads that arrive. Warp w arrives `stagger_ns * w` after the
// first, so the stamps show which warps were released together. Rescue warps watch: when the
// waiters are still inside the barrier after `settle_ns`, one rescue warp executes
// `bar.arrive id, count` (32 more arrivals) and the next one watches again.
struct MisuseCase {
  int count = 48;
  int arrive_threads = 64;
  int waiting_warps() const { return (arrive_threads + kWarpSize - 1) / kWarpSize; }
  // Enough rescue arrivals for any reading of `count` (rounded up to whole warps), plus one.
  int rescue_warps() const {
    const int need = (count + kWarpSize - 1) / kWarpSize + 1;
    const int room = kMaxWarps - waiting_warps();
    return need < room ? need : room;
  }
};
struct MisuseTiming {
  long long stagger_ns = 20000;
  long long settle_ns = 2000000;
};
// What one misuse kernel observed (the child process fills it; see named_barriers_misuse.hpp).
// Times are %globaltimer nanoseconds after the first waiting warp arrived.
struct MisuseObservation {
  MisuseCase c;
  std::vector<long long> arrive_ns;  // per waiting warp
  std::vector<long long> leave_ns;   // per waiting warp
  std::vector<long long> rescue_ns;  // one per rescue arrival that was needed
};

// ---- early-stamp: what a clock read right after bar.sync measures --------------------------------
// `warps` warps of one block meet at a barrier `rounds` times; the last warp works `late_cycles`
// cycles before each arrival. Lane 0 of every warp stamps clock64 just before the barrier (its
// arrival), right after it (the naive stamp), and after a shared-memory load and store of its own
// word (the guarded stamp, which cannot come before the barrier completes). Index [round * warps + warp].
enum class StampBarrier : int { syncthreads = 0, named };  // __syncthreads() / bar.sync id, blockDim.x
struct StampSpec {
  int warps = 4;
  int rounds = 16;
  long long late_cycles = 20000;
  int id = 1;  // the named barrier
  int block_threads() const { return warps * kWarpSize; }
};
struct StampResult {
  std::vector<long long> arrive, naive, guarded;
  double ns_per_cycle = 0.0;
};

}  // namespace cudasync::named_barriers
