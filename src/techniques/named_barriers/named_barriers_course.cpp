// named-barriers' exercises: every answer is read from a run of the lesson (the GPU's counts where
// there is a GPU, the model's otherwise), never stored. Their words are in lessons/named-barriers/.
#include "techniques/named_barriers/named_barriers_course.hpp"

#include <string>

#include "core/course/exercise_texts.hpp"
#include "core/course/report_read.hpp"

namespace cudasync::named_barriers {

namespace {

using course::AnswerKind, course::Exercise, course::LessonRunner;

const char* kLesson = "named-barriers";

Exercise syncthreads_count() {
  return course::computed(1, "syncthreads-count-lane-5", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "bar-red", "--threads", "100", "--predicate", "lane<5"});
    const report::Table& t = course::table(rep, "bar-red", "reductions");
    const std::string col = r.context().gpu ? "sync-count" : "model-count";
    return course::found(std::to_string(course::as_int(t.cell(course::row_where(t, "predicate", "lane<5"), col))));
  });
}

Exercise groups_wait() {
  return course::computed(2, "named-barrier-groups-independent", {AnswerKind::choice, {"yes", "no"}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "bar-sync", "--groups", "128,128"});
    // The run holds group 1 before its first barrier until group 0 has passed all of its phases:
    // it finishes only if group 0 never needs group 1.
    const report::Check& c = course::check(rep, "bar-sync", "model-finishes");
    return course::found(c.passed ? "no" : "yes", {{"detail", c.detail}});
  });
}

Exercise third_warp() {
  return course::computed(3, "third-warp-at-bar-sync-64", {AnswerKind::choice, {"finishes", "hangs"}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "misuse", "--count", "64", "--arrive", "96"});
    const report::Table& t = course::table(rep, "misuse", "case-0-model");
    const std::string without = course::as_text(t.cell(0, "without-rescue"));
    return course::found(without.find("hang") != std::string::npos ? "hangs" : "finishes",
                         {{"released", course::as_text(t.cell(0, "phases"))}, {"without", without}});
  });
}

Exercise producer_phases() {
  return course::computed(4, "producer-consumer-phases", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "producer-consumer", "--rounds", "4"});
    return course::found(std::to_string(course::table(rep, "producer-consumer", "phases").rows.size()));
  });
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {"--part", "bar-sync,bar-red"}, {syncthreads_count(), groups_wait(), third_warp(), producer_phases()}, exercise_whys());
  return c;
}

}  // namespace cudasync::named_barriers
