#include "commands/course_common.hpp"

#include <algorithm>

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

CLI::Validator exercise_lesson(const std::vector<cli::Command>& table) {
  const std::vector<std::string> with = course::lessons_with_exercises(table, course::TeacherErrors::built_in_instead);
  std::vector<std::string> without;
  for (const auto& l : course::course_of(table, course::TeacherErrors::built_in_instead))
    if (l.course->exercises.empty()) without.push_back(l.command->name);
  std::string ids;
  for (const auto& x : with) ids += (ids.empty() ? "" : ", ") + x;
  return CLI::Validator(
      [with, without, ids](std::string& lesson) -> std::string {
        const auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), lesson) != v.end(); };
        if (in(with)) return "";
        if (in(without)) return "this lesson has no exercises the tool checks; accepted: one of " + ids;
        return "no lesson with exercises; accepted: one of " + ids;
      },
      "LESSON", "a lesson with exercises");
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
  report::Table t("lessons", "lesson by lesson (cudasync exercise <lesson> lists the exercises)");
  t.column("order", "#", Format::count).column("lesson", "lesson").column("solved", "solved", Format::count);
  t.column("exercises", "of", Format::count).column("attempts", "answers", Format::count).column("next", "next to try");
  std::int64_t order = 0;
  for (const auto& l : lessons) {
    std::int64_t attempts = 0;
    std::string next = l.course->exercises.empty() ? "no exercises" : "-";
    for (const auto& e : l.course->exercises) {
      const course::ExerciseRecord* rec = course::record_of(progress, l.command->name, e);
      if (rec != nullptr) attempts += rec->attempts;
      if (next == "-" && (rec == nullptr || !rec->solved)) next = "exercise " + std::to_string(e.number);
    }
    t.row({{"order", ++order}, {"lesson", l.command->name},
           {"solved", static_cast<std::int64_t>(course::solved_in(l, progress))},
           {"exercises", static_cast<std::int64_t>(l.course->exercises.size())}, {"attempts", attempts},
           {"next", next}});
  }
  return t;
}

report::Section progress_section(const std::string& id, const std::string& title,
                                 const std::vector<cli::Command>& table) {
  const course::Progress progress = load_student_progress();
  const auto lessons = course::course_of(table);
  report::Section s(id, title);
  s.fact("progress", words::core("progress.heading"), course::tally(lessons, progress).text());
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
  for (const auto& w : course::record_answer(where.file, name, e.id, v.right, given)) log::warn(w);
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
  s.check("answer-right", words::core(v.right ? "course.answer-right" : "course.answer-wrong"), v.right,
          v.reason.in(lang));
  if (!v.right)
    log::error(name + " exercise " + std::to_string(e.number) + ": " + given + " is not the answer (exit 1)");
  if (!where.file.empty()) s.note(words::core("course.progress-note", {{"file", where.file}}));
  return s;
}

}  // namespace cudasync::commands
