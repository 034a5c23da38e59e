// How the answer of each of lockfree-barrier's computed exercises follows, in English and Chinese, by
// exercise id: `cudasync check` gives it with a wrong answer's reason and `exercise N --answer` with
// the answer; its {names} are the values the exercise's compute read from the run. It lives here,
// not in lessons/lockfree-barrier/*.md: those texts are installed for students, and a why gives the answer away.
#include "techniques/lockfree_barrier/lockfree_barrier_course.hpp"

namespace cudasync::lockfree_barrier {

const course::Whys& exercise_whys() {
  static const course::Whys whys = {
      {"xf-lock-final-mutex",
       {R"w(The model ends with {words}: 8 arrivals at each of the 4 barriers, 8 x 4 = {answer}; the goal )w"
        R"w(grows with it, so no reset is needed.)w",
        R"w(模型最后是 {words}：4 个屏障每个 8 次到达，8 x 4 = {answer}；目标值随之增长，所以不需要清)w"
        R"w(零。)w"}},
      {"xf-lock-unrepaired-outcome",
       {R"w(The model: {sim}. A fast block's next arrival pushes g_mutex past goalVal before the slow block )w"
        R"w(reads it, and != never holds again.)w",
        R"w(模型：{sim}。快的块的下一次到达让 g_mutex 在慢的块读取之前越过了 goalVal，!= 的条件再也不)w"
        R"w(会成立。)w"}},
      {"xf-lockfree-unrepaired-passes-early",
       {R"w(The model: {sim}.)w",
        R"w(模型：{sim}。)w"}},
      {"resident-blocks-256",
       {R"w({answer} blocks of 256 threads can be resident at once here (the occupancy API on a GPU; an )w"
        R"w(H100's 132 SMs x 8 on the model). One more block and a barrier inside the kernel deadlocks.)w",
        R"w(这里最多同时驻留 {answer} 个 256 线程的块（GPU 上由 occupancy API 给出；模型按 H100 的 132 个 SM x 8 计)w"
        R"w(算）。再多一个块，核函数内的屏障就会死锁。)w"}},
  };
  return whys;
}

}  // namespace cudasync::lockfree_barrier
