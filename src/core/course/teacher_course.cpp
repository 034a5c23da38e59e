#include "core/course/teacher_course.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/course/answer_read.hpp"
#include "core/course/manifest.hpp"
#include "core/errors.hpp"

namespace cudasync::course {

namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxFileBytes = 1 << 20;  // a course file past 1 MiB is refused, not read

std::string read_course_file(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw UsageError("CUDASYNC_COURSE_DIR: " + file.string() + " is not a regular file");
  if (fs::file_size(file, ec) > kMaxFileBytes || ec)
    throw UsageError("CUDASYNC_COURSE_DIR: " + file.string() + " is larger than 1 MiB, or cannot be sized");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in) throw UsageError("CUDASYNC_COURSE_DIR: " + file.string() + " cannot be read");
  return s.str();
}

}  // namespace

void check_teacher_dir(const std::string& dir, const std::vector<std::string>& lessons) {
  if (dir.empty()) return;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UsageError("CUDASYNC_COURSE_DIR: '" + dir + "' is not a folder; accepted: a folder of <lesson>.json files");
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    const std::string stem = entry.path().stem().string();
    if (std::find(lessons.begin(), lessons.end(), stem) == lessons.end())
      throw UsageError("CUDASYNC_COURSE_DIR: " + entry.path().string() + " names no lesson; accepted: " +
                       comma_list(lessons) + " (as <lesson>.json)");
  }
}

LessonCourse with_teacher_rows(const LessonCourse& built_in, const std::string& lesson, const std::string& dir,
                               const std::vector<std::string>& lessons) {
  LessonCourse c = built_in;
  if (dir.empty()) return c;
  const fs::path file = fs::path(dir) / (lesson + ".json");
  std::error_code ec;
  if (!fs::exists(file, ec)) return c;
  std::shared_ptr<const Manifest> m;
  try {
    m = std::make_shared<const Manifest>(
        parse_manifest(read_course_file(file), file.string(), ManifestOrigin::teacher, lessons));
  } catch (const ManifestError& e) {
    throw UsageError(std::string("CUDASYNC_COURSE_DIR: ") + e.what());
  }
  if (m->lesson != lesson)
    throw UsageError("CUDASYNC_COURSE_DIR: " + file.string() + ":1: lesson: '" + m->lesson + "' in the file of " +
                     lesson + "; accepted: \"" + lesson + "\"");
  int number = built_in.exercises.empty() ? 0 : built_in.exercises.back().number;
  for (std::size_t i = 0; i < m->exercises.size(); ++i) {
    const ManifestExercise& row = m->exercises[i];
    for (const Exercise& own : built_in.exercises) {
      bool clash = own.id == row.exercise.id;
      for (const auto& f : own.former_ids) clash = clash || f == row.exercise.id;
      if (clash)
        throw UsageError("CUDASYNC_COURSE_DIR: " + file.string() + ":" + std::to_string(row.line) + ": exercises[" +
                         std::to_string(i) + "].id: '" + row.exercise.id + "' is the id of " + lesson +
                         "'s own exercise " + std::to_string(own.number) + "; a teacher's rows add, never replace");
    }
    Exercise e = row.exercise;
    e.number = ++number;
    const std::string where = file.string() + ":" + std::to_string(row.line);
    e.compute = [m, i, lesson, where](LessonRunner& r) {
      try {
        return read_answer(m->exercises[i], lesson, r);
      } catch (const std::logic_error& err) {  // a read that finds nothing: the teacher's row, not a bug
        throw UsageError("CUDASYNC_COURSE_DIR: " + where + ": " + err.what());
      }
    };
    c.exercises.push_back(std::move(e));
  }
  return c;
}

}  // namespace cudasync::course
