#include "commands/check.hpp"

#include <memory>
#include <optional>

#include "commands/course_common.hpp"
#include "core/cli/option_checks.hpp"
#include "core/cli/usage_message.hpp"
#include "core/course/answer_format.hpp"
#include "core/course/lesson_runner.hpp"
#include "core/errors.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

struct CheckOptions {
  std::string lesson;
  std::optional<int> number;
  std::string answer;
  std::string canonical;  // the answer as read, set by the validator
};

}  // namespace

cli::Attached attach_check(CLI::App& sub, const std::vector<cli::Command>& table) {
  auto o = std::make_shared<CheckOptions>();
  sub.add_option("lesson", o->lesson, words::core("help.check.lesson"))->required()->transform(exercise_lesson(table));
  cli::add_count(sub, "number", o->number, kMaxExerciseNumber, words::core("help.exercise-number"))
      ->required();
  sub.add_option("answer", o->answer,
                 words::core("help.check.answer"))
      ->required();
  sub.footer("Exit 0: right; 1: wrong (with the reason); 2: no such lesson or exercise, or an answer of the wrong\n"
             "form. Every answer is recorded in your progress ($XDG_STATE_HOME/cudasync, cudasync progress).");
  cli::Validator validate = [o, &table](const RunContext&) {
    const course::CourseLesson l = checked_lesson(table, o->lesson);
    const course::Exercise e = checked_exercise(l, *o->number, "check");
    const std::string n = std::to_string(e.number);
    if (e.kind == course::Kind::kernel)
      throw UsageError("check " + o->lesson + " " + n + ": exercise " + n + " is a kernel you write; accepted: "
                       "cudasync exercise " + o->lesson + " " + n + " --kernel FILE");
    const auto read = course::canonical(e.format, o->answer);
    if (!read)
      throw UsageError("check " + o->lesson + " " + n + " " + cli::shown_value(o->answer) +
                       ": not an answer of this exercise's form; accepted: " + course::accepted(e.format));
    o->canonical = *read;
  };
  cli::Runner run = [o, &table](const RunContext& ctx) {
    const course::CourseLesson l = checked_lesson(table, o->lesson);
    const course::Exercise e = checked_exercise(l, *o->number, "check");
    course::InProcessRunner runner(table, ctx);
    const course::Answer a = course::compute_answer(e, runner);
    const course::Verdict v = course::judge(e, a, o->canonical);
    report::Report r;
    r.command = "check";
    r.title = "cudasync check " + o->lesson + " " + std::to_string(e.number);
    r.sections.push_back(verdict_section(l, e, o->canonical, v, ctx.lang, ctx));
    return r;
  };
  return {run, validate};
}

}  // namespace cudasync::commands
