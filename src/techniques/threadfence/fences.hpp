#pragma once
// threadfence's fences: the litmus tests (many concurrent instances on the GPU), what a fence costs,
// the probe kernels the ptx part reads, and a host thread watching the GPU through mapped memory.
// The plain types both backends use, the PTX memory model that judges the litmus tests, and the GPU
// entries (fences.cu); nvcc compiles it too, so it includes only the standard library.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_entry.hpp"

// Functions both the kernels and the host call.
#if defined(__CUDACC__)
#define CUDASYNC_TF_HD __host__ __device__
#else
#define CUDASYNC_TF_HD
#endif

namespace cudasync::threadfence {

inline constexpr int kWarpSize = 32;

// ---- litmus tests ---------------------------------------------------------------------------------
// Two threads ("sides") per instance; every instance has its own fresh locations x and y (0 at the
// start), and every store writes 1. r0 and r1 are the values the test records.
//   mp    side 0: x = 1; F0; y = 1              side 1: (reads x once, unrecorded); waits until
//                                                       y == 1 (r0); F1; r1 = x
//   sb    side 0: x = 1; F0; r0 = y             side 1: y = 1; F1; r1 = x
//   lb    side 0: r0 = x; F0; y = 1             side 1: r1 = y; F1; x = 1
//   corr  side 0: x = 1                         side 1: r0 = x; F1; r1 = x
// The weak outcome (one no interleaving of the two programs can give) is mp r0=1 r1=0 (flag seen,
// data stale), sb 0 0, lb 1 1, corr 1 0.
enum class Test : int { mp = 0, sb, lb, corr };
inline constexpr int kTests = 4;

// What sits between a side's two accesses. rel_acq is no fence: that side's synchronizing accesses
// become cuda::atomic_ref<unsigned, thread_scope_device> stores with memory_order_release and loads
// with memory_order_acquire (mp: the flag only; sb, lb, corr: every access of the side).
enum class Fence : int {
  none = 0,
  block,    // __threadfence_block()   membar.cta = fence.sc.cta
  device,   // __threadfence()         membar.gl  = fence.sc.gpu
  system,   // __threadfence_system()  membar.sys = fence.sc.sys
  rel_acq,  // cuda::atomic_ref release store / acquire load, device scope
};
inline constexpr int kFences = 5;

// How the accesses that are not release/acquire are made. mp's flag is always strong (volatile),
// because the consumer waits on it; `access` then applies to the data.
enum class Access : int {
  plain = 0,  // ld.global / st.global: weak (cached in the SM's L1)
  vol,        // ld.volatile / st.volatile: relaxed at system scope (what C++ volatile compiles to)
};

// Where the two sides of an instance run.
enum class Placement : int {
  different_blocks = 0,  // side 0 in block 2k, side 1 in block 2k+1 (in practice other SMs)
  same_block,            // side 0 in the first half of a block's warps, side 1 in the second half
};

struct LitmusSpec {
  Test test = Test::mp;
  Fence fence[2] = {Fence::none, Fence::none};  // side 0, side 1
  Access access = Access::plain;
  Placement placement = Placement::different_blocks;
  bool weak_wait = false;  // mp only: the consumer waits on the flag with plain loads
};

// r0 and r1 as one index: r0 * 2 + r1 (00, 01, 10, 11).
inline constexpr int kOutcomes = 4;
constexpr int outcome_index(int r0, int r1) { return r0 * 2 + r1; }

// What the GPU observed for one configuration.
struct LitmusCounts {
  std::uint64_t outcome[kOutcomes] = {0, 0, 0, 0};
  std::uint64_t timed_out = 0;  // instances not completed: a wait gave up at its deadline
  std::uint64_t instances = 0;  // every instance run, timed out ones included
  int blocks = 0;               // the grid of each launch
  int threads = 0;
  std::uint64_t pairs_per_round = 0;
  int rounds = 0;               // over all launches
  std::uint64_t pairs_same_sm = 0;  // of the first round's pairs, how many had both sides on one SM
  std::uint64_t pairs_checked = 0;
  std::uint64_t completed() const { return instances - timed_out; }
};

// ---- cost of a fence ---------------------------------------------------------------------------
// A loop of `iterations`: a store to the thread's own word, then the fence (or nothing). The last
// two are the peers every lesson prints: a dependent L2 load (ld.cg) and a dependent atomicAdd.
enum class CostVariant : int {
  none = 0,       // the store alone
  block,          // store; __threadfence_block()
  device,         // store; __threadfence()
  system,         // store; __threadfence_system()
  acq_rel,        // store; cuda::atomic_thread_fence(memory_order_acq_rel, thread_scope_device)
  release_store,  // cuda::atomic_ref<..., thread_scope_device>::store(v, memory_order_release)
  l2_load_chain,  // v = __ldcg(&chain[v]): one dependent L2 round trip per iteration
  atomic_chain,   // v = atomicAdd(&chain[v], 0): one dependent atomic per iteration
  device_alone,   // __threadfence() with no store before it: what the fence costs by itself
};
inline constexpr int kCostVariants = 9;
enum class CostShape : int {
  one_thread = 0,  // one block of one thread
  warp_per_sm,     // one block of one warp per SM, every lane its own word
};

// ---- a host thread watching the GPU through mapped memory ------------------------------------------
// One GPU thread, round after round: wait until the host says ready, store the round's data words
// (plain stores into mapped pinned host memory), the fence, then the flag (a volatile store). The host
// polls the flag, then reads the data: a word that is not the round's value is a stale read.
inline constexpr int kHostDataWords = 4;  // each on a cache line of its own

struct HostObserverSpec {
  int rounds = 2000;
  unsigned long long device_budget_ns = 100000000ull;  // each GPU wait for the host's "ready"
  int host_budget_ms = 100;                           // each host wait for the GPU's flag
};

struct HostObserverRun {
  std::uint64_t rounds = 0;      // rounds the host completed (saw the flag and read the data)
  std::uint64_t stale = 0;       // of them, rounds with at least one stale word
  std::uint64_t stale_words = 0;
  bool device_gave_up = false;   // a GPU wait reached its deadline
  bool host_gave_up = false;     // a host wait reached its deadline
  double ms = 0.0;               // the host's rounds, wall time
};

// ---- names ---------------------------------------------------------------------------------------
inline const std::vector<std::string> kTestNames = {"mp", "sb", "lb", "corr"};
inline const std::vector<std::string> kFenceNames = {"none", "block", "device", "system", "rel-acq"};
const char* to_string(Test t);
const char* to_string(Fence f);
const char* to_string(Access a);      // "plain", "volatile"
const char* to_string(Placement p);   // "different-blocks", "same-block"
std::optional<Test> parse_test(const std::string& s);
std::optional<Fence> parse_fence(const std::string& s);
std::string test_title(Test t);       // "message passing", in the run's language

// "device" when both sides have the same fence, else "device,none" (side 0, side 1).
std::string fences_text(const LitmusSpec& s);
// "r0=1 r1=0", and what r0 and r1 are for the test.
std::string outcome_text(int index);
std::string registers_meaning(Test t);  // in the run's language
// The weak outcome of each test: mp 10, sb 00, lb 11, corr 10.
int weak_outcome(Test t);

// Side 0 of corr is a single store: a fence before it has nothing to order. Such a spec is refused.
bool meaningful(const LitmusSpec& s);

// ---- the PTX memory model (memory_model.cpp) -------------------------------------------------------
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
// "00 01": the outcomes no candidate execution gives (mp's reader waits for the flag, so it never
// reads it 0), which are not forbidden by an axiom: they cannot happen. "(none)" when every
// outcome has an execution.
std::string impossible_text(const ModelVerdict& v);

// ---- litmus rows (litmus.cpp) ----------------------------------------------------------------------
// One litmus configuration: what the model allows and, on a GPU, what was seen.
struct LitmusRow {
  std::string label;               // the volatile part names its rows ("" elsewhere)
  LitmusSpec spec;
  long long iterations = 0;        // asked for
  unsigned long long budget_ns = 0;
  bool timeouts_expected = false;  // the volatile part's wait on a plain load
  ModelVerdict model;
  std::optional<LitmusCounts> gpu;
};
// A row the model has judged: model = ptx_model(spec).
LitmusRow make_row(const LitmusSpec& spec, long long iterations, unsigned long long budget_ns);

// The outcomes (outcome_index) the GPU saw that the model forbids: a finding each.
std::vector<int> forbidden_seen(const LitmusRow& r);
// The verdict of a row. Without GPU counts: "allowed" or "forbidden (causality)". With them:
// "allowed, seen", "allowed, not seen", "forbidden, not seen", "FORBIDDEN, SEEN"; a row whose wait
// may give up by design says how many did ("80 of 100 waits gave up", "every wait saw y = 1").
std::string litmus_verdict(const LitmusRow& r);
// The weak outcome's share of the completed instances (0..1); nullopt when none completed.
std::optional<double> weak_share(const LitmusCounts& c, Test test);

// What the checks of a litmus table say, over its rows.
struct LitmusSummary {
  int rows = 0;
  std::uint64_t completed = 0;       // instances completed, over the rows with GPU counts
  std::uint64_t bounded_waits = 0;   // instances of the rows whose waits must all end
  std::vector<std::string> findings;  // one per row that saw a forbidden outcome, naming it
  std::vector<std::string> timeouts;  // one per row with waits that gave up unexpectedly
};
LitmusSummary summarize(const std::vector<LitmusRow>& rows);

// ---- the GPU side (fences.cu) ---------------------------------------------------------------------
// Runs at least `iterations` instances of `spec` (whole rounds: every thread of the grid takes part
// in each round) as many concurrent pairs as the GPU holds at once, each instance on fresh
// locations. Every wait (the two sides' rendezvous, mp's flag) gives up after `wait_budget_ns`; a
// thread that gave up stops, and its instances count as timed out.
CUDASYNC_GPU_ENTRY(LitmusCounts, gpu_litmus, (const LitmusSpec& spec, long long iterations,
                                              unsigned long long wait_budget_ns))

// ns per iteration of the loop `variant` in `shape`: one sample per launch, `reps` launches.
CUDASYNC_GPU_ENTRY(std::vector<double>, gpu_cost_ns, (CostVariant variant, CostShape shape, int iterations, int reps))
// The SM clock against %globaltimer: ns per clock64 cycle.
CUDASYNC_GPU_ENTRY(double, gpu_ns_per_cycle, ())
// The host-observer rounds with `fence` (none, device or system) between the GPU's data and its
// flag. Every GPU wait has spec.device_budget_ns, every host wait spec.host_budget_ms.
CUDASYNC_GPU_ENTRY(HostObserverRun, gpu_host_observer, (const HostObserverSpec& spec, Fence fence))

}  // namespace cudasync::threadfence
