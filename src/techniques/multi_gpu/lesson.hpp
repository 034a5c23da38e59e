#pragma once
// multi-gpu: how one GPU knows another has finished writing. A flag handed from one GPU to another
// (and from a GPU to a host thread) under each fence (flags.*), a barrier across two GPUs built on
// device-scope counters and system-scope release stores into the peer's flag (no atomic crosses the
// link) beside NCCL's and the streams', and an all-reduce of a large array, NCCL against the
// hand-made one (barrier.*, on the pair of pair.*); --bench (bench.cpp). This header is the lesson as
// core runs it: its options, what one run shares between parts, the reference model, the verdicts
// and each part's section builder, which takes the model's and the GPUs' results, so tests feed it
// made-up GPU results.
//
// Devices: the two-GPU parts (peer-flag, barrier, all-reduce, --bench) run on the pair --devices
// A,B (default 0,1); host-flag runs on the GPU the global --device chose. On a GPU run with fewer
// than two GPUs, or two that cannot reach each other's memory, the two-GPU parts are waived with
// the reason (exit 77 when every part asked for is); the NCCL rows are waived where NCCL is not
// built in or does not load. --bench keeps its tables' shape instead: each cell that cannot run
// says why, and the run exits 0 (`cudasync bench` collects every lesson's tables). The model
// backend runs every part's model.
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/coresidency.hpp"
#include "core/course/exercise.hpp"
#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/multi_gpu/barrier.hpp"
#include "techniques/multi_gpu/flags.hpp"

namespace cudasync::multi_gpu {

// A sentence of this lesson's catalog (lessons/multi-gpu/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("multi-gpu", key, args);
}

inline constexpr long long kDefaultIterations = 20000;  // per flag row: the default run stays around a second
inline constexpr long long kMaxIterations = 200000;  // five host-flag rows of it take ~4 s on an H200
inline constexpr int kDefaultPhases = 16;
inline constexpr int kMaxPhases = 10000;
inline constexpr int kBarrierThreads = 256;
inline constexpr int kMaxBlocks = 4096;  // per GPU
inline constexpr int kModelSmCount = 132;
inline constexpr int kDefaultMib = 64;   // all-reduce: MiB per GPU
inline constexpr int kMaxMib = 1024;
inline constexpr int kDefaultDeadlineMs = 1000;
inline constexpr int kMaxDeadlineMs = 10000;
inline constexpr int kMaxDevice = 1023;

struct Options {
  std::vector<int> devices;          // --devices A,B; empty: 0,1
  std::vector<std::string> fence;    // empty: the matrix; one (both sides) or two (producer, consumer)
  std::optional<long long> iterations;
  std::optional<int> blocks;         // per GPU; default one per SM
  int phases = kDefaultPhases;
  int mib = kDefaultMib;
  int deadline_ms = kDefaultDeadlineMs;
};

struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  const RunContext& ctx;
  Options options;
  bool bench = false;              // --bench: the sweep runs instead of the parts
  int dev[kGpus] = {0, 1};         // --devices
  long long iterations = kDefaultIterations;
  int visible = 0;                 // the GPUs this process sees (a GPU run)
  std::string pair_waiver;         // a GPU run cannot use the pair: why (empty on the model)
  std::optional<PeerInfo> peer;    // a GPU run with the pair
  std::string peer_waiver;         // the pair cannot reach each other's memory: why
  std::string nccl_waiver;         // NCCL cannot run here: why
  BarrierSpec barrier;             // the barrier part's computation
  Coresidency resident;            // what the barrier's kernels may hold at once per GPU
  std::shared_ptr<NcclComms> nccl;
  // NCCL's communicators take most of a second to open (831 ms on two H100s): a default run opens
  // them on a thread of their own while host-flag and peer-flag run, and open_nccl() waits for them.
  std::future<std::shared_ptr<NcclComms>> nccl_opening;

  std::uint64_t budget_ns() const { return static_cast<std::uint64_t>(options.deadline_ms) * 1'000'000ull; }
  std::string pair_text() const;   // "GPUs 0 and 1", in the run's language
  // Throws WaivedError naming `part` when a GPU run cannot use the pair (or its peer access).
  void require_pair(const std::string& part) const;
  void require_peer(const std::string& part) const;
  // NCCL's communicators, opened on first use; nullptr (with nccl_waiver saying why) where NCCL
  // cannot run.
  NcclComms* open_nccl();
};

const parts::Lesson<Options, Run>& lesson();
// multi-gpu's place in the course: its tour stop, from lessons/multi-gpu/lesson.json. It has no
// exercises yet: its answers come from two-GPU parts that a machine with one GPU waives.
const course::LessonCourse& course();

// The reference model of multi-gpu, for machines without GPUs and to check the GPU where one runs:
//   - the flag handoff: whether the PTX memory model allows the stale outcome, by its scope rules;
//   - the barrier: the values of the multi-phase computation, and the protocol's steps simulated
//     over random interleavings (every block of both GPUs must arrive before any leaves);
//   - the all-reduce: the sums (reduced_value in barrier.hpp).
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
// ---- fences by name -----------------------------------------------------------------------------
const std::vector<std::string>& fence_names();  // none, device, system, rel-acq-device, rel-acq-system
const char* fence_key(Fence f);
std::optional<Fence> parse_fence(const std::string& name);
// "__threadfence_system()", "atomic_ref<thread_scope_system> release/acquire"
const char* fence_code(Fence f);

// ---- the flag handoff ---------------------------------------------------------------------------
enum class Scope : int { none = 0, cta, gpu, sys };

struct FlagVerdict {
  bool stale_allowed = true;
  std::string reason;         // the rule that allows or forbids it, in a sentence
  std::string producer_ptx;   // "st.global [data], 1; fence.sc.sys; st.relaxed.sys [flag], 1"
  std::string consumer_ptx;
};
FlagVerdict flag_model(const FlagSpec& s);

// ---- the barrier: values ------------------------------------------------------------------------
// The starting values of both GPUs (GPU A's half first).
std::vector<std::uint32_t> start_values(const BarrierSpec& s, std::uint64_t seed);
// The values after s.phases phases, computed on the CPU from start_values().
std::vector<std::uint32_t> model_values(const BarrierSpec& s, std::uint64_t seed);

// ---- the barrier: the protocol, step by step ----------------------------------------------------
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


// ---- verdicts: the flag handoff -----------------------------------------------------------------
// One configuration: what the model allows and, on a GPU, what was seen.
struct FlagRow {
  FlagSpec spec;
  FlagVerdict model;
  std::optional<FlagCounts> gpu;
};
FlagRow make_flag_row(const FlagSpec& spec);

// Without GPU counts: "allowed" or "forbidden". With them: "allowed, seen", "allowed, not seen",
// "forbidden, not seen", "FORBIDDEN, SEEN" (in the run's language).
std::string flag_verdict(const FlagRow& r);
// The GPUs read stale data where the model forbids it ("FORBIDDEN, SEEN").
bool forbidden_seen(const FlagRow& r);
// The stale share of the completed instances (0..1); nullopt when none completed.
std::optional<double> stale_share(const FlagCounts& c);

struct FlagSummary {
  std::uint64_t completed = 0;           // over the rows with GPU counts
  std::uint64_t stale_where_forbidden = 0;  // stale reads in rows whose model forbids them
  std::uint64_t checked_where_forbidden = 0;  // completed instances of those rows
  std::vector<std::string> findings;     // one per row that saw a stale read the model forbids
  std::vector<std::string> timeouts;     // one per row with waits that gave up
};
FlagSummary summarize(const std::vector<FlagRow>& rows);
// "system -> system", "device -> host"
std::string row_label(const FlagSpec& s);

// ---- verdicts: the barrier and the all-reduce ---------------------------------------------------
struct ValuesDiff {
  std::size_t compared = 0;
  std::size_t differ = 0;
  std::int64_t first = -1;  // the first index that differs (-1: none)
  bool same() const { return differ == 0 && compared > 0; }
};
// Element by element; a size mismatch counts every missing element as differing.
ValuesDiff compare_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model);

// GB/s (1e9 bytes per second) of `bytes` moved in `ns`; 0 for a time that is not positive.
double gbps(std::uint64_t bytes, double ns);
// Each sample as GB/s of `bytes`.
std::vector<double> gbps_samples(std::uint64_t bytes, const std::vector<double>& ns);


// ---- the parts ----------------------------------------------------------------------------------
report::Section host_flag_part(Run& run);
report::Section peer_flag_part(Run& run);
report::Section barrier_part(Run& run);
report::Section all_reduce_part(Run& run);
std::vector<report::Section> bench_sections(Run& run);
void bench_setup(Run& run, report::Section& s);

// ---- the flag handoff (flags.cpp) ---------------------------------------------------------------
// The rows --fence chooses (the matrix without it), not yet run. host: the producer's fence only.
std::vector<FlagRow> flag_rows(const Options& o, Consumer where);
// The table of outcomes, the PTX of each side, the model's reasons, and the checks.
report::Section flag_section(const std::string& id, const std::string& title, const std::vector<FlagRow>& rows,
                             bool gpu_run);

// ---- the barrier (barrier.cpp) ------------------------------------------------------------------
// What one method did on the GPUs: nullopt run where it was not run (model, waived).
struct MethodResult {
  Method method = Method::peer;
  std::optional<BarrierRun> run;
  std::vector<double> ns;          // per barrier
  bool timing_deadline_hit = false;
  std::string waived;              // this method could not run here: why
};
const char* method_key(Method m);  // "peer", "nccl", "event"
report::Section barrier_section(const BarrierSpec& spec, const std::vector<std::uint32_t>& model,
                                const std::vector<MethodResult>& results, bool gpu_run, std::uint64_t seed);

// ---- the all-reduce (barrier.cpp) ---------------------------------------------------------------
struct ReduceResult {
  Reduce method = Reduce::nccl;
  std::optional<ReduceRun> run;
  std::string waived;
};
const char* reduce_key(Reduce r);  // "nccl", "peer"
report::Section all_reduce_section(std::uint64_t elements, std::uint64_t seed, const std::vector<ReduceResult>& results,
                                   bool gpu_run);

}  // namespace cudasync::multi_gpu
