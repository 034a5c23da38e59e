#pragma once
// A litmus test as a CUDA kernel (compiled at run time with NVRTC), and what the runs of it saw.
//
// Each launch runs `instances` copies of the test at once. A test's CTAs are roles: block b plays
// role b % roles in group b / roles, and each test thread of a role is one warp of that block;
// lane l of group g is instance g * 32 + l. So the threads of one instance are in different
// blocks exactly where the test puts them in different CTAs, and in one block where it puts them
// in one. Every location of an instance sits on a cache line of its own, at a place a random
// permutation (new each launch) chooses. All blocks meet at a start flag (with a %globaltimer
// deadline) before they run their instructions, so that the instances' threads overlap.
//
// The instructions are the test's own PTX, as inline asm with .global and a 32-bit type added:
//   st.release.gpu y, 1   ->  asm volatile("st.release.gpu.global.u32 [%0], %1;" ...)
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/litmus/litmus_test.hpp"

namespace cudasync::litmus {

inline constexpr const char* kLitmusEntry = "cudasync_litmus";
inline constexpr int kLineWords = 32;  // a location per 128-byte line

struct LitmusGpuPlan {
  int roles = 1;                        // CTAs of the test
  int warps = 1;                        // warps per block: the most test threads any role has
  int groups = 64;                      // blocks per role
  std::vector<std::vector<int>> thread_at;  // [role][warp]: the test thread, or -1
  std::vector<std::string> locs;        // locations, in order
  std::vector<std::vector<std::string>> regs;  // per test thread: its registers, in order
  int max_regs = 1;
  int instances() const { return groups * 32; }
  int blocks() const { return groups * roles; }
};

// Why the test cannot run on a GPU ("" when it can): a host thread, two GPUs, a barrier.
std::string gpu_unsupported(const LitmusTest& t);

LitmusGpuPlan plan_gpu_run(const LitmusTest& t, int groups);

// The CUDA C++ source NVRTC compiles: extern "C" __global__ cudasync_litmus(mem, regs, perm, start,
// deadline_ns, late).
std::string litmus_kernel_source(const LitmusTest& t, const LitmusGpuPlan& p);

// One launch's raw results: per instance, per test thread, its registers (max_regs each); per
// instance, per location, the final value.
struct LitmusLaunchOut {
  std::vector<std::uint32_t> regs;  // [instance][thread][reg]
  std::vector<std::uint32_t> mem;   // [loc][instance]
  bool late = false;                // some block reached the start after its deadline
};

// What the runs saw: how often each outcome (the values the condition reads) and how often the
// outcome in question.
struct Histogram {
  long long instances = 0;
  long long target = 0;  // instances that gave the outcome in question
  std::map<std::string, long long> outcomes;  // "P1:r0=1 P1:r1=0" -> count
  int late_launches = 0;
};
void tally(const LitmusTest& t, const LitmusGpuPlan& p, const LitmusLaunchOut& out, Histogram& h);

}  // namespace cudasync::litmus

#include "core/gpu_entry.hpp"

namespace cudasync::litmus {
// Loads `cubin` (litmus_kernel_source compiled for the GPU) on `device` and runs `launches`
// launches of p.instances() instances each, a fresh permutation of the instances' lines per launch
// (seeded), with a memory-stress kernel beside each where `stress`; tallies what they saw.
CUDASYNC_GPU_ENTRY(Histogram, gpu_run_litmus,
                   (const std::string& cubin, const LitmusTest& t, const LitmusGpuPlan& p, int launches,
                    std::uint64_t seed, bool stress, int device))
}  // namespace cudasync::litmus
