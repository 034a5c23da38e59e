#include "commands/course_common.hpp"

#include <algorithm>

#include "core/cli/did_you_mean.hpp"
#include "core/course/exam.hpp"
#include "core/errors.hpp"
#include "core/log.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

const course::Exercise& checked_exercise(const course::CourseLesson& lesson, long long number,
                                         const std::string& command) {
  const course::Exercise* e = course::find_exercise(*lesson.course, number);
  if (e == nullptr)
    throw UsageError(command + " " + lesson.command->name + " " + std::to_string(number) +
                     ": no such exercise; accepted: " + course::numbers_accepted(*lesson.course) +
                     " (cudasync exercise " + lesson.command->name + " lists them)");
  return *e;
}

std::string lesson_by_number(const std::string& typed, const std::vector<std::string>& order) {
  if (typed.empty() || typed.size() > 3 || typed.find_first_not_of("0123456789") != std::string::npos) return typed;
  const std::size_t n = std::stoul(typed);
  return n >= 1 && n <= order.size() ? order[n - 1] : typed;
}

CLI::Validator exercise_lesson(const std::vector<cli::Command>& table) {
  const std::vector<std::string> with = course::lessons_with_exercises(table, course::TeacherErrors::built_in_instead);
  std::vector<std::string> without;
  for (const auto& l : course::course_of(table, course::TeacherErrors::built_in_instead))
    if (l.course->exercises.empty()) without.push_back(l.command->name);
  std::vector<std::string> order;  // the course order: a lesson's number, as cudasync list shows it
  for (const auto& l : course::course_of(table, course::TeacherErrors::built_in_instead)) order.push_back(l.command->name);
  std::string ids;
  for (const auto& x : with) ids += (ids.empty() ? "" : ", ") + x;
  return CLI::Validator(
      [with, without, ids, order](std::string& lesson) -> std::string {
        lesson = lesson_by_number(lesson, order);
        const auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), lesson) != v.end(); };
        if (in(with)) return "";
        if (in(without)) return "this lesson has no exercises the tool checks; accepted: one of " + ids;
        return "no lesson with exercises" + cli::did_you_mean_text(lesson, with) + "; accepted: one of " + ids +
               ", or its number in cudasync list";
      },
      "LESSON", "a lesson with exercises, or its number");
}

course::CourseLesson checked_lesson(const std::vector<cli::Command>& table, const std::string& id) {
  const auto l = course::find_course_lesson(table, id);
  if (!l || l->course->exercises.empty()) {
    std::string ids;
    for (const auto& x : course::lessons_with_exercises(table)) ids += (ids.empty() ? "" : ", ") + x;
    throw UsageError(id + ": no lesson with exercises; accepted: " + ids);
  }
  return *l;
}

std::string computed_on(const RunContext& ctx) {
  return ctx.gpu ? words::core("course.on-gpu", {{"device", ctx.device_text()}}) : words::core("course.on-model");
}

report::Table progress_table(const std::vector<course::CourseLesson>& lessons, const course::Progress& progress) {
  using report::Format;
  report::Table t("lessons", words::core("progress.table"));
  t.column("order", "#", Format::count).column("lesson", words::core("progress.lesson"))
      .column("solved", words::core("progress.solved"), Format::count);
  t.column("exercises", words::core("progress.of-column"), Format::count)
      .column("attempts", words::core("progress.answers"), Format::count)
      .column("shown", words::core("progress.answer-shown"), Format::count)
      .column("next", words::core("progress.next"), Format::count);
  t.legend.push_back(words::core("progress.next-legend"));
  std::int64_t order = 0;
  for (const auto& l : lessons) {
    std::int64_t attempts = 0, shown = 0;
    report::Value next = l.course->exercises.empty() ? words::core("progress.no-exercises") : std::string("-");
    bool found = false;
    for (const auto& e : l.course->exercises) {
      const course::ExerciseRecord* rec = course::record_of(progress, l.command->name, e);
      if (rec != nullptr) attempts += rec->attempts;
      if (rec != nullptr && !rec->answer_shown.empty()) ++shown;
      if (!found && (rec == nullptr || !rec->solved)) {
        next = static_cast<std::int64_t>(e.number);
        found = true;
      }
    }
    t.row({{"order", ++order}, {"lesson", l.command->name},
           {"solved", static_cast<std::int64_t>(course::solved_in(l, progress))},
           {"exercises", static_cast<std::int64_t>(l.course->exercises.size())}, {"attempts", attempts},
           {"shown", shown}, {"next", next}});
  }
  return t;
}

report::Section progress_section(const std::string& id, const std::string& title,
                                 const std::vector<cli::Command>& table) {
  const course::Progress progress = load_student_progress();
  const auto lessons = course::course_of(table);
  report::Section s(id, title);
  const course::Tally t = course::tally(lessons, progress);
  s.fact("progress", words::core("progress.heading"), t.text());
  // The same as numbers, for tools: lessons done of lessons, exercises solved of exercises.
  s.fact("lessons-done", words::core("progress.lessons-done"), static_cast<std::int64_t>(t.lessons_done),
         report::Format::count, words::core("progress.of", {{"of", t.lessons}}));
  s.fact("exercises-solved", words::core("progress.exercises-solved"), static_cast<std::int64_t>(t.solved),
         report::Format::count, words::core("progress.of", {{"of", t.exercises}}));
  std::int64_t after = 0;
  for (const auto& l : lessons)
    for (const auto& e : l.course->exercises)
      if (const auto* rec = course::record_of(progress, l.command->name, e); rec && rec->solved && rec->after_answer) ++after;
  s.fact("solved-after-answer", words::core("progress.solved-after-answer"), after, report::Format::count);
  s.add(progress_table(lessons, progress));
  return s;
}

course::Progress load_student_progress() {
  const course::StatePath where = course::progress_path();
  if (where.file.empty()) return {};
  course::Loaded l = course::load_progress(where.file);
  for (const auto& w : l.warnings) log::warn(w);
  return std::move(l.progress);
}

report::Section verdict_section(const course::CourseLesson& lesson, const course::Exercise& e,
                                const std::string& given, const course::Verdict& v, const std::string& lang,
                                const RunContext& ctx, bool on_ptx_model, bool with_ptx_model) {
  const std::string& name = lesson.command->name;
  const course::StatePath where = course::progress_path();
  if (where.file.empty()) log::warn(where.problem);
  // What computed the answer it was checked against: the GPU, or a model (the lesson's or the PTX one).
  const std::string solved_on = ctx.gpu && !on_ptx_model ? "gpu" : "model";
  for (const auto& w : course::record_answer(where.file, name, e.id, v.right, given, solved_on).warnings) log::warn(w);
  report::Section s("check", words::core(v.right ? "course.verdict-right" : "course.verdict-wrong",
                                         {{"lesson", name}, {"number", e.number}}));
  s.paragraph(e.question.in(lang));
  s.fact("lesson", words::core("course.lesson"), name);
  s.fact("exercise", words::core("course.exercise"), static_cast<std::int64_t>(e.number), report::Format::plain, e.id);
  s.fact("given", words::core("course.given"), given);
  s.fact("computed-on", words::core("course.computed-on"),
         on_ptx_model     ? words::core("course.on-ptx-model")
         : with_ptx_model ? words::core("course.on-gpu-and-ptx-model", {{"gpu", computed_on(ctx)}})
                          : computed_on(ctx));
  // A wrong answer gets the rule, never the value: the first rung of the exercise's hint ladder
  // (written to lead to the answer without stating it); in exam mode, not even that.
  std::string reason = v.reason.in(lang);
  if (!v.right && e.kind == course::Kind::computed) {
    const std::string more = words::core("course.more-hints", {{"lesson", name}, {"number", e.number}});
    if (course::exam_mode()) reason = words::core("course.wrong-in-exam");
    else if (!e.hints.empty()) reason = words::core("course.wrong-rule", {{"rule", e.hints.front().in(lang)}}) + " " + more;
    else reason = words::core("course.wrong-no-rule") + " " + more;
  }
  s.check("answer-right", words::core(v.right ? "course.answer-right" : "course.answer-wrong"), v.right, reason);
  if (!v.right)
    log::error(name + " exercise " + std::to_string(e.number) + ": " + given + " is not the answer (exit 1)");
  if (v.right) {  // what comes next, as a command that runs
    const course::Exercise* next = nullptr;
    for (const auto& x : lesson.course->exercises)
      if (x.number > e.number && (next == nullptr || x.number < next->number)) next = &x;
    s.note(next ? words::core("course.next-exercise", {{"lesson", name}, {"number", next->number}})
                : words::core("course.lesson-done", {{"lesson", name}}));
  }
  if (!where.file.empty()) s.note(words::core("course.progress-note", {{"file", where.file}}));
  return s;
}

}  // namespace cudasync::commands
