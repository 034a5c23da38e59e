// The all-reduce (sum) of a large array across two GPUs: NCCL's, and one made by hand from the
// peer barrier and peer reads and writes. Each GPU's output is checked element by element on the
// GPU against reduced_value(), and each method timed over back-to-back all-reduces.
#include <algorithm>
#include <chrono>

#include "core/cuda/occupancy.cuh"
#include "techniques/multi_gpu/multi_gpu_cuda.cuh"
#include "techniques/multi_gpu/multi_gpu_gpu.hpp"
#include "techniques/multi_gpu/multi_gpu_nccl.cuh"

namespace cudasync::multi_gpu {

namespace {

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

ReduceRun gpu_all_reduce(Reduce r, int a, int b, std::uint64_t elements, std::uint64_t seed, int reps,
                         int iterations, std::uint64_t deadline_ns, NcclComms* nccl) {
  DeviceGuard keep;
  if (r == Reduce::peer) enable_peer_access(a, b);
  const int dev[kGpus] = {a, b};
  const std::size_t n = static_cast<std::size_t>(elements);
  OnDevice<unsigned> in0(a, n), out0(a, n), in1(b, n), out1(b, n);
  OnDevice<unsigned long long> counts0(a, 2), counts1(b, 2);
  DeviceStream s0(a), s1(b);
  const cudaStream_t streams[kGpus] = {s0.get(), s1.get()};
  unsigned* in[kGpus] = {in0.get(), in1.get()};
  unsigned* out[kGpus] = {out0.get(), out1.get()};
  for (int g = 0; g < kGpus; ++g) {
    CUDA_CHECK(cudaSetDevice(dev[g]));
    fill_kernel<<<1024, 256, 0, streams[g]>>>(in[g], n, seed, g);
    CUDA_CHECK_LAUNCH();
  }
  s0.sync();
  s1.sync();

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
  s0.sync();
  s1.sync();
  unsigned long long* counts[kGpus] = {counts0.get(), counts1.get()};
  for (int g = 0; g < kGpus; ++g) {
    CUDA_CHECK(cudaSetDevice(dev[g]));
    const unsigned long long init[2] = {0ull, ~0ull};
    CUDA_CHECK(cudaMemcpy(counts[g], init, sizeof(init), cudaMemcpyHostToDevice));
    verify_kernel<<<1024, 256, 0, streams[g]>>>(out[g], n, seed, counts[g]);
    CUDA_CHECK_LAUNCH();
  }
  s0.sync();
  s1.sync();
  for (int g = 0; g < kGpus; ++g) {
    unsigned long long c[2];
    CUDA_CHECK(cudaMemcpy(c, counts[g], sizeof(c), cudaMemcpyDeviceToHost));
    run.mismatches[g] = c[0];
    if (c[0] > 0 && (run.first_mismatch < 0 || static_cast<long long>(c[1]) < run.first_mismatch))
      run.first_mismatch = static_cast<long long>(c[1]);
  }

  // Then the time per all-reduce: `iterations` back to back, host-timed until both GPUs are done.
  once();  // warm-up
  s0.sync();
  s1.sync();
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) once();
    s0.sync();
    s1.sync();
    run.ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                     iterations);
  }
  run.deadline_hit = any_gave_up(w0, w1);
  return run;
}

}  // namespace cudasync::multi_gpu
