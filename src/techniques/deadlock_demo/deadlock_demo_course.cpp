// deadlock-demo's course: lessons/deadlock-demo/lesson.json declares every exercise. These read the
// model's verdicts and wait-for cycles out of its run.
#include "techniques/deadlock_demo/deadlock_demo_course.hpp"

#include "core/course/exercise_texts.hpp"

#include <string>

#include "core/course/answer_format.hpp"
#include "core/course/report_read.hpp"

namespace cudasync::deadlock_demo {

namespace {

using course::LessonRunner;
using std::to_string;

const char* kLesson = "deadlock-demo";

// One fact of a part run with a short deadline.
std::string fact_of(LessonRunner& r, const char* part, const char* fact) {
  const report::Report rep = r.run(kLesson, {"--part", part, "--deadline-ms", "20"});
  return course::as_text(course::fact(rep, part, fact));
}

// The waiters of a wait-for cycle, "threads 0-47 (at the barrier) -> ..." (or "lanes ..."), as
// lanes ("0-47"), with the cycle.
course::Answer waiters(const std::string& cycle) {
  const std::size_t space = cycle.find(' '), paren = cycle.find(" (at the barrier)");
  const std::string who = space == std::string::npos || paren == std::string::npos || paren < space
                              ? "?"
                              : course::canonical({course::AnswerKind::lanes, {}}, cycle.substr(space + 1, paren - space - 1))
                                    .value_or("?");
  return course::found(who, {{"cycle", cycle}});
}

course::Answer no_slot(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "grid-oversubscribed", "--deadline-ms", "20"});
  const std::int64_t resident = course::as_int(course::fact(rep, "grid-oversubscribed", "resident"));
  const std::string launch = course::as_text(course::fact(rep, "grid-oversubscribed", "launch"));
  const auto n = course::numbers_in(launch);
  const std::int64_t blocks = n.empty() ? 0 : n.front();
  return course::found(to_string(blocks - resident),
                       {{"launch", launch}, {"blocks", to_string(blocks)}, {"resident", to_string(resident)}});
}

course::Answer ring(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "warp-spinlock"});
  const report::Table& t = course::table(rep, "warp-spinlock", "verdicts");
  const std::string verdict = course::as_text(t.cell(course::row_starting(t, "program", "lane i waits"), "independent"));
  return course::found(verdict.rfind("deadlock", 0) == 0 ? "deadlocks" : "completes",
                       {{"verdict", verdict}, {"cycle", course::as_text(course::fact(rep, "warp-spinlock", "ring-cycle"))}});
}

course::Answer divergent_syncthreads(LessonRunner& r) {
  return waiters(fact_of(r, "divergent-syncthreads", "cycle-inside-a-warp"));
}

course::Answer syncwarp_mask(LessonRunner& r) {
  return waiters(fact_of(r, "syncwarp-mask", "cycle-lanes-0-15"));
}

course::Answer lock_order(LessonRunner& r) {
  const std::string cycle = fact_of(r, "lock-order", "model-cycle");
  const auto blocks = course::numbers_in(cycle);  // the first block closes the cycle
  return course::found(to_string(blocks.empty() ? 0 : blocks.size() - 1), {{"cycle", cycle}});
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {{{"no-slot", no_slot},
                 {"ring", ring},
                 {"divergent-syncthreads", divergent_syncthreads},
                 {"syncwarp-mask", syncwarp_mask},
                 {"lock-order", lock_order}},
                {}});
  return c;
}

}  // namespace cudasync::deadlock_demo
