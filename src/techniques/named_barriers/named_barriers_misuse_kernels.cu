// The misuse kernel: bar.sync with a bad thread count, made safe by rescue warps. Only the misuse
// part's child process launches it (named_barriers_misuse.cpp).
#include <algorithm>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "techniques/named_barriers/named_barriers_device.cuh"
#include "techniques/named_barriers/named_barriers_gpu.hpp"

namespace cudasync::named_barriers {

using cuda::DeviceBuffer;

namespace {

struct MisuseArgs {
  int count, waiting_warps, rescue_warps;
  unsigned id;
  long long stagger_ns, settle_ns;
};

// Misuse, made safe: `waiting_warps` warps execute bar.sync id, count with a bad count; the
// rescue warps (never waiting on `id` themselves) release warps the bad count would keep forever
// by adding bar.arrive arrivals, one warp at a time, each only after the waiters have been inside
// the barrier for settle_ns. Every spin here has a deadline.
__global__ void misuse_kernel(MisuseArgs a, long long* arrive_ns, long long* leave_ns, long long* rescue_ns,
                              int* rescues, unsigned* stuck_seen, unsigned* gave_up) {
  __shared__ unsigned long long t0;
  __shared__ int passed, turn;
  __shared__ int own[kMaxWarps];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize, lane = tid % kWarpSize;
  volatile int* vpassed = &passed;
  volatile int* vturn = &turn;
  if (lane == 0) own[warp] = 0;
  if (tid == 0) {
    t0 = globaltimer_ns();
    passed = 0;
    turn = 0;
  }
  __syncthreads();
  const unsigned count = static_cast<unsigned>(a.count);
  if (warp < a.waiting_warps) {
    const unsigned long long at = t0 + static_cast<unsigned long long>(a.stagger_ns) * static_cast<unsigned>(warp);
    while (globaltimer_ns() < at) {  // bounded by the clock: warp w arrives w * stagger after warp 0
    }
    if (lane == 0) arrive_ns[warp] = static_cast<long long>(globaltimer_ns() - t0);
    __syncwarp();
    bar_sync(a.id, count);
    if (lane == 0) {
      (void)stamp_after_barrier(&own[warp]);  // the barrier has completed when this returns
      leave_ns[warp] = static_cast<long long>(globaltimer_ns() - t0);
      __threadfence_block();
      atomicAdd(&passed, 1);
    }
    return;
  }
  const int r = warp - a.waiting_warps;
  int act = 0;  // 1: arrive now
  if (lane == 0) {
    const unsigned long long first_settle =
        static_cast<unsigned long long>(a.settle_ns + a.stagger_ns * a.waiting_warps);
    cuda::SpinDeadline my_turn{first_settle * static_cast<unsigned long long>(a.rescue_warps + 2), gave_up};
    if (cuda::spin_until([&] { return *vturn == r || *vturn < 0; }, my_turn) && *vturn == r) {
      cuda::SpinDeadline settle{r == 0 ? first_settle : static_cast<unsigned long long>(a.settle_ns), stuck_seen};
      if (cuda::spin_until([&] { return *vpassed == a.waiting_warps; }, settle)) *vturn = -1;  // all out: done
      else act = 1;
    }
  }
  act = __shfl_sync(0xffffffffu, act, 0);
  if (!act) return;
  bar_arrive(a.id, count);
  if (lane == 0) {
    rescue_ns[r] = static_cast<long long>(globaltimer_ns() - t0);
    atomicAdd(rescues, 1);
    __threadfence_block();
    *vturn = r + 1;
  }
}

}  // namespace

MisuseObservation gpu_misuse(const MisuseCase& c, int id, const MisuseTiming& timing) {
  const int waiting = c.waiting_warps(), rescue = c.rescue_warps();
  DeviceBuffer<long long> arrive(static_cast<std::size_t>(waiting)), leave(arrive.size()),
      rescue_at(static_cast<std::size_t>(rescue));
  DeviceBuffer<int> rescues(1);
  DeviceBuffer<unsigned> stuck_seen(1), gave_up(1);
  arrive.fill_bytes(0xff);  // -1: not recorded
  leave.fill_bytes(0xff);
  rescue_at.fill_bytes(0xff);
  rescues.fill_bytes(0);
  stuck_seen.fill_bytes(0);
  gave_up.fill_bytes(0);
  const MisuseArgs a{c.count, waiting, rescue, static_cast<unsigned>(id), timing.stagger_ns, timing.settle_ns};
  misuse_kernel<<<1, (waiting + rescue) * kWarpSize>>>(a, arrive.get(), leave.get(), rescue_at.get(), rescues.get(),
                                                        stuck_seen.get(), gave_up.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  MisuseObservation o;
  o.c = c;
  o.arrive_ns = arrive.download();
  o.leave_ns = leave.download();
  int n = 0;
  rescues.download(&n, 1);
  const auto at = rescue_at.download();
  o.rescue_ns.assign(at.begin(), at.begin() + std::min<std::ptrdiff_t>(n, static_cast<std::ptrdiff_t>(at.size())));
  return o;
}

}  // namespace cudasync::named_barriers
