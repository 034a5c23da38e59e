#pragma once
// The reference model of threadfence's litmus tests: which outcomes the PTX memory model allows.
// The model writes each test as the PTX events it executes (weak or strong accesses with their
// scopes, release/acquire, fence.sc), enumerates every candidate execution (which write each read
// takes its value from, and the order of the fence.sc pairs), and keeps those the axioms accept.
// The axioms are those of the PTX ISA's "Memory Consistency Model" chapter in the formal form of
// Lustig, Sahasrabuddhe and Giroux, "A Formal Analysis of the NVIDIA PTX Memory Consistency Model"
// (ASPLOS 2019; their Alloy model ptx.als): SC per location, causality, coherence, atomicity and
// no-thin-air, with morally strong pairs, observation, release/acquire patterns and fence.sc order
// as they define them.
//
// Worked example: mp with __threadfence() on both sides, producer and consumer in different blocks.
// The flag store (strong) is read by the consumer's flag load (strong): that is an observation.
// The producer's fence.sc.gpu precedes the flag store and the consumer's fence.sc.gpu follows the
// flag load, and both fences are gpu-scoped, so they synchronize; the data store is then
// causally before the data load, and a data load that read the initial 0 would be from-read before
// the store: a cycle, which the causality axiom forbids. With __threadfence_block() instead the
// two fences' scope (one CTA) does not include the other thread: no synchronization, and r1 = 0
// is allowed.
#include <array>
#include <string>
#include <vector>

#include "techniques/threadfence/threadfence_model.hpp"

namespace cudasync::threadfence {

// ---- the PTX memory model ------------------------------------------------------------------------
enum class Scope : int { weak = 0, cta, gpu, sys };  // weak: an access with no scope (ld / st)

struct MmEvent {
  enum class Kind : int { read, write, fence };
  Kind kind = Kind::read;
  int thread = 0;
  int loc = -1;            // reads and writes: 0 = x, 1 = y
  Scope scope = Scope::weak;
  bool release = false;    // a write: st.release
  bool acquire = false;    // a read: ld.acquire
  bool sc = false;         // a fence: fence.sc (fence.acq_rel otherwise)
  int reg = -1;            // a read: the register it fills (0: r0, 1: r1), -1: not recorded
  int must_read = -1;      // a read: only executions where it read this value count (mp's wait)
  std::string text;        // the PTX: "st.volatile.global [y], 1"
};

struct MmProgram {
  std::vector<MmEvent> events;  // thread 0's events in program order, then thread 1's
  bool same_cta = false;
  int host_thread = -1;  // a thread that runs on the CPU: only .sys scopes contain it (-1: none)
};

// The PTX events a spec executes (what the kernels emit for it).
MmProgram ptx_program(const LitmusSpec& s);

// mp with the consumer on the host (the host-observer part). Thread 0, one GPU thread, writes the
// data into mapped host memory with plain stores, then fence f (none, device or system), then the
// flag with a volatile store; thread 1, a CPU thread, loads the flag as an acquire at system scope
// (a volatile load followed by std::atomic_thread_fence(acquire)), then the data with a plain load.
// r0: the flag (it waits for 1), r1: the data.
MmProgram host_observer_program(Fence f);

struct ModelVerdict {
  std::array<bool, kOutcomes> allowed{};  // by outcome_index(r0, r1)
  int executions = 0;                     // candidate executions enumerated
  int consistent = 0;                     // accepted by every axiom
  // When the weak outcome is forbidden: the axioms that rule out its candidate executions
  // ("causality", "SC per location"), joined with " and ".
  std::string forbidden_by;
  std::array<std::string, kOutcomes> reasons;  // the same for every forbidden outcome
  bool weak_allowed(Test t) const { return allowed[static_cast<std::size_t>(weak_outcome(t))]; }
};
ModelVerdict ptx_model(const MmProgram& p);
ModelVerdict ptx_model(const LitmusSpec& s);

// "10 11": the allowed outcomes, in index order.
std::string allowed_text(const ModelVerdict& v);

}  // namespace cudasync::threadfence
