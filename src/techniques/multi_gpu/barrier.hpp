#pragma once
// multi-gpu's pair of GPUs (peer access, NCCL) and what runs on it: the barrier across two GPUs and
// the all-reduce built on it. What the kernels (pair.cu, barrier.cu) and the host (barrier.cpp)
// share: the plain types, the arithmetic the kernels and the model share, and the GPU entries
// (every one leaves the calling thread's current device as it found it). nvcc compiles it too, so
// it includes only the standard library and core's plain headers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "core/gpu_entry.hpp"

#if defined(__CUDACC__)
#define CUDASYNC_MG_HD __host__ __device__
#else
#define CUDASYNC_MG_HD
#endif

namespace cudasync::multi_gpu {

inline constexpr int kGpus = 2;  // the lesson runs on a pair of GPUs (--devices A,B)

// What the runtime says about a pair of GPUs.
struct PeerInfo {
  bool a_to_b = false;          // cudaDeviceCanAccessPeer(a, b): a kernel on a may touch b's memory
  bool b_to_a = false;
  bool native_atomics = false;  // cudaDevP2PAttrNativeAtomicSupported (a -> b)
  int performance_rank = -1;    // cudaDevP2PAttrPerformanceRank (a -> b): lower is faster
  std::string a_name, b_name;
};
CUDASYNC_GPU_ENTRY(PeerInfo, gpu_peer_info, (int a, int b))

// ---- a barrier across two GPUs ------------------------------------------------------------------
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

// ---- all-reduce ---------------------------------------------------------------------------------
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


// The co-residency of the peer barrier's kernels on GPU `device`.
CUDASYNC_GPU_ENTRY(Coresidency, gpu_barrier_coresidency, (int device, int threads))

// NCCL's communicators for a pair of GPUs, opened once per run (ncclCommInitAll) and destroyed with
// the last owner. Opaque here; defined in pair.cu. gpu_nccl_open throws WaivedError when
// NCCL is not built in.
struct NcclComms;
CUDASYNC_GPU_ENTRY(std::shared_ptr<NcclComms>, gpu_nccl_open, (int a, int b))
// The NCCL library's own version (ncclGetVersion), e.g. 22809.
CUDASYNC_GPU_ENTRY(int, gpu_nccl_version, ())

// The multi-phase computation on GPUs a and b from the starting values x0 (both halves) under
// method m. `nccl` is needed by Method::nccl only.
CUDASYNC_GPU_ENTRY(BarrierRun, gpu_barrier_run, (Method m, int a, int b, const BarrierSpec& spec,
                                                 const std::vector<std::uint32_t>& x0, NcclComms* nccl))
// ns per barrier: the method runs k1 and k2 barriers with no work between them, host-timed from the
// first launch to the end on both GPUs, (t2 - t1) / (k2 - k1), so the launch and the final
// synchronization cancel. For nccl and event a barrier includes one kernel launch per GPU: they
// order kernels, not threads inside one.
CUDASYNC_GPU_ENTRY(BarrierTiming, gpu_barrier_ns, (Method m, int a, int b, const BarrierSpec& spec, int reps, int k1,
                                                   int k2, NcclComms* nccl))

// All-reduce (sum) of `elements` 32-bit integers per GPU, inputs input_value(seed, gpu, i), with
// method r: every output element is compared on the GPU with reduced_value(seed, i), and `reps`
// samples of the time per all-reduce are taken, each over `iterations` back-to-back all-reduces.
CUDASYNC_GPU_ENTRY(ReduceRun, gpu_all_reduce, (Reduce r, int a, int b, std::uint64_t elements, std::uint64_t seed,
                                               int reps, int iterations, std::uint64_t deadline_ns, NcclComms* nccl))

}  // namespace cudasync::multi_gpu
