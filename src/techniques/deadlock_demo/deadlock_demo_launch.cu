// The launch helpers every deadlock-demo kernel file shares, and the health check that runs after
// every part: a small kernel whose result is checked, so that a part proves the GPU still works.
#include <algorithm>
#include <cstdio>

#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"
#include "techniques/deadlock_demo/deadlock_demo_launch.cuh"

namespace cudasync::deadlock_demo {

namespace {

__global__ void health_kernel(int* out) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = 7 * i + 3;
}

}  // namespace

cuda::DeviceBuffer<Record> fresh_records(std::size_t n) {
  std::vector<Record> init(n);
  cuda::DeviceBuffer<Record> b(n);
  b.upload(init);
  return b;
}

bool all_finished(const std::vector<Record>& rs) {
  return std::all_of(rs.begin(), rs.end(), [](const Record& r) { return r.state == static_cast<int>(State::finished); });
}

bool read_flag(const cuda::DeviceBuffer<unsigned>& timed_out) {
  unsigned v = 0;
  timed_out.download(&v, 1);
  return v != 0;
}

Health gpu_health() {
  Health h;
  h.ran = true;
  try {
    constexpr int n = kHealthBlocks * kHealthThreads;
    cuda::DeviceBuffer<int> out(n);
    out.fill_bytes(0xff);
    const double ms = timed_launch([&] { health_kernel<<<kHealthBlocks, kHealthThreads>>>(out.get()); });
    const auto v = out.download();
    int right = 0;
    for (int i = 0; i < n; ++i) right += v[static_cast<std::size_t>(i)] == 7 * i + 3;
    h.ok = right == n;
    char t[32];
    std::snprintf(t, sizeof t, "%.3f", ms);
    h.detail = say("health.detail", {{"blocks", kHealthBlocks}, {"threads", kHealthThreads}, {"right", right},
                                     {"n", n}, {"ms", t}});
  } catch (const Error& e) {
    h.ok = false;
    h.detail = e.what();
  }
  return h;
}

}  // namespace cudasync::deadlock_demo
