#include "core/course/course.hpp"

#include <cstdlib>
#include <map>

#include "core/course/teacher_course.hpp"
#include "core/errors.hpp"
#include "core/words/words.hpp"

namespace cudasync::course {

namespace {

// The lessons' courses with $CUDASYNC_COURSE_DIR's rows, made once per process (the folder is read
// once: a run sees one course).
const LessonCourse* with_teacher(const std::vector<cli::Command>& table, const cli::Command& c) {
  static const char* dir = std::getenv("CUDASYNC_COURSE_DIR");
  if (dir == nullptr || *dir == '\0') return c.course;
  static std::map<std::string, LessonCourse> merged;
  const auto found = merged.find(c.name);
  if (found != merged.end()) return &found->second;
  std::vector<std::string> lessons;
  for (const auto& l : table)
    if (l.kind == cli::CommandKind::lesson && l.course != nullptr) lessons.push_back(l.name);
  static const bool checked = (check_teacher_dir(dir, lessons), true);
  (void)checked;
  return &merged.emplace(c.name, with_teacher_rows(*c.course, c.name, dir, lessons)).first->second;
}

}  // namespace

std::vector<CourseLesson> course_of(const std::vector<cli::Command>& table, TeacherErrors errors) {
  std::vector<CourseLesson> out;
  for (const auto& c : table) {
    if (c.kind != cli::CommandKind::lesson || c.course == nullptr) continue;
    const LessonCourse* course = c.course;
    try {
      course = with_teacher(table, c);
    } catch (const UsageError&) {
      if (errors == TeacherErrors::thrown) throw;
    }
    out.push_back({&c, course});
  }
  return out;
}

std::vector<std::string> lessons_with_exercises(const std::vector<cli::Command>& table, TeacherErrors errors) {
  std::vector<std::string> out;
  for (const auto& l : course_of(table, errors))
    if (!l.course->exercises.empty()) out.push_back(l.command->name);
  return out;
}

std::optional<CourseLesson> find_course_lesson(const std::vector<cli::Command>& table, const std::string& id) {
  for (const auto& l : course_of(table))
    if (l.command->name == id) return l;
  return std::nullopt;
}

const Exercise* find_exercise(const LessonCourse& course, long long number) {
  for (const auto& e : course.exercises)
    if (e.number == number) return &e;
  return nullptr;
}

std::string numbers_accepted(const LessonCourse& course) {
  if (course.exercises.empty()) return "none (this lesson has no exercises)";
  return std::to_string(course.exercises.front().number) + ".." + std::to_string(course.exercises.back().number);
}

std::string Tally::text() const {
  return words::core("progress.tally",
                     {{"done", lessons_done}, {"lessons", lessons}, {"solved", solved}, {"exercises", exercises}});
}

const ExerciseRecord* record_of(const Progress& progress, const std::string& lesson, const Exercise& e) {
  if (const ExerciseRecord* r = progress.find(lesson, e.id)) return r;
  for (const auto& id : e.former_ids)
    if (const ExerciseRecord* r = progress.find(lesson, id)) return r;
  return nullptr;
}

int solved_in(const CourseLesson& lesson, const Progress& progress) {
  int n = 0;
  for (const auto& e : lesson.course->exercises) {
    const ExerciseRecord* r = record_of(progress, lesson.command->name, e);
    if (r != nullptr && r->solved) ++n;
  }
  return n;
}

Tally tally(const std::vector<CourseLesson>& lessons, const Progress& progress) {
  Tally t;
  for (const auto& l : lessons) {
    const int total = static_cast<int>(l.course->exercises.size());
    if (total == 0) continue;
    const int solved = solved_in(l, progress);
    ++t.lessons;
    t.exercises += total;
    t.solved += solved;
    if (solved == total) ++t.lessons_done;
  }
  return t;
}

std::string filled(std::string text, const Answer& a) {
  std::vector<std::pair<std::string, std::string>> values = a.values;
  values.emplace_back("answer", a.value);
  for (const auto& [name, value] : values) {
    const std::string key = "{" + name + "}";
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

Answer compute_answer(const Exercise& e, LessonRunner& runner) {
  if (e.needs_gpu && !runner.context().gpu)
    throw WaivedError("exercise " + std::to_string(e.number) +
                      ": only a GPU gives this answer, and this run has none (the reference model cannot say)");
  Answer a = e.compute(runner);
  if (a.working.en.empty()) a.working = {filled(e.why.en, a), filled(e.why.zh, a)};
  return a;
}

Verdict judge(const Exercise& e, const Answer& computed, const std::string& given) {
  if (e.compare) return e.compare(computed, given);
  return {given == computed.value, computed.working};
}

}  // namespace cudasync::course
