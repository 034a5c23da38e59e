#pragma once
// "Write your own kernel" exercises (course::Kind::kernel): `cudasync exercise <lesson> N --kernel
// FILE`. The exercise command finds the row's KernelRun by its key in this registry and hands it the
// student's file; the run compiles it (NVRTC, core/course/student_kernel.hpp), runs it on the GPU
// beside the model and says lane by lane or block by block where it is wrong.
//
// A lesson declares such a row in its course table with kernel_exercise(), which registers the run
// under "<lesson>/<id>". Registration happens when main's table calls the lesson's course(), never
// by a static object's constructor (cudasync_core is a static library: an object file nothing
// refers to would be left out of the binary, and its registration with it).
//
// A kernel exercise whose key has no run in this build is refused with the reason (exit 77).
#include <cstdint>
#include <functional>
#include <optional>
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
  bool on_ptx_model = false;              // no GPU: the PTX model ran it (core/ptx)
};

// Throws UsageError for a file it cannot read, WaivedError without a GPU or NVRTC. A file that does
// not compile, a kernel that does not return or faults, is a wrong answer (unfinished_outcome).
using KernelRun = std::function<KernelOutcome(const KernelRequest&)>;

// A kernel exercise's row (its question and hint come from the lesson's text, lesson_course), its
// run registered under "<lesson>/<id>". `starter` is the file shipped in lessons/<lesson>/.
Exercise kernel_exercise(const std::string& lesson, int number, std::string id, std::string starter, KernelRun run);

// The outcome of a student kernel that gave no values to judge: it did not compile (the compiler's
// messages, the student's file and lines, as a table), did not return before its deadline, or
// failed (a trap, an illegal address). nullopt when it ran.
struct StudentKernelResult;
std::optional<KernelOutcome> unfinished_outcome(const StudentKernelResult& r, const std::string& file);

// The body of a lesson's KernelRun: reads the student's file, compiles it after `harness` (the
// tool's kernel, which calls the student's function with one int per thread and stores one int per
// thread) and runs it <<<grid, block>>> on `in` in a child process under a deadline; then judges
// what every thread returned with `judge(in, out)`, or says why there is nothing to judge.
using KernelJudge = std::function<KernelOutcome(const std::vector<std::int32_t>& in,
                                                const std::vector<std::int32_t>& out)>;
KernelOutcome compile_run_judge(const KernelRequest& request, const char* harness, int grid, int block,
                                std::vector<std::int32_t> in, const KernelJudge& judge);

// Registers `run` under `key` (a later registration of the same key replaces it).
void register_kernel_run(const std::string& key, KernelRun run);
// The run registered under `key`, or nullptr.
const KernelRun* find_kernel_run(const std::string& key);

}  // namespace cudasync::course
