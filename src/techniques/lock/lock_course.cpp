// lock's course: lessons/lock/lesson.json declares every exercise; the rows that read a table or a
// fact need no code. These read the lane-by-lane models' verdicts and ledgers.
#include "techniques/lock/lock_course.hpp"

#include "core/course/exercise_texts.hpp"

#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::lock {

namespace {

using course::LessonRunner;
using std::to_string;

const char* kLesson = "lock";

bool deadlocks(const std::string& verdict) { return verdict.rfind("deadlock", 0) == 0; }

course::Answer warp_deadlock(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "warp-deadlock"});
  const report::Table& t = course::table(rep, "warp-deadlock", "side-by-side");
  const std::string ls = course::as_text(t.cell(0, "lockstep")), in = course::as_text(t.cell(0, "independent"));
  const bool a = deadlocks(ls), b = deadlocks(in);
  return course::found(a && b ? "both" : a ? "lockstep" : b ? "independent" : "neither",
                       {{"lockstep", ls}, {"independent", in},
                        {"waits", course::as_text(course::fact(rep, "warp-deadlock", "lockstep-waits"))}});
}

course::Answer delay_does_not_fix(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "delay-fix", "--delays", "10000", "--runs", "1"});
  const report::Table& t = course::table(rep, "delay-fix", "delays");
  const auto count = [&](const char* variant) {
    return course::as_int(t.cell(course::row_starting(t, "variant", variant), "model-count"));
  };
  const auto got = count("delay 10 us after"), right = count("fix 2");
  return course::found(got == right ? "yes" : "no", {{"count", to_string(got)}, {"right", to_string(right)}});
}

course::Answer frees_of_freed(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "shared-mutex"});
  const report::Table& t = course::table(rep, "shared-mutex", "ownership");
  const std::size_t row = course::row_starting(t, "holding", "CudaKernelLock");
  return course::found(to_string(course::as_int(t.cell(row, "frees-of-freed"))),
                       {{"frees", to_string(course::as_int(t.cell(row, "frees")))}});
}

course::Answer handoffs(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "combining"});
  const std::string detail = course::check(rep, "combining", "model-exact").detail;
  const std::size_t at = detail.find(" lock handoff");
  const auto n = at == std::string::npos ? std::vector<std::int64_t>{} : course::numbers_in(detail.substr(0, at));
  return course::found(n.empty() ? "?" : to_string(n.back()), {{"detail", detail}});
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {{{"warp-deadlock", warp_deadlock},
                 {"delay-does-not-fix", delay_does_not_fix},
                 {"frees-of-freed", frees_of_freed},
                 {"handoffs", handoffs}},
                {}});
  return c;
}

}  // namespace cudasync::lock
