#include "commands/exercise.hpp"

#include "core/course/exam.hpp"

#include <memory>
#include <optional>

#include "commands/course_common.hpp"
#include "core/words/words.hpp"
#include "core/cli/option_checks.hpp"
#include "core/course/answer_format.hpp"
#include "core/course/kernel_check.hpp"
#include "core/course/lesson_runner.hpp"
#include "core/course/progress.hpp"
#include "core/course/student_kernel.hpp"
#include "core/errors.hpp"
#include "core/lesson_texts.hpp"
#include "core/log.hpp"
#include "core/parts/child.hpp"
#include "core/version.hpp"

namespace cudasync::commands {

namespace {

using report::Format;

// What an exercise's answer may be, in the run's language (course::accepted gives the English of a
// usage error).
std::string accepted_words(const course::AnswerFormat& f) {
  std::string choices;
  for (std::size_t i = 0; i < f.choices.size(); ++i) choices += (i ? ", " : "") + f.choices[i];
  switch (f.kind) {
    case course::AnswerKind::integer: return words::core("answer.accepts-integer");
    case course::AnswerKind::mask: return words::core("answer.accepts-mask");
    case course::AnswerKind::choice: return words::core("answer.accepts-choice", {{"choices", choices}});
    case course::AnswerKind::lanes: return words::core("answer.accepts-lanes");
  }
  return "";
}

struct ExerciseOptions {
  std::string lesson;
  std::optional<int> number;
  bool hint = false;
  bool answer = false;
  std::string kernel;
  bool starter = false;
  std::string lang = "en";
  // The hidden child mode that runs a student's kernel (core/course/student_kernel.hpp).
  std::string child, child_out, kernel_request;
};

// Why this machine cannot run a kernel exercise's compiler, or "" when it can: a model-only
// binary has none, and NVRTC is loaded at run time (libnvrtc.so.<major>).
std::string kernel_exercises_blocked() {
  if (!kCudaBuiltIn) return "this cudasync was built without CUDA, so it has no NVRTC";
  const std::string missing = course::nvrtc_missing();
  if (missing.empty()) return "";
  const std::string toolkit = kCudaToolkitVersion;
  const std::string major = toolkit.substr(0, toolkit.find('.'));
  return missing + "; install cuda-nvrtc-" + major + "-x (NVIDIA's CUDA repository), see cudasync doctor";
}

std::string status_of(const course::Progress& p, const std::string& lesson, const course::Exercise& e) {
  const course::ExerciseRecord* r = course::record_of(p, lesson, e);
  if (r == nullptr) return "-";
  return r->solved ? "solved" : "tried";
}

report::Report overview(const std::vector<cli::Command>& table) {
  report::Report r;
  r.command = "exercise";
  r.title = words::core("exercise.overview-title");
  r.sections.push_back(progress_section("exercises", words::core("exercise.overview-heading"), table));
  return r;
}

report::Report listing(const course::CourseLesson& l, const std::string& lang) {
  const course::Progress progress = load_student_progress();
  const std::string& name = l.command->name;
  report::Report r;
  r.command = "exercise";
  r.title = "cudasync exercise " + name;
  report::Section s("exercises", words::core("exercise.listing-heading", {{"lesson", name}}));
  s.paragraph(words::core("exercise.listing-about", {{"lesson", name}}));
  report::Table t("exercises", words::core("exercise.exercises"));
  t.column("number", "#").column("status", words::core("exercise.status")).column("question", words::core("exercise.question"));
  bool has_kernel = false;
  for (const auto& e : l.course->exercises) has_kernel = has_kernel || e.kind == course::Kind::kernel;
  const std::string blocked = has_kernel ? kernel_exercises_blocked() : "";
  for (const auto& e : l.course->exercises) {
    std::string q = e.question.in(lang);
    if (e.kind == course::Kind::kernel)
      q = words::core(blocked.empty() ? "exercise.kernel-mark" : "exercise.kernel-unavailable-mark") + " " + q;
    else if (e.needs_gpu) q = "[GPU] " + q;
    t.row({{"number", static_cast<std::int64_t>(e.number)}, {"status", status_of(progress, name, e)}, {"question", q}});
  }
  t.legend.push_back(words::core("exercise.status-legend"));
  if (!blocked.empty()) t.legend.push_back(words::core("exercise.unavailable-legend", {{"why", blocked}}));
  s.add(std::move(t));
  s.fact("solved", words::core("exercise.solved"), static_cast<std::int64_t>(course::solved_in(l, progress)),
         Format::count, words::core("exercise.solved-of", {{"count", l.course->exercises.size()}}));
  r.sections.push_back(std::move(s));
  return r;
}

report::Report one(const course::CourseLesson& l, const course::Exercise& e, const ExerciseOptions& o,
                   const std::vector<cli::Command>& table, const RunContext& ctx) {
  const std::string& name = l.command->name;
  const std::string n = std::to_string(e.number);
  report::Report r;
  r.command = "exercise";
  r.title = "cudasync exercise " + name + " " + n;
  report::Section s("exercise", words::core("exercise.one-heading", {{"lesson", name}, {"number", n}}));
  s.paragraph(e.question.in(o.lang));
  if (e.kind == course::Kind::kernel) {
    s.fact("starter", words::core("exercise.starter"), "lessons/" + name + "/" + e.starter, Format::plain,
           words::core("exercise.starter-note", {{"lesson", name}, {"number", n}}));
    s.fact("needs-gpu", words::core("measurement.needs-gpu"), std::string("yes"), Format::plain,
           words::core("exercise.needs-nvrtc"));
    const std::string blocked = kernel_exercises_blocked();
    s.fact("nvrtc", words::core("exercise.nvrtc-here"), blocked.empty() ? std::string("yes") : std::string("no"),
           Format::plain, blocked.empty() ? words::core("exercise.nvrtc-compiles") : blocked);
    s.note(words::core("exercise.write-note", {{"lesson", name}, {"number", n}}));
  } else {
    s.fact("format", words::core("exercise.answer-with"), accepted_words(e.format));
    if (e.needs_gpu)
      s.fact("needs-gpu", words::core("measurement.needs-gpu"), std::string("yes"), Format::plain,
             words::core("exercise.model-cannot-say"));
  }
  if (!o.hint && !o.answer)
    s.note(words::core(e.kind == course::Kind::kernel ? "exercise.hint-note-kernel" : "exercise.hint-note",
                       {{"lesson", name}, {"number", n}}));
  if (o.answer && e.kind == course::Kind::kernel) s.note(words::core("exercise.no-kernel-answer"));
  r.sections.push_back(std::move(s));
  if (o.hint) {
    // The ladder: the first --hint shows the first rung, each later one a rung more (the progress
    // state counts them), never past the last.
    std::vector<course::Text> ladder = e.hints;
    if (ladder.empty()) ladder.push_back(e.hint);
    const course::StatePath where = course::progress_path();
    const course::HintShown shown = course::record_hint(where.file, name, e.id, static_cast<int>(ladder.size()));
    for (const auto& w : shown.changed.warnings) log::warn(w);
    report::Section h("hint", words::core("exercise.hint"));
    for (int i = 0; i < shown.shown; ++i) {
      if (ladder.size() > 1)
        h.fact("hint-" + std::to_string(i + 1), words::core("exercise.hint-rung", {{"rung", i + 1}, {"of", ladder.size()}}),
               ladder[static_cast<std::size_t>(i)].in(o.lang));
      else
        h.paragraph(ladder[static_cast<std::size_t>(i)].in(o.lang));
    }
    h.fact("hints-used", words::core("exercise.hints-used"), static_cast<std::int64_t>(shown.shown), Format::count,
           words::core("exercise.hints-of", {{"of", ladder.size()}}));
    if (shown.shown < static_cast<int>(ladder.size()))
      h.note(words::core("exercise.next-hint", {{"lesson", name}, {"number", n}}));
    r.sections.push_back(std::move(h));
  }
  if (o.answer && e.kind == course::Kind::computed) {
    course::InProcessRunner runner(table, ctx);
    const course::Answer a = course::compute_answer(e, runner);
    // Shown is shown: a later right check counts as solved after the answer was shown.
    if (const course::StatePath where = course::progress_path(); !where.file.empty())
      for (const auto& w : course::record_answer_shown(where.file, l.command->name, e.id).warnings) log::warn(w);
    report::Section as("answer", words::core("exercise.answer"));
    as.fact("answer", words::core("exercise.answer"), a.value);
    as.fact("computed-on", words::core("course.computed-on"), computed_on(ctx));
    as.paragraph(a.working.in(o.lang));
    r.sections.push_back(std::move(as));
  }
  return r;
}

report::Report kernel(const course::CourseLesson& l, const course::Exercise& e, const ExerciseOptions& o,
                      const RunContext& ctx) {
  course::KernelRequest request{l.command->name, &e, o.kernel, o.lang, &ctx};
  course::KernelOutcome outcome = course::check_kernel(request);
  report::Report r;
  r.command = "exercise";
  r.title = "cudasync exercise " + l.command->name + " " + std::to_string(e.number) + " --kernel " + o.kernel;
  for (auto& s : outcome.sections) r.sections.push_back(std::move(s));
  r.sections.push_back(verdict_section(l, e, o.kernel, outcome.verdict, o.lang, ctx, outcome.on_ptx_model,
                                      outcome.with_ptx_model));
  return r;
}

report::Report starter(const course::CourseLesson& l, const course::Exercise& e) {
  if (e.kind != course::Kind::kernel)
    throw UsageError("--starter: exercise " + std::to_string(e.number) + " of " + l.command->name +
                     " is answered, not written; accepted: --starter with a kernel exercise (marked [kernel] in "
                     "cudasync exercise " + l.command->name + ")");
  const auto text = find_lesson_starter(l.command->name, e.starter);
  if (!text) throw std::logic_error("exercise: no embedded starter lessons/" + l.command->name + "/" + e.starter);
  report::Report r;
  r.command = "exercise";
  r.document = std::string(*text);  // no title: the text is the file, for --starter > FILE
  return r;
}

// The child process of a kernel exercise: compiles and runs the request, writes the answer.
report::Report kernel_child(const ExerciseOptions& o, const RunContext& ctx) {
  parts::write_child_answer(o.child_out, course::student_kernel_child(ctx, o.kernel_request));
  report::Report r;
  r.command = "exercise";
  r.title = "cudasync exercise: a student's kernel, run as a child process";
  return r;
}

}  // namespace

cli::Attached attach_exercise(CLI::App& sub, const std::vector<cli::Command>& table) {
  auto o = std::make_shared<ExerciseOptions>();
  sub.add_option("lesson", o->lesson, words::core("help.exercise.lesson"))->transform(exercise_lesson(table));
  cli::add_count(sub, "number", o->number, kMaxExerciseNumber, words::core("help.exercise-number"));
  sub.add_flag("--hint", o->hint, words::core("help.exercise.hint"));
  sub.add_flag("--answer", o->answer, words::core("help.exercise.answer"));
  sub.add_option("--kernel", o->kernel, words::core("help.exercise.kernel"))
      ->check(cli::non_empty("a file with your __device__ function (a copy of the starter: --starter)"));
  sub.add_flag("--starter", o->starter,
               words::core("help.exercise.starter"));
  // The child process that compiles and runs a student's kernel (hidden: the parent starts it).
  sub.add_option("--child", o->child, "")->check(CLI::IsMember({"kernel"}))->group("");
  sub.add_option("--child-out", o->child_out, "")->group("");
  sub.add_option("--kernel-request", o->kernel_request, "")->group("");
  sub.footer(words::core("help.exercise.footer"));
  cli::Validator validate = [o, &table](const RunContext&) {
    if (!o->child.empty() || !o->child_out.empty() || !o->kernel_request.empty()) {
      if (o->child.empty() || o->child_out.empty() || o->kernel_request.empty() || !o->lesson.empty())
        throw UsageError("--child, --child-out and --kernel-request go together, without a lesson; accepted: the "
                         "command line a kernel exercise starts its child process with");
      return;
    }
    const char* needs = o->hint      ? "--hint"
                        : o->answer  ? "--answer"
                        : o->starter ? "--starter"
                        : !o->kernel.empty() ? "--kernel"
                                             : nullptr;
    if (o->answer)
      if (const auto exam = course::exam_mode())
        throw UsageError("exercise --answer: refused in exam mode (set by " + *exam + "); accepted: cudasync check " +
                         (o->lesson.empty() ? std::string("LESSON") : o->lesson) + " " +
                         (o->number ? std::to_string(*o->number) : std::string("N")) + " ANSWER, which checks your own");
    if (needs != nullptr && !o->number)
      throw UsageError(std::string(needs) + " needs an exercise: cudasync exercise LESSON N " + needs +
                       "; accepted: a lesson and an exercise number before it");
    if (!o->number) return;
    const course::CourseLesson l = checked_lesson(table, o->lesson);
    const course::Exercise e = checked_exercise(l, *o->number, "exercise");
    if (!o->kernel.empty() && e.kind != course::Kind::kernel)
      throw UsageError("--kernel " + o->kernel + ": exercise " + std::to_string(e.number) +
                       " is answered, not written; accepted: --kernel only with a kernel exercise (marked [kernel] "
                       "in cudasync exercise " + o->lesson + ")");
  };
  cli::Runner run = [o, &table](const RunContext& ctx) {
    o->lang = ctx.lang;  // the global --lang, or the locale's
    if (!o->child.empty()) return kernel_child(*o, ctx);
    if (o->lesson.empty()) return overview(table);
    const course::CourseLesson l = checked_lesson(table, o->lesson);
    if (!o->number) return listing(l, o->lang);
    const course::Exercise e = checked_exercise(l, *o->number, "exercise");
    if (o->starter) return starter(l, e);
    if (!o->kernel.empty()) return kernel(l, e, *o, ctx);
    return one(l, e, *o, table, ctx);
  };
  return {run, validate};
}

}  // namespace cudasync::commands
