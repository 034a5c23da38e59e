#pragma once
// multi-gpu: how one GPU knows another has finished writing. A flag handed from one GPU to another
// (and from a GPU to a host thread) under each fence, a barrier across two GPUs built on
// device-scope counters and system-scope release stores into the peer's flag (no atomic crosses
// the link) beside NCCL's and the streams', and an all-reduce of a large
// array, NCCL against the hand-made one. This header holds the plain types both backends use and
// the arithmetic the kernels and the model share; nvcc compiles it too, so it includes only the
// standard library.
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define CUDASYNC_MG_HD __host__ __device__
#else
#define CUDASYNC_MG_HD
#endif

namespace cudasync::multi_gpu {

inline constexpr int kGpus = 2;  // the lesson runs on a pair of GPUs (--devices A,B)

// ---- a flag handed across the system ------------------------------------------------------------
// One instance: the producer stores 1 into `data`, then 1 into `flag`; the consumer waits until it
// sees the flag, then reads `data`. Stale: the flag seen, the data still 0.
//   peer-flag: producer on GPU A, data and flag in GPU B's memory (written through peer access),
//              consumer on GPU B.
//   host-flag: producer on the GPU, data and flag in pinned host memory, consumer a host thread.
// What sits on each side between the two accesses:
enum class Fence : int {
  none = 0,        // nothing: the flag is a volatile store / load (relaxed, system scope)
  device,          // __threadfence()          membar.gl  = fence.sc.gpu
  system,          // __threadfence_system()   membar.sys = fence.sc.sys
  rel_acq_device,  // cuda::atomic_ref<unsigned, thread_scope_device> release store / acquire load
  rel_acq_system,  // cuda::atomic_ref<unsigned, thread_scope_system> release store / acquire load
};
inline constexpr int kFences = 5;

enum class Consumer : int {
  peer_gpu = 0,  // a kernel on the other GPU
  host,          // a host thread: its load of the flag is a C++ acquire load
};

struct FlagSpec {
  Fence producer = Fence::none;
  Fence consumer = Fence::none;  // peer-flag only: the host's side is always an acquire load
  Consumer where = Consumer::peer_gpu;
};

// What the GPU observed for one configuration.
struct FlagCounts {
  std::uint64_t fresh = 0;      // the flag seen, the data written
  std::uint64_t stale = 0;      // the flag seen, the data still 0
  std::uint64_t timed_out = 0;  // instances not completed: a wait gave up at its deadline
  std::uint64_t instances = 0;  // every instance run, timed out ones included
  int blocks = 0;               // each kernel's grid (host-flag: one thread)
  int threads = 0;
  int rounds = 0;
  std::uint64_t completed() const { return fresh + stale; }
};

// ---- a barrier across two GPUs -------------------------------------------------------------------
// The barrier every method builds between the phases of one computation:
enum class Method : int {
  peer = 0,  // in one kernel per GPU: arrivals on a local counter, flags stored into both GPUs
  nccl,      // one kernel per GPU and phase; between phases ncclAllReduce of one integer
  event,     // one kernel per GPU and phase; between phases each stream waits for the other's event
};
inline constexpr int kMethods = 3;

struct BarrierSpec {
  int blocks = 132;  // per GPU
  int threads = 256;
  int phases = 16;   // computing phases; phases - 1 barriers between them
  std::uint64_t deadline_ns = 1'000'000'000;
  int values() const { return blocks * threads; }  // per GPU
};

// The computation: kGpus * blocks * threads values, GPU g holding values [g * m, (g + 1) * m). In
// phase p every value mixes itself with the value m + 1 places on (on the other GPU, mostly) and the
// value `threads` places on (the next block), all of phase p - 1.
CUDASYNC_MG_HD constexpr std::uint32_t rotl32(std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
CUDASYNC_MG_HD constexpr std::uint32_t mix(std::uint32_t own, std::uint32_t far, std::uint32_t next, int phase) {
  return own * 0x9E3779B1u + (rotl32(far, 7) ^ (next + static_cast<std::uint32_t>(phase)));
}
// A value of the starting data (phase 0) or of the all-reduce's input: a splitmix-style hash.
CUDASYNC_MG_HD constexpr std::uint32_t start_value(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<std::uint32_t>(z ^ (z >> 31));
}

// A GPU run of the multi-phase computation under one method.
struct BarrierRun {
  std::vector<std::uint32_t> values;  // the final values, GPU A's half then GPU B's
  bool deadline_hit = false;          // a spin of the peer barrier gave up
};

// ns per barrier, `reps` samples (see gpu_barrier_ns).
struct BarrierTiming {
  std::vector<double> ns;
  bool deadline_hit = false;
};

// ---- all-reduce ----------------------------------------------------------------------------------
enum class Reduce : int {
  nccl = 0,  // ncclAllReduce, ncclUint32, ncclSum
  peer,      // one kernel per GPU: the peer barrier, each GPU sums its half from both inputs (peer
             // reads) and stores it into both outputs (peer writes), the peer barrier again
};
inline constexpr int kReduces = 2;

// GPU g's input element i, and the sum every output must hold.
CUDASYNC_MG_HD constexpr std::uint32_t input_value(std::uint64_t seed, int gpu, std::uint64_t i) {
  return start_value(seed ^ (0xA11ull << (8 * gpu)), i);
}
CUDASYNC_MG_HD constexpr std::uint32_t reduced_value(std::uint64_t seed, std::uint64_t i) {
  return input_value(seed, 0, i) + input_value(seed, 1, i);
}

struct ReduceRun {
  std::uint64_t elements = 0;       // per GPU
  std::uint64_t mismatches[kGpus] = {0, 0};  // elements of each GPU's output that differ from the sum
  std::int64_t first_mismatch = -1;  // the first index that differs on either GPU
  std::vector<double> ns;           // per all-reduce, `reps` samples
  bool deadline_hit = false;
};

}  // namespace cudasync::multi_gpu
