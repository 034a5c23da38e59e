// threadfence's course: lessons/threadfence/lesson.json declares every exercise; the rows that read
// a table or a fact need no code. These read the PTX model's outcomes by the rows' fences and sides.
#include "techniques/threadfence/threadfence_course.hpp"

#include "core/course/exercise_texts.hpp"

#include <stdexcept>
#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::threadfence {

namespace {

using course::LessonRunner;

const char* kLesson = "threadfence";

// Whether the PTX model allows mp's stale read (10) with `fence` on both sides, the sides in `sides`.
course::Answer scope_answer(LessonRunner& r, const std::string& fence, const std::string& sides) {
  const report::Report rep = r.run(kLesson, {"--part", "scope", "--iterations", "1000"});
  const report::Table& t = course::table(rep, "scope", "outcomes");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (course::as_text(t.cell(i, "fence")) != fence || course::as_text(t.cell(i, "sides-in")) != sides) continue;
    const std::string allowed = course::as_text(t.cell(i, "allowed"));
    return course::found(course::has_word(allowed, "10") ? "yes" : "no", {{"allowed", allowed}});
  }
  throw std::logic_error("threadfence course: no scope row " + fence + " / " + sides);
}

// The outcomes the PTX model allows for one litmus test with one fence on both sides.
std::string litmus_allowed(LessonRunner& r, const char* test, const char* fence) {
  const report::Report rep = r.run(kLesson, {"--part", "litmus", "--test", test, "--fence", fence, "--iterations", "1000"});
  return course::as_text(course::table(rep, "litmus", "outcomes").cell(0, "allowed"));
}

course::Answer lb_device_forbidden(LessonRunner& r) {
  const std::string allowed = litmus_allowed(r, "lb", "device");
  std::string forbidden;
  for (const char* o : {"00", "01", "10", "11"})
    if (!course::has_word(allowed, o)) forbidden += (forbidden.empty() ? "" : " ") + std::string(o);
  return course::found(forbidden, {{"allowed", allowed}});
}

course::Answer host_observer_fence(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "host-observer"});
  const report::Table& t = course::table(rep, "host-observer", "rounds");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (course::as_text(t.cell(i, "verdict")).rfind("forbidden", 0) != 0) continue;
    const std::string fence = course::as_text(t.cell(i, "fence"));
    const char* word = fence == "__threadfence_system()" ? "threadfence_system"
                       : fence == "__threadfence()"      ? "threadfence"
                                                         : "none";
    return course::found(word, {{"ptx", course::as_text(t.cell(i, "ptx"))}});
  }
  return course::found("none", {{"ptx", "no fence"}});
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {{{"block-fence-two-blocks", [](LessonRunner& r) { return scope_answer(r, "block", "two blocks"); }},
                 {"block-fence-one-block", [](LessonRunner& r) { return scope_answer(r, "block", "one block"); }},
                 {"lb-device-forbidden", lb_device_forbidden},
                 {"host-observer-fence", host_observer_fence}},
                {}});
  return c;
}

}  // namespace cudasync::threadfence
