// cg-reduce's exercises: every answer is read from a run of the lesson (the GPU's sums where there
// is a GPU, the model's replay otherwise), never stored. Their words are in lessons/cg-reduce/.
#include "techniques/cg_reduce/cg_reduce_course.hpp"

#include <algorithm>
#include <string>

#include "core/course/exercise_texts.hpp"
#include "core/course/report_read.hpp"
#include "core/report/text_format.hpp"
#include "techniques/cg_reduce/cg_reduce_kernel_exercise.hpp"

namespace cudasync::cg_reduce {

namespace {

using course::AnswerKind, course::Exercise, course::LessonRunner;
using std::to_string;

const char* kLesson = "cg-reduce";

// The relative error of a rung's first row (the GPU's sum where there is one).
double rel_error(const report::Report& r, const std::string& rung) {
  return course::as_double(course::table(r, rung, "results").cell(0, "rel-error"));
}

Exercise grid_blocks() {
  return course::computed(1, "grid-one-element-per-thread", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shared", "--n", "1000000"});
    return course::found(to_string(course::as_int(course::fact(rep, "setup", "grid-rungs-1-4"))));
  });
}

Exercise closer_sum() {
  return course::computed(
      2, "atomic-or-two-pass-closer", {AnswerKind::choice, {"shared", "two-pass"}}, [](LessonRunner& r) {
        const report::Report rep = r.run(kLesson, {"--part", "shared,two-pass"});
        const double atomic = rel_error(rep, "shared"), fixed = rel_error(rep, "two-pass");
        return course::found(atomic < fixed ? "shared" : "two-pass",
                             {{"atomic", report::printf_number("%.3e", atomic)},
                              {"fixed", report::printf_number("%.3e", fixed)}});
      });
}

Exercise chain_length() {
  return course::computed(3, "two-pass-longest-chain", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "two-pass"});
    const auto d = course::number_after(course::check(rep, "two-pass", "two-pass-fixed-grid-error-bound").detail, "d =");
    return course::found(to_string(d.value_or(-1)));
  });
}

Exercise same_bits() {
  return course::computed(4, "rungs-1-to-4-same-bits", {AnswerKind::choice, {"yes", "no"}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shared,syncwarp,shfl,cg", "--n", "1048576"});
    std::vector<double> sums;
    std::string shown;
    for (const char* rung : {"shared", "syncwarp", "shfl", "cg"}) {
      const report::Table& t = course::table(rep, rung, "results");
      for (std::size_t i = 0; i < t.rows.size(); ++i) sums.push_back(course::as_double(t.cell(i, "model")));
    }
    for (double v : sums) shown += (shown.empty() ? "" : ", ") + report::printf_number("%.17g", v);
    const bool same = std::all_of(sums.begin(), sums.end(), [&](double v) { return v == sums.front(); });
    return course::found(same ? "yes" : "no", {{"sums", shown}});
  });
}

Exercise tree_steps() {
  return course::computed(5, "shared-tree-steps", {AnswerKind::integer, {}}, [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "trace", "--n", "4096"});
    std::string offsets;
    long long steps = 0;
    for (const auto& c : course::table(rep, "trace", "shared-tree").columns)
      if (c.key.rfind("after-", 0) == 0) {
        offsets += (offsets.empty() ? "" : ", ") + c.title;
        ++steps;
      }
    return course::found(to_string(steps), {{"offsets", offsets}});
  });
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c =
      course::lesson_course(kLesson, {"--part", "shared,two-pass", "--n", "1048576"},
                            {grid_blocks(), closer_sum(), chain_length(), same_bits(), tree_steps(),
                             course::kernel_exercise(kLesson, 6, "block-sum-kernel", "block_sum.cu",
                                                     run_block_sum_exercise)}, exercise_whys());
  return c;
}

}  // namespace cudasync::cg_reduce
