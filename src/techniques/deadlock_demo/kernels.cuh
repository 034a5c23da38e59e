#pragma once
// What every deadlock-demo kernel file (grid.cu, lanes.cu, barrier.cu) shares: the device-side record helpers (a time since the
// grid's start, volatile loads and stores) and the host side of one launch (zeroed buffers,
// records that read "never started" until written, a launch timed with events, the health check).
// Kernels fill plain records and never print; the parts turn them into a Report.
#include <algorithm>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "techniques/deadlock_demo/scenarios.hpp"

namespace cudasync::deadlock_demo {

__device__ __forceinline__ long long since(unsigned long long t0) {
  return static_cast<long long>(cuda::globaltimer_ns() - t0);
}

// A record of a block or lane that starts now, on the grid's clock (t0: the first block's start).
__device__ __forceinline__ Record started(unsigned long long t0) {
  Record r;
  r.start_ns = since(t0);
  return r;
}

template <typename T>
__device__ __forceinline__ T vload(const T* p) {
  return *static_cast<const volatile T*>(p);
}
template <typename T>
__device__ __forceinline__ void vstore(T* p, T v) {
  *static_cast<volatile T*>(p) = v;
}

template <typename T>
cuda::DeviceBuffer<T> zeroed(std::size_t n) {
  cuda::DeviceBuffer<T> b(n);
  b.fill_bytes(0);
  return b;
}

// A record nobody wrote reads as "never started": state 0, start -1.
inline cuda::DeviceBuffer<Record> fresh_records(std::size_t n) {
  std::vector<Record> init(n);
  cuda::DeviceBuffer<Record> b(n);
  b.upload(init);
  return b;
}

inline bool all_finished(const std::vector<Record>& rs) {
  return std::all_of(rs.begin(), rs.end(), [](const Record& r) { return r.state == static_cast<int>(State::finished); });
}

// The launch `launch()` makes, timed with CUDA events, then synchronized (an error throws).
template <typename Launch>
double timed_launch(Launch launch) {
  cuda::Event start, stop;
  start.record();
  launch();
  CUDA_CHECK_LAUNCH();
  stop.record();
  const double ms = cuda::elapsed_ms(start, stop);
  CUDA_CHECK(cudaDeviceSynchronize());
  return ms;
}

// The timed-out flag a kernel's spins set, read back.
inline bool read_flag(const cuda::DeviceBuffer<unsigned>& timed_out) {
  unsigned v = 0;
  timed_out.download(&v, 1);
  return v != 0;
}

}  // namespace cudasync::deadlock_demo
