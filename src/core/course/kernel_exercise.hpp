#pragma once
// "Write your own kernel" exercises (course::Kind::kernel): `cudasync exercise <lesson> N --kernel
// FILE`. The exercise command finds the row's KernelRun by its key in this registry and hands it the
// student's file; the run compiles it (NVRTC in a CUDA build), runs it on the GPU beside the model
// and says lane by lane or block by block where it is wrong.
//
// Registration is explicit, before the command line is parsed (main.cpp), never by a static
// object's constructor (cudasync_core is a static library: an object file nothing refers to would
// be left out of the binary, and its registration with it):
//
//   // main.cpp
//   course::register_kernel_run("cg-reduce/block-sum", cg_reduce::run_kernel_exercise);
//
// A kernel exercise whose key has no run in this build is refused with the reason (exit 77).
#include <functional>
#include <string>
#include <vector>

#include "core/course/exercise.hpp"
#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::course {

struct KernelRequest {
  std::string lesson;        // "cg-reduce"
  const Exercise* exercise;  // the row (its number, id, key, starter)
  std::string file;          // --kernel FILE, as typed
  std::string lang;          // "en" or "zh": the language of the reasons
  const RunContext* ctx;     // the backend: without a GPU throw WaivedError (exit 77) with the reason
};

struct KernelOutcome {
  Verdict verdict;                      // right, and the reason in both languages
  std::vector<report::Section> sections;  // what the run showed: lanes or blocks, where it is wrong
};

// Throws UsageError for a file it cannot read or compile (the compiler's messages with the
// student's own line numbers), WaivedError without a GPU.
using KernelRun = std::function<KernelOutcome(const KernelRequest&)>;

// Registers `run` under `key` (a later registration of the same key replaces it).
void register_kernel_run(const std::string& key, KernelRun run);
// The run registered under `key`, or nullptr.
const KernelRun* find_kernel_run(const std::string& key);

}  // namespace cudasync::course
