// How the answer of each of cg-reduce's computed exercises follows, in English and Chinese, by
// exercise id: `cudasync check` gives it with a wrong answer's reason and `exercise N --answer` with
// the answer; its {names} are the values the exercise's compute read from the run. It lives here,
// not in lessons/cg-reduce/*.md: those texts are installed for students, and a why gives the answer away.
#include "techniques/cg_reduce/cg_reduce_course.hpp"

namespace cudasync::cg_reduce {

const course::Whys& exercise_whys() {
  static const course::Whys whys = {
      {"grid-one-element-per-thread",
       {R"w(One element per thread: ceil(1000000 / 128) = {answer} blocks; the last one is not full.)w",
        R"w(每个线程一个元素：ceil(1000000 / 128) = {answer} 个块，最后一个块不满。)w"}},
      {"atomic-or-two-pass-closer",
       {R"w(Relative error: rung 1 {atomic}, rung 5 {fixed}. Rung 1 chains 131072 block sums into one float )w"
        R"w(that soon exceeds 4 million, where each addition rounds to a spacing of 0.5 or 1; rung 5's )w"
        R"w(chains are short.)w",
        R"w(相对误差：第 1 级 {atomic}，第 5 级 {fixed}。第 1 级把 131072 个块的和串接加到一个 float 上，)w"
        R"w(它很快超过 400 万，每次加法都要舍入到 0.5 或 1 的间隔；第 5 级的加法链很短。)w"}},
      {"two-pass-longest-chain",
       {R"w(d = {answer}: ceil(2^24 / (10240 x 128)) = 13 elements per thread, 7 steps of the 128-thread )w"
        R"w(tree, 10 block sums per thread in the second launch and 10 steps of its 1024-thread tree.)w",
        R"w(d = {answer}：每个线程 ceil(2^24 / (10240 x 128)) = 13 个元素，128 线程的树 7 步，第二次)w"
        R"w(启动每个线程 10 个块和，再加 1024 线程的树 10 步。)w"}},
      {"rungs-1-to-4-same-bits",
       {R"w(The model's sums (--n 1048576): {sums}. Lane 0 of the shuffle ladder, s_y[0] of the shared tree )w"
        R"w(and `cg::reduce`'s lane 0 add the same pairs in the same grouping.)w",
        R"w(模型的和（--n 1048576）：{sums}。shuffle 阶梯的 lane 0、共享内存树的 s_y[0] 和 `cg::reduce` 的 lane 0 按)w"
        R"w(同样的分组加同样的数。)w"}},
      {"shared-tree-steps",
       {R"w(Offsets {offsets}: {answer} steps, log2(128).)w",
        R"w(offset 依次为 {offsets}：共 {answer} 步，即 log2(128)。)w"}},
  };
  return whys;
}

}  // namespace cudasync::cg_reduce
