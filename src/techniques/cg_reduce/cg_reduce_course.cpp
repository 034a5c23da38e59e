// cg-reduce's course: lessons/cg-reduce/lesson.json declares every exercise; the rows that read a
// table or a fact need no code. These compare rungs and read a bound's chain;
// the kernel exercise has its KernelRun.
#include "techniques/cg_reduce/cg_reduce_course.hpp"

#include "core/course/exercise_texts.hpp"

#include <algorithm>
#include <string>

#include "core/course/report_read.hpp"
#include "core/report/text_format.hpp"
#include "techniques/cg_reduce/cg_reduce_kernel_exercise.hpp"

namespace cudasync::cg_reduce {

namespace {

using course::LessonRunner;
using std::to_string;

const char* kLesson = "cg-reduce";

// The relative error of a rung's first row (the GPU's sum where there is one).
double rel_error(const report::Report& r, const std::string& rung) {
  return course::as_double(course::table(r, rung, "results").cell(0, "rel-error"));
}

course::Answer closer_sum(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "shared,two-pass"});
  const double atomic = rel_error(rep, "shared"), fixed = rel_error(rep, "two-pass");
  return course::found(atomic < fixed ? "shared" : "two-pass", {{"atomic", report::printf_number("%.3e", atomic)},
                                                                {"fixed", report::printf_number("%.3e", fixed)}});
}

course::Answer chain_length(LessonRunner& r) {
  const report::Report rep = r.run(kLesson, {"--part", "two-pass"});
  const auto d = course::number_after(course::check(rep, "two-pass", "two-pass-fixed-grid-error-bound").detail, "d =");
  return course::found(to_string(d.value_or(-1)));
}

course::Answer same_bits(LessonRunner& r) {
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
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c = course::lesson_course(
      kLesson, {{{"closer-sum", closer_sum},
                 {"chain-length", chain_length},
                 {"same-bits", same_bits}},
                {{"block-sum-kernel", run_block_sum_exercise}}});
  return c;
}

}  // namespace cudasync::cg_reduce
