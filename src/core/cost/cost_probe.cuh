#pragma once
// What the probe kernels share (cost_kernels.cu, cost_launch_kernels.cu): the sizes, the deadline,
// the device memory of a contended probe and the co-residency check every spinning probe makes.
#include <string>
#include <vector>

#include "core/cost/probe.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/ptx_memory.cuh"

namespace cudasync::cost::gpu {

using u32 = unsigned;

inline constexpr unsigned long long kDeadlineNs = 2'000'000'000ull;  // no probe waits longer than 2 s
inline constexpr int kOps = 64;               // the actor's chain
inline constexpr int kChainWords = 1 << 16;   // 256 KiB: in the L2
inline constexpr unsigned kChainStride = 4099;  // words: every step another 128-byte line
inline constexpr int kScratchWords = 4096;    // the actor's stores
inline constexpr int kLineWords = 32;         // 128 bytes
inline constexpr int kPollRounds = 24;
inline constexpr unsigned long long kRoundGapNs = 1000;  // the writer waits this long after every block saw a round
inline constexpr unsigned long long kStaggerNs = 48;     // pollers of one block start this far apart

// A weak store (st.global): what `*cnt = *cnt + 1` compiles to.
__device__ __forceinline__ void st_plain(u32* p, u32 v) {
  asm volatile("st.global.u32 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "r"(v) : "memory");
}

// Why a grid of `blocks` x `threads` of `kernel` cannot be resident at once here, or "".
inline std::string unfit(const void* kernel, int blocks, int threads) {
  int per_sm = 0, device = 0, sms = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (blocks <= per_sm * sms) return "";
  return std::to_string(blocks) + " blocks of " + std::to_string(threads) + " threads do not fit at once (" +
         std::to_string(per_sm) + " per SM x " + std::to_string(sms) + " SMs)";
}

// The device memory of a contended probe over `threads` threads in all.
struct Scratch {
  cuda::DeviceBuffer<u32> word{2}, gate{1}, done{1}, chain{static_cast<std::size_t>(kChainWords)},
      scratch{static_cast<std::size_t>(kScratchWords + kLineWords)}, slots, timed_out{1}, sink{2};
  cuda::DeviceBuffer<long long> ns{1};
  explicit Scratch(std::size_t threads) : slots(threads + 1) {
    std::vector<u32> c(static_cast<std::size_t>(kChainWords));
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<u32>((i + kChainStride) % kChainWords);
    chain.upload(c);
    scratch.fill_bytes(0);
  }
  // Before each launch: the word at `held` (1: a lock held by nobody who will release it), the
  // gate and the flags at 0, every slot idle.
  void reset(u32 held) {
    const u32 w[2] = {held, held};
    word.upload(w, 2);
    gate.fill_bytes(0);
    done.fill_bytes(0);
    slots.fill_bytes(0);
    timed_out.fill_bytes(0);
    ns.fill_bytes(0);
  }
  bool timed_out_now() const {
    u32 t = 0;
    timed_out.download(&t, 1);
    return t != 0;
  }
};

ProbeResult run_spin_probe(const ProbeSpec& s);  // cost_kernels.cu: contended, poll_latency, arrive_poll

}  // namespace cudasync::cost::gpu
