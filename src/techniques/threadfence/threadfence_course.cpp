// threadfence's exercises: every answer is read from a run of the lesson (the PTX memory model's
// allowed outcomes, the WorkQueue model), never stored. Their words are in lessons/threadfence/.
#include "techniques/threadfence/threadfence_course.hpp"

#include <stdexcept>
#include <string>

#include "core/course/exercise_texts.hpp"
#include "core/course/report_read.hpp"

namespace cudasync::threadfence {

namespace {

using course::AnswerKind, course::Exercise, course::LessonRunner;

const char* kLesson = "threadfence";
const course::AnswerFormat kYesNo{AnswerKind::choice, {"yes", "no"}};

bool has_outcome(const std::string& allowed, const std::string& outcome) {
  return (" " + allowed + " ").find(" " + outcome + " ") != std::string::npos;
}

// Whether the PTX model allows mp's stale read (10) with `fence` on both sides, the sides in `sides`.
course::Answer scope_answer(LessonRunner& r, const std::string& fence, const std::string& sides) {
  const report::Report rep = r.run(kLesson, {"--part", "scope", "--iterations", "1000"});
  const report::Table& t = course::table(rep, "scope", "outcomes");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (course::as_text(t.cell(i, "fence")) != fence || course::as_text(t.cell(i, "sides-in")) != sides) continue;
    const std::string allowed = course::as_text(t.cell(i, "allowed"));
    return course::found(has_outcome(allowed, "10") ? "yes" : "no", {{"allowed", allowed}});
  }
  throw std::logic_error("threadfence course: no scope row " + fence + " / " + sides);
}

// The outcomes the PTX model allows for one litmus test with one fence on both sides.
std::string litmus_allowed(LessonRunner& r, const char* test, const char* fence) {
  const report::Report rep = r.run(kLesson, {"--part", "litmus", "--test", test, "--fence", fence, "--iterations", "1000"});
  return course::as_text(course::table(rep, "litmus", "outcomes").cell(0, "allowed"));
}

Exercise block_fence_two_blocks() {
  return course::computed(1, "mp-block-fence-two-blocks", kYesNo,
                          [](LessonRunner& r) { return scope_answer(r, "block", "two blocks"); });
}

Exercise block_fence_one_block() {
  return course::computed(2, "mp-block-fence-one-block", kYesNo,
                          [](LessonRunner& r) { return scope_answer(r, "block", "one block"); });
}

Exercise sb_release_acquire() {
  return course::computed(3, "sb-release-acquire", kYesNo, [](LessonRunner& r) {
    const std::string allowed = litmus_allowed(r, "sb", "rel-acq");
    return course::found(has_outcome(allowed, "00") ? "yes" : "no", {{"allowed", allowed}});
  });
}

Exercise lb_device() {
  return course::computed(4, "lb-device-forbidden", {AnswerKind::choice, {"00", "01", "10", "11"}}, [](LessonRunner& r) {
    const std::string allowed = litmus_allowed(r, "lb", "device");
    std::string forbidden;
    for (const char* o : {"00", "01", "10", "11"})
      if (!has_outcome(allowed, o)) forbidden += (forbidden.empty() ? "" : " ") + std::string(o);
    return course::found(forbidden, {{"allowed", allowed}});
  });
}

Exercise host_fence() {
  return course::computed(
      5, "host-observer-fence", {AnswerKind::choice, {"none", "threadfence", "threadfence_system"}}, [](LessonRunner& r) {
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
      });
}

Exercise work_queue() {
  return course::computed(6, "work-queue-slowest-block", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "work-queue"});
    const auto units = [&](const char* id) { return std::to_string(course::as_int(course::fact(rep, "work-queue", id))); };
    return course::found(units("slowest-queue-model"), {{"fixed", units("slowest-a-priori-model")}});
  });
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {"--part", "litmus", "--test", "mp", "--iterations", "10000"},
      {block_fence_two_blocks(), block_fence_one_block(), sb_release_acquire(), lb_device(), host_fence(), work_queue()}, exercise_whys());
  return c;
}

}  // namespace cudasync::threadfence
