// How the answer of each of threadfence's computed exercises follows, in English and Chinese, by
// exercise id: `cudasync check` gives it with a wrong answer's reason and `exercise N --answer` with
// the answer; its {names} are the values the exercise's compute read from the run. It lives here,
// not in lessons/threadfence/*.md: those texts are installed for students, and a why gives the answer away.
#include "techniques/threadfence/threadfence_course.hpp"

namespace cudasync::threadfence {

const course::Whys& exercise_whys() {
  static const course::Whys whys = {
      {"mp-block-fence-two-blocks",
       {R"w(The model allows {allowed}. `__threadfence_block()` is fence.sc.cta: its scope is its own block, )w"
        R"w(so across two blocks the two fences are not morally strong and do not synchronize.)w",
        R"w(模型允许的结果：{allowed}。`__threadfence_block()` 是 fence.sc.cta，作用域只是自己的块；)w"
        R"w(跨两个块时两个 fence 不是 morally strong，不能同步。)w"}},
      {"mp-block-fence-one-block",
       {R"w(The model allows only {allowed}: inside one block both block-scoped fences contain the other )w"
        R"w(thread, so they synchronize and the stale read is forbidden.)w",
        R"w(模型只允许 {allowed}：在同一个块里，两个块作用域的 fence 都包含对方线程，能够同步，读到旧)w"
        R"w(数据被禁止。)w"}},
      {"sb-release-acquire",
       {R"w(The model allows {allowed}: nothing orders a release store before a later acquire load of )w"
        R"w(another location, so both loads may read 0. Only a `__threadfence()` (fence.sc) between them )w"
        R"w(forbids it.)w",
        R"w(模型允许 {allowed}：没有什么能让 release 存储排在之后对另一地址的 acquire 读取之前，两个)w"
        R"w(读取都可能读到 0。只有在它们之间放 `__threadfence()`（fence.sc）才能禁止。)w"}},
      {"lb-device-forbidden",
       {R"w(The model allows {allowed} and forbids {answer}: each read would have to see a store that its )w"
        R"w(own fence orders after it (a causality cycle).)w",
        R"w(模型允许 {allowed}，禁止 {answer}：否则每次读取都要看到一个被它自己的 fence 排在它之后的)w"
        R"w(存储（因果环）。)w"}},
      {"host-observer-fence",
       {R"w(Only {ptx} forbids it: `__threadfence()` is fence.sc.gpu, whose scope does not contain the host )w"
        R"w(thread; `__threadfence_system()` is fence.sc.sys, whose scope does.)w",
        R"w(只有 {ptx} 能禁止：`__threadfence()` 是 fence.sc.gpu，作用域不包含主机线程；`__threadfence_system()` 是 fence.sc.sys，)w"
        R"w(作用域包含它。)w"}},
      {"work-queue-slowest-block",
       {R"w(The slowest block does {answer} units with the queue, against {fixed} with the fixed assignment: )w"
        R"w(a block that finishes early takes the next item.)w",
        R"w(用队列时最慢的块做 {answer} 个单位，固定分配时是 {fixed}：先做完的块去取下一个任务。)w"}},
  };
  return whys;
}

}  // namespace cudasync::threadfence
