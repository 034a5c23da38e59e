// lock's exercises: every answer is read from a run of the lesson (its lane-by-lane models), never
// stored. Their words are in lessons/lock/.
#include "techniques/lock/lock_course.hpp"

#include <string>

#include "core/course/exercise_texts.hpp"
#include "core/course/report_read.hpp"

namespace cudasync::lock {

namespace {

using course::AnswerKind, course::Exercise, course::LessonRunner;
using std::to_string;

const char* kLesson = "lock";

bool deadlocks(const std::string& verdict) { return verdict.rfind("deadlock", 0) == 0; }

Exercise warp_deadlock() {
  return course::computed(
      1, "warp-lock-which-scheduler-deadlocks", {AnswerKind::choice, {"lockstep", "independent", "both", "neither"}},
      [](LessonRunner& r) {
        const report::Report rep = r.run(kLesson, {"--part", "warp-deadlock"});
        const report::Table& t = course::table(rep, "warp-deadlock", "side-by-side");
        const std::string ls = course::as_text(t.cell(0, "lockstep")), in = course::as_text(t.cell(0, "independent"));
        const bool a = deadlocks(ls), b = deadlocks(in);
        return course::found(a && b ? "both" : a ? "lockstep" : b ? "independent" : "neither",
                             {{"lockstep", ls}, {"independent", in},
                              {"waits", course::as_text(course::fact(rep, "warp-deadlock", "lockstep-waits"))}});
      });
}

Exercise stale_count() {
  return course::computed(2, "stale-read-count", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "stale-reads", "--runs", "1"});
    const report::Table& t = course::table(rep, "stale-reads", "variants");
    return course::found(to_string(course::as_int(t.cell(0, "model-count"))),
                         {{"how", course::as_text(course::fact(rep, "stale-reads", "how-lost"))}});
  });
}

Exercise delay() {
  return course::computed(3, "delay-does-not-fix", {AnswerKind::choice, {"yes", "no"}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "delay-fix", "--delays", "10000", "--runs", "1"});
    const report::Table& t = course::table(rep, "delay-fix", "delays");
    const auto count = [&](const char* variant) {
      return course::as_int(t.cell(course::row_starting(t, "variant", variant), "model-count"));
    };
    const auto got = count("delay 10 us after"), right = count("fix 2");
    return course::found(got == right ? "yes" : "no", {{"count", to_string(got)}, {"right", to_string(right)}});
  });
}

Exercise frees_of_freed() {
  return course::computed(4, "by-value-frees-of-freed", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shared-mutex"});
    const report::Table& t = course::table(rep, "shared-mutex", "ownership");
    const std::size_t row = course::row_starting(t, "holding", "CudaKernelLock");
    return course::found(to_string(course::as_int(t.cell(row, "frees-of-freed"))),
                         {{"frees", to_string(course::as_int(t.cell(row, "frees")))}});
  });
}

Exercise handoffs() {
  return course::computed(5, "combining-handoffs", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "combining"});
    const std::string detail = course::check(rep, "combining", "model-exact").detail;
    const std::size_t at = detail.find(" lock handoff");
    const auto n = at == std::string::npos ? std::vector<std::int64_t>{} : course::numbers_in(detail.substr(0, at));
    return course::found(n.empty() ? "?" : to_string(n.back()), {{"detail", detail}});
  });
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course(kLesson, {"--part", "lock-class", "--iterations", "20"},
                            {warp_deadlock(), stale_count(), delay(), frees_of_freed(), handoffs()}, exercise_whys());
  return c;
}

}  // namespace cudasync::lock
