#pragma once
// "Write your own kernel" exercises (course::Kind::kernel): `cudasync exercise <lesson> N --kernel
// FILE`. A kernel exercise is a row of the lesson's manifest (its "kernel": files, shapes, expect:
// core/course/kernel_spec.hpp), a starter or broken program and a harness in lessons/<lesson>/kernels/;
// the checker (core/course/kernel_check.hpp) compiles the student's file with the harness (NVRTC,
// core/course/student_kernel.hpp), runs it on the GPU and on the PTX model and says launch by launch,
// thread by thread where it is wrong. No lesson code per exercise.
#include <cstdint>
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
  bool with_ptx_model = false;            // a GPU ran it, and the PTX model beside it
};

// The outcome of a student kernel that gave no values to judge: it did not compile (the compiler's
// messages, the student's file and lines, as a table), did not return before its deadline, or
// failed (a trap, an illegal address). nullopt when it ran.
struct StudentKernelResult;
std::optional<KernelOutcome> unfinished_outcome(const StudentKernelResult& r, const std::string& file);

}  // namespace cudasync::course
