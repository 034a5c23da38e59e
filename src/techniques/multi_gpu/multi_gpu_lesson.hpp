#pragma once
// The multi-gpu lesson as core runs it: its options, what one run shares between parts, and its part
// table. Each part is defined in the file named after it; its section builder takes the model's and
// the GPUs' results, so tests feed it made-up GPU results.
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
#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/multi_gpu/multi_gpu_gpu.hpp"
#include "techniques/multi_gpu/multi_gpu_judge.hpp"

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
// --predict: the parts whose outcome a student predicts before the run (multi_gpu_prediction.cpp).
std::vector<parts::Prediction> predictions();

// ---- the parts (multi_gpu_<part>.cpp) -------------------------------------------------------------
report::Section host_flag_part(Run& run);
report::Section peer_flag_part(Run& run);
report::Section barrier_part(Run& run);
report::Section all_reduce_part(Run& run);
std::vector<report::Section> bench_sections(Run& run);
void bench_setup(Run& run, report::Section& s);

// ---- the flag handoff (multi_gpu_flags.cpp) -------------------------------------------------------
// The rows --fence chooses (the matrix without it), not yet run. host: the producer's fence only.
std::vector<FlagRow> flag_rows(const Options& o, Consumer where);
// The table of outcomes, the PTX of each side, the model's reasons, and the checks.
report::Section flag_section(const std::string& id, const std::string& title, const std::vector<FlagRow>& rows,
                             bool gpu_run);

// ---- the barrier (multi_gpu_barrier.cpp) ----------------------------------------------------------
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

// ---- the all-reduce (multi_gpu_all_reduce.cpp) ----------------------------------------------------
struct ReduceResult {
  Reduce method = Reduce::nccl;
  std::optional<ReduceRun> run;
  std::string waived;
};
const char* reduce_key(Reduce r);  // "nccl", "peer"
report::Section all_reduce_section(std::uint64_t elements, std::uint64_t seed, const std::vector<ReduceResult>& results,
                                   bool gpu_run);

}  // namespace cudasync::multi_gpu
