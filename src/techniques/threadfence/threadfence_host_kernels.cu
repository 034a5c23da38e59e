// A host thread watching the GPU through mapped pinned host memory: one GPU thread writes each
// round's data, a fence, then the flag; this process's thread polls the flag and reads the data.
// Every wait on either side has a deadline: the GPU's on %globaltimer, the host's on its steady clock.
#include <atomic>
#include <chrono>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/mapped_buffer.hpp"
#include "techniques/threadfence/threadfence_access.cuh"
#include "techniques/threadfence/threadfence_gpu.hpp"

namespace cudasync::threadfence {

namespace {

constexpr std::size_t kLineWords = 32;  // one 128-byte line: every word below sits on a line of its own

struct HostArgs {
  unsigned* data;         // mapped: [round][word] at a line each
  unsigned* flag;         // mapped: [round] at a line each
  const unsigned* ready;  // mapped: [round], written by the host
  int rounds;
  int fence;
  cuda::SpinDeadline deadline;
};

__global__ void host_observer_kernel(HostArgs a) {
  for (int k = 0; k < a.rounds; ++k) {
    const unsigned* ready = a.ready + static_cast<std::size_t>(k) * kLineWords;
    if (!cuda::spin_until([&] { return ld_volatile(ready) != 0u; }, a.deadline)) return;
    for (int w = 0; w < kHostDataWords; ++w)
      st_plain(a.data + (static_cast<std::size_t>(k) * kHostDataWords + w) * kLineWords, static_cast<unsigned>(k + 1));
    fence(a.fence);
    st_volatile(a.flag + static_cast<std::size_t>(k) * kLineWords, 1u);
  }
}

}  // namespace

HostObserverRun gpu_host_observer(const HostObserverSpec& spec, Fence fence) {
  using Clock = std::chrono::steady_clock;
  const auto rounds = static_cast<std::size_t>(spec.rounds);
  cuda::MappedBuffer<unsigned> data(rounds * kHostDataWords * kLineWords, 0), flag(rounds * kLineWords, 0),
      ready(rounds * kLineWords, 0);
  cuda::DeviceBuffer<unsigned> gave_up(1);
  gave_up.fill_bytes(0);
  HostArgs a{data.dev(), flag.dev(), ready.dev(), spec.rounds, static_cast<int>(fence),
             cuda::SpinDeadline{spec.device_budget_ns, gave_up.get()}};
  host_observer_kernel<<<1, 1>>>(a);
  CUDA_CHECK(cudaGetLastError());
  // The observer: this thread. A volatile load of the flag, an acquire fence, then the data.
  volatile unsigned* const f = flag.host();
  volatile unsigned* const d = data.host();
  volatile unsigned* const r = ready.host();
  const auto budget = std::chrono::milliseconds(spec.host_budget_ms);
  HostObserverRun out;
  const auto t0 = Clock::now();
  for (std::size_t k = 0; k < rounds; ++k) {
    r[k * kLineWords] = 1u;
    const auto start = Clock::now();
    while (f[k * kLineWords] == 0u)
      if (Clock::now() - start > budget) break;
    if (f[k * kLineWords] == 0u) {
      out.host_gave_up = true;
      break;
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    std::uint64_t stale = 0;
    for (std::size_t w = 0; w < kHostDataWords; ++w)
      stale += d[(k * kHostDataWords + w) * kLineWords] != static_cast<unsigned>(k + 1) ? 1 : 0;
    out.stale_words += stale;
    out.stale += stale > 0 ? 1 : 0;
    ++out.rounds;
  }
  out.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  CUDA_CHECK(cudaDeviceSynchronize());  // the kernel ends: its waits have deadlines
  unsigned g = 0;
  gave_up.download(&g, 1);
  out.device_gave_up = g != 0;
  return out;
}

}  // namespace cudasync::threadfence
