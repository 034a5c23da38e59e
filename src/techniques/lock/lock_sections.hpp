#pragma once
// Turns model and GPU results into Report sections. No CUDA here: in a model run the GPU results
// are empty, and every figure only a GPU can give says "needs a GPU".
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_listing.hpp"
#include "core/report/report.hpp"
#include "techniques/lock/lock_copy.hpp"
#include "techniques/lock/lock_model.hpp"

namespace cudasync::lock {

struct Setup {
  bool gpu = false;
  std::string device;      // "GPU 0, NVIDIA H100 80GB HBM3, 132 SMs, cc 9.0"
  std::vector<std::string> parts;
  std::vector<Regime> regimes;  // the model's traces
};
report::Section setup_section(const Setup& s);

// Part 1: the seed's class around its two critical sections, atomicAdd (timed) and *cnt = *cnt + 1.
struct ClassPart {
  RunSpec spec;                  // book_atomic_add; the plain runs use the same grid
  SimResult model, model_plain;  // a few blocks, independent threads
  std::vector<LockRun> gpu;      // atomicAdd, one per timed launch
  std::vector<LockRun> gpu_plain;
};
report::Section lock_class_section(const ClassPart& p, bool gpu_run);

// Part 2. One case per block size; traces with a few lanes in the regimes asked for.
struct WarpCase {
  RunSpec spec;
  SimResult lockstep, independent;  // the model at the case's own size (one iteration)
  std::optional<LockRun> gpu;
};
struct WarpPart {
  std::vector<WarpCase> cases;
  std::vector<SimResult> traces;
  std::string sass_note;  // what the lock kernel's spin compiled to, when the listing has it
};
report::Section warp_deadlock_section(const WarpPart& p, bool gpu_run);

// Part 3.
struct StaleRow {
  Variant variant;
  SimResult model;            // two blocks, two iterations
  std::vector<LockRun> gpu;   // one per run
  std::vector<std::string> compiled;  // the kernel's fence and cache instructions (SASS), if listed
};
struct StalePart {
  RunSpec spec;               // blocks, iterations (variant unused)
  int runs = 4;
  std::vector<StaleRow> rows;
  SimResult trace;            // the model's run of the seed's code, step by step
  std::string arch;           // the SASS shown ("sm_90"), "" when none
};
report::Section stale_reads_section(const StalePart& p, bool gpu_run);

// Part 4.
struct CopyPart {
  std::optional<CopyOutcome> child;
  std::vector<FixRun> fixes;
  std::string fixes_error;   // when the fixes could not run
};
report::Section copy_destructor_section(const CopyPart& p, bool gpu_run);

// Part 5.
struct ThreadLockPart {
  RunSpec spec;
  SimResult lockstep, independent;  // one warp, the model
  std::vector<SimResult> traces;
  std::vector<LockRun> gpu;
};
report::Section thread_lock_section(const ThreadLockPart& p, bool gpu_run);

// Part 6, beyond the seed: the combining lock, and the CAS lock at the same grid in the same run.
struct CombiningPart {
  RunSpec spec;                     // combining
  SimResult lockstep;               // the model: one warp of 32 lanes in lockstep
  SimResult independent;            // the model: the traces' shape, independent threads
  std::vector<SimResult> traces;
  std::vector<LockRun> gpu;         // combining, one per timed launch
  RunSpec cas;                      // the CAS lock (Variant::fenced) at the same grid; iters 0: not run
  std::vector<LockRun> gpu_cas;     // one per timed launch
};
report::Section combining_section(const CombiningPart& p, bool gpu_run);

// --bench: every lock at every contention level.
struct BenchConfig {
  int blocks = 1;
  int threads = 1;
  int iters = 1;
};
struct BenchCell {
  Variant variant;
  BenchConfig config;
  std::vector<LockRun> gpu;  // one per repetition
};
struct BenchPart {
  std::vector<Variant> locks;        // rows, the CAS baseline among them
  std::vector<BenchConfig> configs;  // columns
  std::vector<BenchCell> cells;      // locks x configs
  std::vector<SimResult> verdicts;   // the model: each lock in one warp, lockstep and independent
  int reps = 0;
};
report::Section bench_section(const BenchPart& p, bool gpu_run);

// Names and helpers shared by lock.cpp and the sections.
const char* variant_name(Variant v);       // "CAS spin lock (acquire/release)"
const char* kernel_name(Variant v);        // "cas_kernel"
std::string grid_text(int blocks, int threads);  // "<<<132, 1>>>"
double ns_per_acquisition(const LockRun& r);
// The fence and cache instructions of this lesson's kernel `name` for `arch`, from the listing.
std::vector<std::string> lesson_sass(const KernelListing& listing, const std::string& arch, const std::string& name);

}  // namespace cudasync::lock
