#pragma once
// The course's exercises (`cudasync exercise`, `cudasync check`): a lesson declares them in a table,
// as it declares its parts. An exercise is a row: its number, its question and hint in English and
// Chinese, how its answer is COMPUTED NOW by running the lesson (on the GPU where there is one, else
// on the reference model; never a stored constant), and how a student's typed answer is read and
// compared, with the reason for a wrong one.
//
//   // warp_primitives_course.cpp
//   course::Exercise e;
//   e.number = 1;
//   e.id = "shfl-xor-lane";                      // the key in the progress state: stable
//   e.question = {"Which value does lane 5 receive from __shfl_xor_sync(0xffffffff, v, 3, 8)?", "..."};
//   e.hint = {"laneMask is xor-ed with the lane number ...", "..."};
//   e.format = {course::AnswerKind::integer};
//   e.compute = [](course::LessonRunner& r) {
//     const report::Report rep = r.run("warp-primitives", {"--part", "shfl-xor", "--lane-mask", "3", "--width", "8"});
//     ... read lane 5's cell of the "lanes" table ...
//     return course::Answer{"6", {"lane 5 ^ 3 = lane 6, which holds 6", "..."}};
//   };
//
// A row of kind `kernel` is a "write your own kernel" exercise: the student writes a __device__
// function in a file (`cudasync exercise <lesson> N --kernel FILE`); the row names a KernelRun in
// the registry (core/course/kernel_exercise.hpp) that compiles it, runs it and judges it.
//
// Plain C++: no CLI11, no CUDA.
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/course/kernel_spec.hpp"
#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::course {

// A text in the two languages of the lesson texts (`--lang en|zh`, as explain takes it).
struct Text {
  std::string en;
  std::string zh;
  // The text in `lang`; English where the Chinese is missing.
  const std::string& in(std::string_view lang) const { return lang == "zh" && !zh.empty() ? zh : en; }
};

// Runs a lesson in this process on the run's backend, as `cudasync <lesson> ARGS` would (its
// options parsed and validated as typed), and returns its report: an exercise reads its answer from
// it (core/course/lesson_runner.hpp). A usage error in ARGS is a bug of the exercise's row.
class LessonRunner {
 public:
  virtual ~LessonRunner() = default;
  virtual report::Report run(const std::string& lesson, const std::vector<std::string>& args) = 0;
  // The run's backend: ctx.gpu says whether the answer came from the GPU or the model.
  virtual const RunContext& context() const = 0;
};

// What the tool computed, now.
struct Answer {
  std::string value;  // canonical, in the form a student types it: "6", "0x0000ffff", "yes", "3,11"
  Text working;       // how it follows: "lane 5 ^ 3 = lane 6, which holds 6" (--answer, a wrong check)
  // The numbers the row's `why` text names ({src} in "lane 5 ^ 3 = lane {src}, which holds {answer}"):
  // when `working` is empty, it is that text with these filled in ({answer} is `value`).
  std::vector<std::pair<std::string, std::string>> values;
};

// The judgement of a student's answer.
struct Verdict {
  bool right = false;
  Text reason;  // why it is wrong (or, for a right one, why it is right): numbers from the run
};

// What a typed answer looks like. An answer of another shape is a usage error (exit 2) that says
// what is accepted (course/answer_format.hpp).
enum class AnswerKind {
  integer,  // a whole number, decimal or 0x hex: "6", "-1", "0x1f"
  mask,     // a 32-bit mask, hex or decimal, compared as a number; canonical "0x0000ffff"
  choice,   // one word of `choices`, case-insensitive: "yes", "no", "lockstep"
  lanes,    // a set of whole numbers, order-free: "3,11", "0-3,8"; canonical "0-3,8" (sorted)
};

struct AnswerFormat {
  AnswerKind kind = AnswerKind::integer;
  std::vector<std::string> choices;  // choice: the accepted words, lower-case
};

enum class Kind {
  computed,  // the student types an answer; `compute` runs the lesson for the right one
  kernel,    // the student writes a __device__ function in a file; a KernelRun judges it
};

struct Exercise {
  int number = 0;  // 1, 2, ... within the lesson: `cudasync exercise <lesson> N`
  std::string id;  // kebab-case, unique in the lesson and stable: the key in the progress state
  // Ids this exercise had in earlier releases: answers recorded under them still count (record_of).
  std::vector<std::string> former_ids;
  Kind kind = Kind::computed;
  Text question;  // the question only (no answer in it)
  Text hint;      // `--hint`: the first nudge, not the answer
  std::vector<Text> hints;  // the whole ladder, nearest the answer last (hint is hints[0])
  Text why;       // how the answer follows, with {names} the computed Answer fills in
  bool needs_gpu = false;  // only a GPU gives the answer: on the model it is waived (exit 77)

  // kind computed -----------------------------------------------------------------------------
  AnswerFormat format;
  // Runs the lesson (through the runner) and reads the answer from its report.
  std::function<Answer(LessonRunner&)> compute;
  // Optional: judges a typed answer, already in canonical form, against the computed one. Without
  // it: right when the canonical values are equal; a wrong one's reason is the answer's working.
  std::function<Verdict(const Answer& computed, const std::string& given)> compare;

  // kind kernel -------------------------------------------------------------------------------
  std::string kernel;   // the key of its KernelRun (core/course/kernel_exercise.hpp): "cg-reduce/block-sum"
  std::string starter;  // the starter file shipped with the lesson, relative to lessons/<lesson>/
  KernelSpec spec;      // the manifest's "kernel": what the checker runs and what it expects
};

// A lesson's place in the course: the short run the tour makes, the one sentence to remember, its
// exercises (numbered 1..N in order). main.cpp gives it with the lesson's row:
// `parts::command(warp_primitives::lesson(), warp_primitives::course())`.
struct LessonCourse {
  std::vector<std::string> tour_args;  // `cudasync tour` runs `cudasync <lesson> ARGS`: small and fast
  Text remember;                       // the one sentence to remember, ending the lesson's tour stop
  std::vector<Exercise> exercises;
  // What the lesson uses beyond "a GPU", and the catalog key of what uses it ("cooperative-launch",
  // "need.cooperative-launch"): `cudasync doctor` says, per lesson, what this machine lacks.
  std::vector<std::pair<std::string, std::string>> needs;
};

}  // namespace cudasync::course
