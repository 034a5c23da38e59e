// Relaunch and graph: one kernel per phase, the launch boundary as the barrier (back to back in a
// stream, or replayed from a CUDA graph); and the two probes every barrier is read against, the
// floor (one dependent L2 atomic) and the step of %globaltimer.
#include "techniques/lockfree_barrier/lockfree_barrier_phases.cuh"

namespace cudasync::lockfree_barrier {

using namespace gpu;

namespace {

// Relaunch: one launch per phase. Barrier 1 "arrives" when block b of kernel 1 has written and
// "releases" when block b of kernel 2 starts.
__global__ void __launch_bounds__(1024) relaunch_kernel(PhaseArgs a, int p) {
  const unsigned b = blockIdx.x;
  if (p == 2 && threadIdx.x == 0) a.release_ns[b] = now_ns();
  phase(a, p);
  if (p == 1) {
    __syncthreads();
    if (threadIdx.x == 0) a.arrive_ns[b] = now_ns();
  }
  if (threadIdx.x == 0) a.phases_done[b] = p;
}

// What relaunch costs: an empty grid of the same shape.
__global__ void __launch_bounds__(1024) empty_kernel(int* sink) {
  if (sink != nullptr && threadIdx.x == 0 && blockIdx.x == 0x7fffffff) *sink = 1;
}

// The floor: each atomic's address depends on the previous one's result (v < 2^31, so it is always
// word 0, but the hardware cannot know): one L2 round trip per atomic.
__global__ void floor_kernel(u32* word, int chain, long long* ns) {
  u32 v = 0;
  const unsigned long long t0 = globaltimer_ns();
  for (int i = 0; i < chain; ++i) v = atomicAdd(word + (v >> 31), 1u);
  const unsigned long long t1 = globaltimer_ns();
  ns[0] = static_cast<long long>(t1 - t0);
  ns[1] = v;
}

__global__ void timer_step_kernel(long long* out) {
  unsigned long long prev = globaltimer_ns(), best = ~0ull;
  for (int i = 0; i < 20000; ++i) {
    const unsigned long long t = globaltimer_ns();
    if (t != prev && t - prev < best) best = t - prev;
    prev = t;
  }
  out[0] = static_cast<long long>(best);
}

}  // namespace

namespace gpu {

GpuRun run_launches(const GpuSpec& s, const std::vector<std::uint32_t>& x0, bool graph) {
  GpuRun r;
  r.barrier = graph ? Barrier::graph : Barrier::relaunch;
  Buffers m(s.blocks, s.threads);
  PhaseArgs a = m.prepare(s, x0);
  cuda::Event start, stop;
  if (!graph) {
    start.record();
    for (int p = 1; p <= s.phases; ++p) {
      relaunch_kernel<<<s.blocks, s.threads>>>(a, p);
      CUDA_CHECK_LAUNCH();
    }
    stop.record();
  } else {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int p = 1; p <= s.phases; ++p) relaunch_kernel<<<s.blocks, s.threads, 0, stream>>>(a, p);
    CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    start.record(stream);
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    stop.record(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(g));
    CUDA_CHECK(cudaStreamDestroy(stream));
  }
  r.kernel_ms = cuda::elapsed_ms(start, stop);
  collect(r, m, s);
  return r;
}

Timing time_launches(const GpuSpec& s, int reps, int launches, bool graph) {
  Timing t;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraphExec_t exec = nullptr;
  if (graph) {
    cudaGraph_t g = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < launches; ++i) empty_kernel<<<s.blocks, s.threads, 0, stream>>>(nullptr);
    CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    CUDA_CHECK(cudaGraphDestroy(g));
  }
  const auto once = [&] {
    if (graph) {
      CUDA_CHECK(cudaGraphLaunch(exec, stream));
    } else {
      for (int i = 0; i < launches; ++i) empty_kernel<<<s.blocks, s.threads, 0, stream>>>(nullptr);
      CUDA_CHECK_LAUNCH();
    }
  };
  once();  // warm-up (and the graph's upload)
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (int i = 0; i < reps; ++i) {
    cuda::Event e0, e1;
    e0.record(stream);
    once();
    e1.record(stream);
    t.ns.push_back(static_cast<double>(cuda::elapsed_ms(e0, e1)) * 1e6 / launches);
  }
  if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return t;
}


}  // namespace gpu

std::vector<double> gpu_floor_ns(int reps, int chain) {
  DeviceBuffer<u32> word(1);
  DeviceBuffer<long long> ns(2);
  word.fill_bytes(0);
  std::vector<double> out;
  floor_kernel<<<1, 1>>>(word.get(), chain, ns.get());  // warm-up
  CUDA_CHECK_LAUNCH();
  for (int i = 0; i < reps; ++i) {
    floor_kernel<<<1, 1>>>(word.get(), chain, ns.get());
    CUDA_CHECK_LAUNCH();
    long long h[2] = {0, 0};
    ns.download(h, 2);
    out.push_back(static_cast<double>(h[0]) / chain);
  }
  return out;
}

double gpu_timer_step_ns() {
  DeviceBuffer<long long> out(1);
  timer_step_kernel<<<1, 1>>>(out.get());
  CUDA_CHECK_LAUNCH();
  long long h = 0;
  out.download(&h, 1);
  return static_cast<double>(h);
}

}  // namespace cudasync::lockfree_barrier
