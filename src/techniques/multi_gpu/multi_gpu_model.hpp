#pragma once
// The reference model of multi-gpu, for machines without GPUs and to check the GPU where one runs:
//   - the flag handoff: whether the PTX memory model allows the stale outcome, by its scope rules;
//   - the barrier: the values of the multi-phase computation, and the protocol's steps simulated
//     over random interleavings (every block of both GPUs must arrive before any leaves);
//   - the all-reduce: the sums (reduced_value in multi_gpu.hpp).
//
// The flag rule, from the PTX ISA's memory consistency model (its "morally strong" relation and
// release / acquire patterns): the data store happens before the data load, and the load cannot
// then return the initial 0, only when
//   (1) the producer has a release pattern (fence.sc or a release store of the flag) and the
//       consumer an acquire pattern (an acquire load of the flag, or a fence after its load),
//   (2) the scope of each holds both threads: on two GPUs, or a GPU and a host thread, that is .sys
//       (.gpu holds one GPU's threads, .cta one block's), and
//   (3) the consumer's load of the flag observes the producer's store through a morally strong
//       pair: both strong (relaxed, release or acquire, or volatile, which is relaxed.sys) at
//       scopes that hold both threads.
// Anything less, and no axiom forbids the stale outcome: a plain load may be served by the
// consumer's L1, a write to the other GPU may travel by a path that overtakes another.
// Worked example: --fence device on two GPUs. __threadfence() is fence.sc.gpu; its scope is the
// producer's GPU, which does not hold the consumer: no release pattern at a scope holding both
// threads, so (2) fails and a stale read is allowed, however fast the fence made it in practice.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "techniques/multi_gpu/multi_gpu.hpp"

namespace cudasync::multi_gpu {

// ---- fences by name ------------------------------------------------------------------------------
const std::vector<std::string>& fence_names();  // none, device, system, rel-acq-device, rel-acq-system
const char* fence_key(Fence f);
std::optional<Fence> parse_fence(const std::string& name);
// "__threadfence_system()", "cuda::atomic_ref<.., thread_scope_system> release / acquire"
const char* fence_code(Fence f);

// ---- the flag handoff ----------------------------------------------------------------------------
enum class Scope : int { none = 0, cta, gpu, sys };
const char* scope_name(Scope s);  // "", ".cta", ".gpu", ".sys"

struct FlagVerdict {
  bool stale_allowed = true;
  std::string reason;         // the rule that allows or forbids it, in a sentence
  std::string producer_ptx;   // "st.global [data], 1; fence.sc.sys; st.relaxed.sys [flag], 1"
  std::string consumer_ptx;
};
FlagVerdict flag_model(const FlagSpec& s);

// ---- the barrier: values -------------------------------------------------------------------------
// The starting values of both GPUs (GPU A's half first).
std::vector<std::uint32_t> start_values(const BarrierSpec& s, std::uint64_t seed);
// The values after s.phases phases, computed on the CPU from start_values().
std::vector<std::uint32_t> model_values(const BarrierSpec& s, std::uint64_t seed);

// ---- the barrier: the protocol, step by step -----------------------------------------------------
// Two GPUs of `blocks` blocks each run `barriers` barriers; a random scheduler picks which block
// makes its next step: arrive (the counter), publish (the last of its GPU: the flag in both GPUs'
// copies, one step each), poll (pass, or wait). `cross_gpu` false is the broken variant a
// one-GPU grid barrier gives: each GPU publishes and polls its own flag only.
struct ProtocolStep {
  int gpu = 0, block = 0;
  int barrier = 1;
  std::string action;   // "arrive: 1 -> 2, last of GPU 0", "publish flag[0]=1 on GPU 1 (peer)"
  std::string counters;  // "2 | 1"
  std::string flags[kGpus];  // each GPU's copy: "1,0"
};
struct ProtocolSim {
  int blocks = 2, barriers = 1, schedules = 0;
  bool cross_gpu = true;
  std::vector<ProtocolStep> steps;  // the first schedule, every state change and each first wait
  int early = 0;                    // schedules in which a block left barrier k before all 2 x blocks arrived
  std::string first_early;          // the first such leave, in words
};
ProtocolSim simulate_protocol(int blocks, int barriers, int schedules, std::uint64_t seed, bool cross_gpu);

}  // namespace cudasync::multi_gpu
