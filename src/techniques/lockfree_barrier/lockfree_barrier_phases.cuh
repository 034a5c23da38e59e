#pragma once
// What every launch of lockfree-barrier shares, whichever barrier it uses: the kernel's arguments,
// one phase of the data, the device memory of a run and how its results come back. Included by
// lockfree_barrier_kernels.cu (the barriers inside one kernel) and lockfree_barrier_launch_kernels.cu
// (relaunch and graph, the floor, the timer), which are compiled apart.
#include <string>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_gpu.hpp"

namespace cudasync::lockfree_barrier::gpu {

using cuda::DeviceBuffer;
using cuda::globaltimer_ns;
using cuda::SpinDeadline;
using u32 = std::uint32_t;

struct PhaseArgs {
  u32* buf0;
  u32* buf1;
  int phases;
  u32* words;           // the protocol's words, zeroed before each launch (word_layout)
  int own_counters;
  int own_pollers;      // own-stagger: K
  SpinDeadline watch;   // budget per spinner; timed_out is the grid's abort word
  int* phases_done;     // per block
  u32* gave_up;         // per block: its own spin reached the deadline
  u32* stopped;         // per block: stopped because another block had given up
  long long* arrive_ns; // per block, barrier 1
  long long* release_ns;
};

// One phase of the data: thread t of block b combines its value with thread t of block b + 1 and
// thread t + 1 of block b - 1, all from the previous phase (plain loads and stores: only the
// barrier makes them safe).
__device__ __forceinline__ void phase(const PhaseArgs& a, int p) {
  const u32* in = (p - 1) % 2 == 0 ? a.buf0 : a.buf1;
  u32* out = p % 2 == 0 ? a.buf0 : a.buf1;
  const unsigned N = gridDim.x, T = blockDim.x, b = blockIdx.x, t = threadIdx.x;
  const unsigned right = (b + 1) % N, left = (b + N - 1) % N;
  out[b * T + t] = mix(in[b * T + t], in[right * T + t], in[left * T + (t + 1) % T], static_cast<u32>(p));
}

__device__ __forceinline__ long long now_ns() { return static_cast<long long>(globaltimer_ns()); }

// The device memory of one run.
struct Buffers {
  DeviceBuffer<u32> buf0, buf1, words, abort_word, gave_up, stopped;
  DeviceBuffer<int> phases_done;
  DeviceBuffer<long long> arrive_ns, release_ns;
  Buffers(int blocks, int threads)
      : buf0(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads)),
        buf1(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads)),
        words(static_cast<std::size_t>(word_layout(blocks).total)),
        abort_word(1),
        gave_up(static_cast<std::size_t>(blocks)),
        stopped(static_cast<std::size_t>(blocks)),
        phases_done(static_cast<std::size_t>(blocks)),
        arrive_ns(static_cast<std::size_t>(blocks)),
        release_ns(static_cast<std::size_t>(blocks)) {}

  void reset() {
    words.fill_bytes(0);
    abort_word.fill_bytes(0);
    gave_up.fill_bytes(0);
    stopped.fill_bytes(0);
    phases_done.fill_bytes(0);
    arrive_ns.fill_bytes(0);
    release_ns.fill_bytes(0);
  }

  // Ready for a run from the initial values x0: every other word zeroed, the device idle.
  PhaseArgs prepare(const GpuSpec& s, const std::vector<std::uint32_t>& x0) {
    buf0.upload(x0);
    buf1.fill_bytes(0);
    reset();
    CUDA_CHECK(cudaDeviceSynchronize());
    return args(s);
  }

  PhaseArgs args(const GpuSpec& s) {
    PhaseArgs a{};
    a.buf0 = buf0.get();
    a.buf1 = buf1.get();
    a.phases = s.phases;
    a.words = words.get();
    a.own_counters = s.own_counters;
    a.own_pollers = s.own_pollers;
    a.watch = SpinDeadline{s.deadline_ns, abort_word.get()};
    a.phases_done = phases_done.get();
    a.gave_up = gave_up.get();
    a.stopped = stopped.get();
    a.arrive_ns = arrive_ns.get();
    a.release_ns = release_ns.get();
    return a;
  }
};

inline std::vector<std::uint32_t> protocol_words(Barrier b, const std::vector<u32>& w, int blocks, int own_counters) {
  const WordLayout L = word_layout(blocks);
  switch (b) {
    case Barrier::xf_lock:
    case Barrier::xf_lock_unrepaired: return {w[static_cast<std::size_t>(L.counter)]};
    case Barrier::xf_lockfree:
    case Barrier::xf_lockfree_unrepaired: return {w.begin() + L.in, w.begin() + L.in + 2 * blocks};
    case Barrier::own:
    case Barrier::own_stagger:
    case Barrier::own_paced:
    case Barrier::own_cluster: {
      std::vector<u32> v;
      for (int l = 0; l < own_counters; ++l) v.push_back(w[static_cast<std::size_t>(L.own + l * kOwnStride)]);
      return v;
    }
    default: return {};
  }
}

inline std::vector<std::uint8_t> flags_of(const DeviceBuffer<u32>& d) {
  std::vector<std::uint8_t> f;
  for (u32 v : d.download()) f.push_back(v != 0 ? 1 : 0);
  return f;
}

// After a run: the values, the protocol's words, and who arrived, gave up or stopped.
inline void collect(GpuRun& r, Buffers& m, const GpuSpec& s) {
  CUDA_CHECK(cudaDeviceSynchronize());
  r.values = (s.phases % 2 == 0 ? m.buf0 : m.buf1).download();
  r.words = protocol_words(r.barrier, m.words.download(), s.blocks, s.own_counters);
  r.phases_done = m.phases_done.download();
  r.gave_up = flags_of(m.gave_up);
  r.stopped = flags_of(m.stopped);
  for (long long v : m.arrive_ns.download()) r.arrive_ns.push_back(v);
  for (long long v : m.release_ns.download()) r.release_ns.push_back(v);
  u32 abort_word = 0;
  m.abort_word.download(&abort_word, 1);
  r.deadline_hit = abort_word != 0;
}

// lockfree_barrier_launch_kernels.cu: relaunch and graph, one kernel per phase (gpu_run and
// gpu_time hand them over).
GpuRun run_launches(const GpuSpec& s, const std::vector<std::uint32_t>& x0, bool graph);
Timing time_launches(const GpuSpec& s, int reps, int launches, bool graph);

}  // namespace cudasync::lockfree_barrier::gpu
