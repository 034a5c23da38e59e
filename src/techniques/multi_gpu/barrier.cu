// The multi-phase computation across two GPUs under each barrier (peer, nccl, event), and the time
// per barrier; and the all-reduce (sum) of a large array across two GPUs: NCCL's, and one made by
// hand from the peer barrier and peer reads and writes, each GPU's output checked element by element
// on the GPU against reduced_value(), each method timed over back-to-back all-reduces. Every spin
// of the peer barrier has a deadline; NCCL and the events wait on the streams, which wait for
// kernels that always end.
#include <algorithm>
#include <chrono>
#include <vector>

#include "core/cuda/occupancy.cuh"
#include "techniques/multi_gpu/pair.cuh"

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

// Phase p of this thread's value (see mix() in barrier.hpp): reads phase p - 1 from buffer
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

// ---- the all-reduce -----------------------------------------------------------------------------
constexpr int kReduceThreads = 512;

__global__ void fill_kernel(unsigned* in, unsigned long long n, unsigned long long seed, int gpu) {
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    in[i] = input_value(seed, gpu, i);
}

// counts[0]: elements that differ from the sum; counts[1]: the first such index (min), ~0 if none.
__global__ void verify_kernel(const unsigned* out, unsigned long long n, unsigned long long seed,
                              unsigned long long* counts) {
  unsigned long long bad = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    if (out[i] != reduced_value(seed, i)) {
      ++bad;
      atomicMin(&counts[1], i);
    }
  if (bad) atomicAdd(&counts[0], bad);
}

struct ReduceHalf {
  const uint4* in;        // this GPU's input
  const uint4* peer_in;   // the other GPU's input (peer reads)
  uint4* out;             // this GPU's output
  uint4* peer_out;        // the other GPU's output (peer writes)
  unsigned long long begin, end;  // this GPU's half, in uint4
};

__device__ __forceinline__ uint4 add4(uint4 x, uint4 y) { return make_uint4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }

// Barrier k: both GPUs' inputs are in place and the last all-reduce's reads are over. Then this GPU
// sums its half of the elements from both inputs and stores the sums into both outputs. Barrier
// k + 1: both outputs are whole before either kernel ends.
__global__ void peer_reduce_kernel(ReduceHalf h, PeerBarrier b, unsigned k) {
  if (!peer_barrier(b, k)) return;
  for (unsigned long long i = h.begin + blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < h.end; i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const uint4 s = add4(h.in[i], h.peer_in[i]);
    h.out[i] = s;
    h.peer_out[i] = s;
  }
  peer_barrier(b, k + 1);
}

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

ReduceRun gpu_all_reduce(Reduce r, int a, int b, std::uint64_t elements, std::uint64_t seed, int reps,
                         int iterations, std::uint64_t deadline_ns, NcclComms* nccl) {
  DeviceGuard keep;
  if (r == Reduce::peer) enable_peer_access(a, b);
  const int dev[kGpus] = {a, b};
  const std::size_t n = static_cast<std::size_t>(elements);
  OnDevice<unsigned> in0(a, n), out0(a, n), in1(b, n), out1(b, n);
  OnDevice<unsigned long long> counts0(a, 2), counts1(b, 2);
  const Pair pair(a, b);
  const cudaStream_t streams[kGpus] = {pair.stream(0), pair.stream(1)};
  unsigned* in[kGpus] = {in0.get(), in1.get()};
  unsigned* out[kGpus] = {out0.get(), out1.get()};
  for (int g = 0; g < kGpus; ++g) {
    CUDA_CHECK(cudaSetDevice(dev[g]));
    fill_kernel<<<1024, 256, 0, streams[g]>>>(in[g], n, seed, g);
    CUDA_CHECK_LAUNCH();
  }
  pair.sync();

  // The peer kernel: as many blocks as fit at once (its barrier spins), at most two per SM.
  BarrierWords w0(a), w1(b);
  const PeerBarrier pb[kGpus] = {peer_barrier_of(w0, w1, 0, 1, deadline_ns), peer_barrier_of(w1, w0, 1, 1, deadline_ns)};
  int blocks = 0;
  if (r == Reduce::peer) {
    const Coresidency c0 = cuda::coresidency_of(peer_reduce_kernel, kReduceThreads, 0, a);
    const Coresidency c1 = cuda::coresidency_of(peer_reduce_kernel, kReduceThreads, 0, b);
    blocks = std::min({c0.limit(), c1.limit(), 2 * std::min(c0.sm_count, c1.sm_count)});
  }
  const unsigned long long quads = n / 4, half = quads / 2;
  unsigned k = 1;
  const auto once = [&] {
    if (r == Reduce::nccl) {
      const std::uint32_t* const cin[kGpus] = {in[0], in[1]};
      std::uint32_t* const cout[kGpus] = {out[0], out[1]};
      nccl_all_reduce(*nccl, cin, cout, n, streams);
      return;
    }
    for (int g = 0; g < kGpus; ++g) {
      ReduceHalf h{reinterpret_cast<const uint4*>(in[g]), reinterpret_cast<const uint4*>(in[1 - g]),
                   reinterpret_cast<uint4*>(out[g]), reinterpret_cast<uint4*>(out[1 - g]),
                   g == 0 ? 0ull : half, g == 0 ? half : quads};
      PeerBarrier bg = pb[g];
      bg.blocks = static_cast<unsigned>(blocks);
      CUDA_CHECK(cudaSetDevice(dev[g]));
      peer_reduce_kernel<<<blocks, kReduceThreads, 0, streams[g]>>>(h, bg, k);
      CUDA_CHECK_LAUNCH();
    }
    k += 2;
  };

  // One all-reduce into zeroed outputs, checked element by element on each GPU.
  ReduceRun run;
  run.elements = elements;
  once();
  pair.sync();
  unsigned long long* counts[kGpus] = {counts0.get(), counts1.get()};
  for (int g = 0; g < kGpus; ++g) {
    CUDA_CHECK(cudaSetDevice(dev[g]));
    const unsigned long long init[2] = {0ull, ~0ull};
    CUDA_CHECK(cudaMemcpy(counts[g], init, sizeof(init), cudaMemcpyHostToDevice));
    verify_kernel<<<1024, 256, 0, streams[g]>>>(out[g], n, seed, counts[g]);
    CUDA_CHECK_LAUNCH();
  }
  pair.sync();
  for (int g = 0; g < kGpus; ++g) {
    unsigned long long c[2];
    CUDA_CHECK(cudaMemcpy(c, counts[g], sizeof(c), cudaMemcpyDeviceToHost));
    run.mismatches[g] = c[0];
    if (c[0] > 0 && (run.first_mismatch < 0 || static_cast<long long>(c[1]) < run.first_mismatch))
      run.first_mismatch = static_cast<long long>(c[1]);
  }

  // Then the time per all-reduce: `iterations` back to back, host-timed until both GPUs are done.
  once();  // warm-up
  pair.sync();
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) once();
    pair.sync();
    run.ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                     iterations);
  }
  run.deadline_hit = any_gave_up(w0, w1);
  return run;
}

}  // namespace cudasync::multi_gpu
