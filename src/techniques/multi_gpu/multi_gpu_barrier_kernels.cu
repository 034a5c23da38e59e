// The multi-phase computation across two GPUs under each barrier (peer, nccl, event), and the time
// per barrier. Every spin of the peer barrier has a deadline; NCCL and the events wait on the
// streams, which wait for kernels that always end.
#include <chrono>
#include <vector>

#include "core/cuda/occupancy.cuh"
#include "techniques/multi_gpu/multi_gpu_cuda.cuh"
#include "techniques/multi_gpu/multi_gpu_gpu.hpp"
#include "techniques/multi_gpu/multi_gpu_nccl.cuh"

namespace cudasync::multi_gpu {

namespace {

// One GPU's view of the values: its own two buffers and the other GPU's (peer pointers).
struct Halves {
  unsigned* own[2];
  const unsigned* other[2];
  int slot;     // 0: GPU A holds values [0, m); 1: GPU B holds [m, 2m)
  int m;        // values per GPU
  int threads;  // per block: the "next block" neighbour is this far on
};

// Phase p of this thread's value (see mix() in multi_gpu.hpp): reads phase p - 1 from buffer
// (p - 1) % 2 of whichever GPU holds each neighbour, writes buffer p % 2 of its own GPU.
__device__ __forceinline__ void compute_phase(const Halves& h, int p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const long long n = 2LL * h.m, g = static_cast<long long>(h.slot) * h.m + i;
  const int src = (p - 1) & 1;
  const auto old = [&](long long j) -> unsigned {
    j %= n;
    const int holder = static_cast<int>(j / h.m), k = static_cast<int>(j % h.m);
    return holder == h.slot ? h.own[src][k] : h.other[src][k];
  };
  h.own[p & 1][i] = mix(h.own[src][i], old(g + h.m + 1), old(g + h.threads), p);
}

// The peer method: every phase in one kernel per GPU, the peer barrier between two phases.
__global__ void peer_phases_kernel(Halves h, PeerBarrier b, int phases) {
  for (int p = 1; p <= phases; ++p) {
    if (p > 1 && !peer_barrier(b, static_cast<unsigned>(p - 1))) return;
    compute_phase(h, p);
  }
}

// nccl and event: one kernel per GPU and phase.
__global__ void phase_kernel(Halves h, int p) { compute_phase(h, p); }

// The timed kernels: k peer barriers and nothing else (numbered first, first + 1, ...), and an
// empty kernel for the methods that order whole kernels.
__global__ void peer_barriers_kernel(PeerBarrier b, unsigned first, int k) {
  for (int j = 0; j < k; ++j)
    if (!peer_barrier(b, first + static_cast<unsigned>(j))) return;
}
__global__ void empty_kernel() {}

struct Pair {
  int dev[kGpus];
  DeviceStream s0, s1;
  Pair(int a, int b) : dev{a, b}, s0(a), s1(b) {}
  cudaStream_t stream(int g) const { return g == 0 ? s0.get() : s1.get(); }
  void sync() const {
    s0.sync();
    s1.sync();
  }
};

// Between two phases of the nccl and event methods: both streams wait until both GPUs got there.
class StreamBarrier {
 public:
  StreamBarrier(Method m, const Pair& p, NcclComms* nccl) : m_(m), p_(p), nccl_(nccl) {
    for (int g = 0; g < kGpus; ++g) {
      CUDA_CHECK(cudaSetDevice(p.dev[g]));
      CUDA_CHECK(cudaEventCreateWithFlags(&ev_[g], cudaEventDisableTiming));
    }
  }
  ~StreamBarrier() {
    for (int g = 0; g < kGpus; ++g) {
      CUDA_CHECK_NOTHROW(cudaSetDevice(p_.dev[g]));
      CUDA_CHECK_NOTHROW(cudaEventDestroy(ev_[g]));
    }
  }
  StreamBarrier(const StreamBarrier&) = delete;
  StreamBarrier& operator=(const StreamBarrier&) = delete;
  void enqueue() {
    if (m_ == Method::nccl) {
      const cudaStream_t s[kGpus] = {p_.stream(0), p_.stream(1)};
      nccl_barrier(*nccl_, s);
      return;
    }
    for (int g = 0; g < kGpus; ++g) {
      CUDA_CHECK(cudaSetDevice(p_.dev[g]));
      CUDA_CHECK(cudaEventRecord(ev_[g], p_.stream(g)));
    }
    for (int g = 0; g < kGpus; ++g) {
      CUDA_CHECK(cudaSetDevice(p_.dev[g]));
      CUDA_CHECK(cudaStreamWaitEvent(p_.stream(g), ev_[1 - g], 0));
    }
  }

 private:
  Method m_;
  const Pair& p_;
  NcclComms* nccl_;
  cudaEvent_t ev_[kGpus] = {nullptr, nullptr};
};

}  // namespace

Coresidency gpu_barrier_coresidency(int device, int threads) {
  DeviceGuard keep;
  CUDA_CHECK(cudaSetDevice(device));
  const Coresidency a = cuda::coresidency_of(peer_phases_kernel, threads, 0, device);
  const Coresidency b = cuda::coresidency_of(peer_barriers_kernel, threads, 0, device);
  return a.limit() <= b.limit() ? a : b;
}

BarrierRun gpu_barrier_run(Method m, int a, int b, const BarrierSpec& spec, const std::vector<std::uint32_t>& x0,
                           NcclComms* nccl) {
  DeviceGuard keep;
  enable_peer_access(a, b);
  const int mv = spec.values();
  const std::size_t count = static_cast<std::size_t>(mv);
  Pair pair(a, b);
  OnDevice<unsigned> buf00(a, count), buf01(a, count), buf10(b, count), buf11(b, count);
  BarrierWords w0(a), w1(b);
  CUDA_CHECK(cudaMemcpy(buf00.get(), x0.data(), count * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(buf10.get(), x0.data() + count, count * sizeof(unsigned), cudaMemcpyHostToDevice));
  const Halves h[kGpus] = {{{buf00.get(), buf01.get()}, {buf10.get(), buf11.get()}, 0, mv, spec.threads},
                           {{buf10.get(), buf11.get()}, {buf00.get(), buf01.get()}, 1, mv, spec.threads}};
  if (m == Method::peer) {
    const PeerBarrier pb[kGpus] = {peer_barrier_of(w0, w1, 0, spec.blocks, spec.deadline_ns),
                                   peer_barrier_of(w1, w0, 1, spec.blocks, spec.deadline_ns)};
    for (int g = 0; g < kGpus; ++g) {
      CUDA_CHECK(cudaSetDevice(pair.dev[g]));
      peer_phases_kernel<<<spec.blocks, spec.threads, 0, pair.stream(g)>>>(h[g], pb[g], spec.phases);
      CUDA_CHECK_LAUNCH();
    }
  } else {
    StreamBarrier barrier(m, pair, nccl);
    for (int p = 1; p <= spec.phases; ++p) {
      if (p > 1) barrier.enqueue();
      for (int g = 0; g < kGpus; ++g) {
        CUDA_CHECK(cudaSetDevice(pair.dev[g]));
        phase_kernel<<<spec.blocks, spec.threads, 0, pair.stream(g)>>>(h[g], p);
        CUDA_CHECK_LAUNCH();
      }
    }
    pair.sync();
  }
  pair.sync();
  BarrierRun r;
  r.values.resize(2 * count);
  const int last = spec.phases & 1;
  CUDA_CHECK(cudaMemcpy(r.values.data(), h[0].own[last], count * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(r.values.data() + count, h[1].own[last], count * sizeof(unsigned), cudaMemcpyDeviceToHost));
  r.deadline_hit = any_gave_up(w0, w1);
  return r;
}

BarrierTiming gpu_barrier_ns(Method m, int a, int b, const BarrierSpec& spec, int reps, int k1, int k2,
                             NcclComms* nccl) {
  DeviceGuard keep;
  if (m == Method::peer) enable_peer_access(a, b);  // nccl and event time empty kernels: no peer memory
  Pair pair(a, b);
  BarrierWords w0(a), w1(b);
  const PeerBarrier pb[kGpus] = {peer_barrier_of(w0, w1, 0, spec.blocks, spec.deadline_ns),
                                 peer_barrier_of(w1, w0, 1, spec.blocks, spec.deadline_ns)};
  StreamBarrier barrier(m, pair, nccl);
  unsigned done = 0;  // peer barriers numbered so far on these words
  // Host time of k barriers, from the first launch until both GPUs have finished.
  const auto run = [&](int k) {
    const auto t0 = std::chrono::steady_clock::now();
    if (m == Method::peer) {
      for (int g = 0; g < kGpus; ++g) {
        CUDA_CHECK(cudaSetDevice(pair.dev[g]));
        peer_barriers_kernel<<<spec.blocks, spec.threads, 0, pair.stream(g)>>>(pb[g], done + 1, k);
        CUDA_CHECK_LAUNCH();
      }
      done += static_cast<unsigned>(k);
    } else {
      for (int j = 0; j < k; ++j) {
        for (int g = 0; g < kGpus; ++g) {
          CUDA_CHECK(cudaSetDevice(pair.dev[g]));
          empty_kernel<<<spec.blocks, spec.threads, 0, pair.stream(g)>>>();
          CUDA_CHECK_LAUNCH();
        }
        barrier.enqueue();
      }
    }
    pair.sync();
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  };
  run(k1);  // warm-up: first launches, NCCL's first collective
  BarrierTiming t;
  for (int r = 0; r < reps; ++r) {
    const double t1 = run(k1), t2 = run(k2);
    t.ns.push_back((t2 - t1) / (k2 - k1));
  }
  t.deadline_hit = any_gave_up(w0, w1);
  return t;
}

}  // namespace cudasync::multi_gpu
