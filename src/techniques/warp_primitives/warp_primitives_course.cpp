// warp-primitives' exercises: every answer is read from a run of the lesson (the GPU's column where
// there is a GPU, the model's otherwise), never stored. Their words are in lessons/warp-primitives/.
#include "techniques/warp_primitives/warp_primitives_course.hpp"

#include <algorithm>
#include <string>

#include "core/course/answer_format.hpp"
#include "core/course/exercise_texts.hpp"
#include "core/course/report_read.hpp"
#include "techniques/warp_primitives/warp_primitives_kernel_exercise.hpp"

namespace cudasync::warp_primitives {

namespace {

using course::AnswerKind, course::Exercise, course::LessonRunner;
using std::to_string;

const char* kLesson = "warp-primitives";

// What thread `t` received from a shuffle part (value, and the thread it read), and whether it kept
// its own value.
course::Answer received(LessonRunner& r, const std::vector<std::string>& args, const std::string& part, long long t) {
  const report::Report rep = r.run(kLesson, args);
  const report::Table& lanes = course::table(rep, part, "lanes");
  const std::size_t row = course::row_where(lanes, "thread", t);
  const auto value = course::as_int(lanes.cell(row, course::result_column(lanes, r.context())));
  const bool kept = lanes.rows[row].mark == report::RowMark::kept_own;
  return course::found(to_string(value), {{"src", to_string(course::as_int(lanes.cell(row, "source-lane")))},
                                          {"kept", kept ? "keeps its own value" : "reads it"}});
}

// The values of every lane after the last step of the warp-reduce part's `ladder`, and the sum.
std::vector<std::int64_t> ladder_end(LessonRunner& r, const std::string& ladder, std::int64_t& sum) {
  const report::Report rep = r.run(kLesson, {"--part", "warp-reduce"});
  const report::Table& t = course::table(rep, "warp-reduce", ladder);
  sum = course::as_int(course::fact(rep, "warp-reduce", "right-sum"));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < t.rows.size(); ++i) out.push_back(course::as_int(t.cell(i, "after-1")));
  return out;
}

Exercise shfl_src_lane() {
  return course::computed(1, "shfl-src-lane-modulo", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    return received(r, {"--part", "shfl", "--threads", "16", "--width", "8", "--src-lane", "10"}, "shfl", 13);
  });
}

Exercise shfl_xor_lane() {
  return course::computed(2, "shfl-xor-lane", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    return received(r, {"--part", "shfl-xor", "--lane-mask", "3", "--width", "8"}, "shfl-xor", 5);
  });
}

Exercise shfl_xor_segment() {
  return course::computed(3, "shfl-xor-later-segment", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    return received(r, {"--part", "shfl-xor", "--threads", "16", "--width", "8", "--lane-mask", "8"}, "shfl-xor", 3);
  });
}

Exercise shfl_down_undefined() {
  return course::computed(4, "shfl-down-undefined-lanes", {AnswerKind::lanes, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shfl-down", "--mask", "0x0000ffff", "--delta", "4"});
    const report::Table& lanes = course::table(rep, "shfl-down", "lanes");
    const auto bad = course::rows_marked(lanes, report::RowMark::undefined_src, "thread");
    std::vector<long long> sources;
    for (long long t : bad) sources.push_back(course::as_int(lanes.cell(course::row_where(lanes, "thread", t), "source-lane")));
    return course::found(course::lanes_text(bad), {{"sources", course::lanes_text(sources)}});
  });
}

Exercise racy_syncwarp() {
  return course::computed(5, "racy-syncwarp-descending", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "syncwarp", "--variant", "racy"});
    return course::found(to_string(course::as_int(course::fact(rep, "syncwarp", "racy-s0-descending"))),
                         {{"sum", to_string(course::as_int(course::fact(rep, "syncwarp", "right-sum")))}});
  });
}

Exercise down_sum_lanes() {
  return course::computed(6, "shfl-down-sum-lanes", {AnswerKind::lanes, {}}, [](LessonRunner& r) {
    std::int64_t sum = 0;
    const auto end = ladder_end(r, "shfl-down", sum);
    std::vector<long long> holders;
    for (std::size_t lane = 0; lane < end.size(); ++lane)
      if (end[lane] == sum) holders.push_back(static_cast<long long>(lane));
    return course::found(course::lanes_text(holders), {{"sum", to_string(sum)}});
  });
}

Exercise down_lane_31() {
  return course::computed(7, "shfl-down-lane-31", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "warp-reduce"});
    const report::Table& t = course::table(rep, "warp-reduce", "shfl-down");
    const std::size_t row = course::row_where(t, "lane", 31);
    std::string steps;
    for (const char* c : {"start", "after-16", "after-8", "after-4", "after-2"})
      steps += to_string(course::as_int(t.cell(row, c))) + ", ";
    return course::found(to_string(course::as_int(t.cell(row, "after-1"))), {{"steps", steps}});
  });
}

Exercise xor_sum_lanes() {
  return course::computed(8, "shfl-xor-sum-count", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    std::int64_t sum = 0;
    const auto end = ladder_end(r, "shfl-xor", sum);
    const auto n = std::count(end.begin(), end.end(), sum);
    return course::found(to_string(n), {{"sum", to_string(sum)}});
  });
}

Exercise ballot_mask() {
  return course::computed(9, "ballot-lane-less-5", {AnswerKind::mask, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "ballot", "--predicate", "lane<5"});
    const std::int64_t m = course::as_int(course::result_fact(rep, "ballot", "result", r.context()));
    return course::found(*course::canonical({AnswerKind::mask, {}}, to_string(m)));
  });
}

Exercise bounds_check_warps() {
  return course::computed(11, "bounds-check-diverging-warps", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "divergence"});
    const report::Table& t = course::table(rep, "divergence", "bounds-check");
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      if (course::as_int(t.cell(i, "n")) == 1000001)
        return course::found(to_string(course::as_int(t.cell(i, "diverging"))),
                             {{"warps", to_string(course::as_int(t.cell(i, "warps")))},
                              {"idle", to_string(course::as_int(t.cell(i, "idle")))}});
    return course::found("?");
  });
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {"--part", "shfl-xor,ballot", "--width", "8", "--lane-mask", "3"},
      {shfl_src_lane(), shfl_xor_lane(), shfl_xor_segment(), shfl_down_undefined(), racy_syncwarp(), down_sum_lanes(),
       down_lane_31(), xor_sum_lanes(), ballot_mask(),
       course::kernel_exercise(kLesson, 10, "warp-sum-kernel", "warp_sum.cu", run_warp_sum_exercise),
       bounds_check_warps()},
      exercise_whys());
  return c;
}

}  // namespace cudasync::warp_primitives
