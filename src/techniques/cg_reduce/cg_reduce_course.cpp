// cg-reduce's exercises: every answer is read from a run of the lesson (the GPU's sums where there
// is a GPU, the model's replay otherwise), never stored.
#include "techniques/cg_reduce/cg_reduce_course.hpp"

#include <string>

#include "core/course/report_read.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::cg_reduce {

namespace {

using course::Answer;
using course::AnswerKind;
using course::Exercise;
using course::LessonRunner;
using std::to_string;

const char* kLesson = "cg-reduce";

// The relative error of a rung's first row (the GPU's sum where there is one).
double rel_error(const report::Report& r, const std::string& rung) {
  return course::as_double(course::table(r, rung, "results").cell(0, "rel-error"));
}

Exercise grid_blocks() {
  Exercise e;
  e.number = 1;
  e.id = "grid-one-element-per-thread";
  e.question = {"Rungs 1 to 4 give each thread one element. For --n 1000000 and blocks of 128 threads, how many "
                "blocks does their grid have?",
                "第 1 到 4 级让每个线程处理一个元素。--n 1000000、每块 128 个线程时，它们的网格有多少个块？"};
  e.hint = {"Every element needs a thread, and a grid has whole blocks.", "每个元素都要一个线程，网格只能有整数个块。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shared", "--n", "1000000"});
    const std::string g = to_string(course::as_int(course::fact(rep, "setup", "grid-rungs-1-4")));
    return Answer{g, {"one element per thread: ceil(1000000 / 128) = " + g + " blocks; the last one is not full.",
                      "每个线程一个元素：ceil(1000000 / 128) = " + g + " 个块，最后一个块不满。"}};
  };
  return e;
}

Exercise closer_sum() {
  Exercise e;
  e.number = 2;
  e.id = "atomic-or-two-pass-closer";
  e.format = {AnswerKind::choice, {"shared", "two-pass"}};
  e.question = {"The default run (2^24 floats): which rung's sum is closer to the exact sum, rung 1 (shared, block "
                "sums added with atomicAdd) or rung 5 (two-pass, no atomics)? Answer shared or two-pass.",
                "默认运行（2^24 个 float）：哪一级的和更接近精确和？第 1 级（shared，用 atomicAdd 累加各块的和）"
                "还是第 5 级（two-pass，不用原子操作）？回答 shared 或 two-pass。"};
  e.hint = {"Count how many additions chain into the one float that ends as the sum, and how large that float "
            "already is when most of them happen.",
            "数一数有多少次加法串接到最后那个 float 上，以及大多数加法发生时它已经多大。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shared,two-pass"});
    const double a = rel_error(rep, "shared"), b = rel_error(rep, "two-pass");
    const std::string v = a < b ? "shared" : "two-pass";
    const std::string ea = report::printf_number("%.3e", a), eb = report::printf_number("%.3e", b);
    return Answer{v, {"relative error: rung 1 " + ea + ", rung 5 " + eb + ". Rung 1 chains 131072 block sums into "
                      "one float that soon exceeds 4 million, where each addition rounds to a spacing of 0.5 or 1; "
                      "rung 5's chains are short.",
                      "相对误差：第 1 级 " + ea + "，第 5 级 " + eb + "。第 1 级把 131072 个块的和串接加到一个 float "
                      "上，它很快超过 400 万，每次加法都要舍入到 0.5 或 1 的间隔；第 5 级的加法链很短。"}};
  };
  return e;
}

Exercise chain_length() {
  Exercise e;
  e.number = 3;
  e.id = "two-pass-longest-chain";
  e.question = {"Rung 5 with Fan's grid of 10240 blocks of 128 threads, default --n 16777216: how many additions "
                "does the longest chain into the final sum have (the d of the error bound)?",
                "第 5 级用樊哲勇的网格（10240 个块，每块 128 个线程），默认 --n 16777216：最终的和最长的一条加法链"
                "有多少次加法（误差界里的 d）？"};
  e.hint = {"Add up: a thread's grid-stride loop over its elements, the block's tree over 128 values, then the "
            "second launch: 1024 threads each looping over the 10240 block sums, and their tree.",
            "逐段相加：线程在网格跨步循环里累加自己的元素，块内对 128 个值的树形归约，然后第二次启动："
            "1024 个线程各自循环累加 10240 个块和，再加上它们的树形归约。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "two-pass"});
    const auto d = course::number_after(course::check(rep, "two-pass", "two-pass-seed-error-bound").detail, "d =");
    const std::string v = to_string(d.value_or(-1));
    return Answer{v, {"d = " + v + ": ceil(2^24 / (10240 x 128)) = 13 elements per thread, 7 steps of the 128-thread "
                      "tree, 10 block sums per thread in the second launch and 10 steps of its 1024-thread tree.",
                      "d = " + v + "：每个线程 ceil(2^24 / (10240 x 128)) = 13 个元素，128 线程的树 7 步，"
                      "第二次启动每个线程 10 个块和，再加 1024 线程的树 10 步。"}};
  };
  return e;
}

Exercise same_bits() {
  Exercise e;
  e.number = 4;
  e.id = "rungs-1-to-4-same-bits";
  e.format = {AnswerKind::choice, {"yes", "no"}};
  e.question = {"Rungs 1 to 4 synchronize differently (__syncthreads, __syncwarp, shuffles, cg::reduce). In the "
                "reference model, which adds the block sums in block order, do all of them give the same bits? "
                "Answer yes or no.",
                "第 1 到 4 级的同步方式各不相同（__syncthreads、__syncwarp、shuffle、cg::reduce）。在按块序累加块和"
                "的参考模型里，它们给出的结果每一位都相同吗？回答 yes 或 no。"};
  e.hint = {"Rounding depends on which pairs are added in which grouping, not on how the threads wait.",
            "舍入取决于哪些数按什么分组相加，而不是线程怎样等待。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shared,syncwarp,shfl,cg", "--n", "1048576"});
    std::string sums;
    bool same = true;
    double first = 0;
    bool have = false;
    for (const char* rung : {"shared", "syncwarp", "shfl", "cg"}) {
      const report::Table& t = course::table(rep, rung, "results");
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const double v = course::as_double(t.cell(i, "model"));
        if (have && v != first) same = false;
        first = have ? first : v;
        have = true;
        sums += (sums.empty() ? "" : ", ") + report::printf_number("%.17g", v);
      }
    }
    return Answer{same ? "yes" : "no",
                  {"the model's sums (--n 1048576): " + sums + ". Lane 0 of the shuffle ladder, s_y[0] of the shared "
                   "tree and cg::reduce's lane 0 add the same pairs in the same grouping.",
                   "模型的和（--n 1048576）：" + sums + "。shuffle 阶梯的 lane 0、共享内存树的 s_y[0] 和 cg::reduce "
                   "的 lane 0 按同样的分组加同样的数。"}};
  };
  return e;
}

Exercise tree_steps() {
  Exercise e;
  e.number = 5;
  e.id = "shared-tree-steps";
  e.question = {"In rung 1's shared-memory tree for blocks of 128 threads, how many steps (each followed by "
                "__syncthreads()) does it take until s_y[0] holds the block's sum?",
                "第 1 级共享内存树，每块 128 个线程：要多少步（每步之后一个 __syncthreads()）s_y[0] 才持有整块的和？"};
  e.hint = {"Each step halves the number of words still to be added.", "每一步都把还要相加的字数减半。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "trace", "--n", "4096"});
    const report::Table& t = course::table(rep, "trace", "shared-tree");
    std::string offsets;
    long long steps = 0;
    for (const auto& c : t.columns)
      if (c.key.rfind("after-", 0) == 0) {
        offsets += (offsets.empty() ? "" : ", ") + c.title;
        ++steps;
      }
    return Answer{to_string(steps), {"offsets " + offsets + ": " + to_string(steps) + " steps, log2(128).",
                                     "offset 依次为 " + offsets + "：共 " + to_string(steps) + " 步，即 log2(128)。"}};
  };
  return e;
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "shared,two-pass", "--n", "1048576"},
      {"The order of the additions decides the bits: atomics add the block sums in whatever order the blocks "
       "finish, a fixed tree gives the same bits every run, and short chains round less.",
       "加法的顺序决定结果的每一位：原子操作按块完成的先后累加，顺序不定；固定的树形归约每次结果都相同，"
       "加法链越短舍入误差越小。"},
      {grid_blocks(), closer_sum(), chain_length(), same_bits(), tree_steps()}};
  return c;
}

}  // namespace cudasync::cg_reduce
