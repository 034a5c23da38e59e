// lockfree-barrier's course: lessons/lockfree-barrier/lesson.json declares every exercise; the rows
// that read a fact need no code. These read the model's simulation of Xiao & Feng's barriers.
#include "techniques/lockfree_barrier/lockfree_barrier_course.hpp"

#include "core/course/exercise_texts.hpp"

#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using course::LessonRunner;

const char* kLesson = "lockfree-barrier";

// The model's account of one part run on 8 blocks and 5 phases: its simulation, or its words.
std::string model_says(LessonRunner& r, const char* part, const char* fact) {
  const report::Report rep = r.run(kLesson, {"--part", part, "--blocks", "8", "--phases", "5"});
  return course::as_text(course::fact(rep, part, fact));
}

course::Answer mutex_value(LessonRunner& r) {
  const std::string words = model_says(r, "xf-lock", "model-words");
  return course::found(std::to_string(course::number_after(words, "g_mutex").value_or(-1)), {{"words", words}});
}

course::Answer unrepaired_lock(LessonRunner& r) {
  const std::string sim = model_says(r, "xf-lock-unrepaired", "model-sim");
  return course::found(sim.find("deadlock") != std::string::npos ? "deadlocks" : "completes", {{"sim", sim}});
}

course::Answer unrepaired_lockfree(LessonRunner& r) {
  const std::string sim = model_says(r, "xf-lockfree-unrepaired", "model-sim");
  return course::found(sim.find("passed barrier") != std::string::npos ? "yes" : "no", {{"sim", sim}});
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {{{"mutex-value", mutex_value},
                 {"unrepaired-lock", unrepaired_lock},
                 {"unrepaired-lockfree", unrepaired_lockfree}},
                {}});
  return c;
}

}  // namespace cudasync::lockfree_barrier
