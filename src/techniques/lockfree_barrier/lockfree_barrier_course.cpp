// lockfree-barrier's exercises: every answer is read from a run of the lesson (its step-by-step
// model, the occupancy of this GPU or of the model's assumed one), never stored. Their questions and
// hints are in lessons/lockfree-barrier/, their whys in lockfree_barrier_exercise_whys.cpp.
#include "techniques/lockfree_barrier/lockfree_barrier_course.hpp"

#include <string>

#include "core/course/exercise_texts.hpp"
#include "core/course/report_read.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using course::AnswerKind, course::Exercise, course::LessonRunner;

const char* kLesson = "lockfree-barrier";

// An exercise renamed in this release, with the id its answers were recorded under before.
Exercise former(const char* old_id, Exercise e) {
  e.former_ids = {old_id};
  return e;
}

// The model's account of one part run on 8 blocks and 5 phases: its simulation, or its words.
std::string model_says(LessonRunner& r, const char* part, const char* fact) {
  const report::Report rep = r.run(kLesson, {"--part", part, "--blocks", "8", "--phases", "5"});
  return course::as_text(course::fact(rep, part, fact));
}

Exercise mutex_value() {
  return course::computed(1, "xf-lock-final-mutex", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const std::string words = model_says(r, "xf-lock", "model-words");
    return course::found(std::to_string(course::number_after(words, "g_mutex").value_or(-1)), {{"words", words}});
  });
}

Exercise unrepaired_lock() {
  return former("xf-lock-seed-outcome", course::computed(2, "xf-lock-unrepaired-outcome", {AnswerKind::choice, {"completes", "deadlocks"}}, [](LessonRunner& r) {
    const std::string sim = model_says(r, "xf-lock-unrepaired", "model-sim");
    return course::found(sim.find("deadlock") != std::string::npos ? "deadlocks" : "completes", {{"sim", sim}});
  }));
}

Exercise unrepaired_lockfree() {
  return former("xf-lockfree-seed-passes-early", course::computed(3, "xf-lockfree-unrepaired-passes-early", {AnswerKind::choice, {"yes", "no"}}, [](LessonRunner& r) {
    const std::string sim = model_says(r, "xf-lockfree-unrepaired", "model-sim");
    return course::found(sim.find("passed barrier") != std::string::npos ? "yes" : "no", {{"sim", sim}});
  }));
}

Exercise resident_blocks() {
  return course::computed(4, "resident-blocks-256", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "relaunch", "--threads", "256", "--phases", "2"});
    return course::found(std::to_string(course::as_int(course::fact(rep, "setup", "resident-software"))));
  });
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course(kLesson, {"--part", "xf-lock,grid-sync,own", "--phases", "8"},
                            {mutex_value(), unrepaired_lock(), unrepaired_lockfree(), resident_blocks()}, exercise_whys());
  return c;
}

}  // namespace cudasync::lockfree_barrier
