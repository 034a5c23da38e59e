// The GPU half of core/litmus/litmus_kernel.hpp: the generated kernel, loaded from NVRTC's machine
// code through the runtime's library API, launched again and again over fresh placements.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>

#include "core/cuda/check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/memory_stress.hpp"
#include "core/litmus/litmus_kernel.hpp"

namespace cudasync::litmus {

namespace {
constexpr unsigned long long kStartBudgetNs = 100'000'000;  // 100 ms for every block to arrive
}

Histogram gpu_run_litmus(const std::string& cubin, const LitmusTest& t, const LitmusGpuPlan& p, int launches,
                         std::uint64_t seed, bool stress, int device) {
  CUDA_CHECK(cudaSetDevice(device));
  cudaLibrary_t lib = nullptr;
  CUDA_CHECK(cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  Histogram h;
  try {
    cudaKernel_t kernel = nullptr;
    CUDA_CHECK(cudaLibraryGetKernel(&kernel, lib, kLitmusEntry));
    const std::size_t instances = static_cast<std::size_t>(p.instances());
    const std::size_t words = p.locs.size() * instances * kLineWords;
    const std::size_t nregs = instances * t.threads.size() * static_cast<std::size_t>(p.max_regs);
    cuda::DeviceBuffer<unsigned> mem(std::max<std::size_t>(words, 1)), regs(std::max<std::size_t>(nregs, 1)),
        perm(instances), start(1), late(1);
    std::optional<cuda::MemoryStress> stresser;
    if (stress) stresser.emplace();
    std::vector<unsigned> init(std::max<std::size_t>(words, 1), 0), order(instances);
    for (std::size_t l = 0; l < p.locs.size(); ++l) {
      const auto it = t.memory.find(p.locs[l]);
      const unsigned v = it == t.memory.end() ? 0u : static_cast<unsigned>(it->second);
      for (std::size_t i = 0; i < instances; ++i) init[(l * instances + i) * kLineWords] = v;
    }
    std::mt19937_64 gen(seed);
    for (int n = 0; n < launches; ++n) {
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), gen);
      mem.upload(init);
      regs.fill_bytes(0);
      perm.upload(order);
      start.fill_bytes(0);
      late.fill_bytes(0);
      unsigned* mem_p = mem.get();
      unsigned* regs_p = regs.get();
      const unsigned* perm_p = perm.get();
      unsigned* start_p = start.get();
      unsigned long long budget = kStartBudgetNs;
      unsigned* late_p = late.get();
      void* args[] = {&mem_p, &regs_p, &perm_p, &start_p, &budget, &late_p};
      CUDA_CHECK(cudaDeviceSynchronize());
      if (stresser) stresser->start();
      CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(p.blocks())),
                                  dim3(static_cast<unsigned>(32 * p.warps)), args, 0, nullptr));
      CUDA_CHECK(cudaStreamSynchronize(nullptr));
      if (stresser) stresser->stop();
      LitmusLaunchOut out;
      out.late = late.download()[0] != 0;
      out.regs = regs.download();
      const std::vector<unsigned> all = mem.download();
      out.mem.assign(p.locs.size() * instances, 0);
      for (std::size_t l = 0; l < p.locs.size(); ++l)
        for (std::size_t i = 0; i < instances; ++i) out.mem[l * instances + i] = all[(l * instances + order[i]) * kLineWords];
      tally(t, p, out, h);
    }
  } catch (...) {
    CUDA_CHECK_NOTHROW(cudaLibraryUnload(lib));
    throw;
  }
  CUDA_CHECK(cudaLibraryUnload(lib));
  return h;
}

}  // namespace cudasync::litmus
