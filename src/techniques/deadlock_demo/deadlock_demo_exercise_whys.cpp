// How the answer of each of deadlock-demo's computed exercises follows, in English and Chinese, by
// exercise id: `cudasync check` gives it with a wrong answer's reason and `exercise N --answer` with
// the answer; its {names} are the values the exercise's compute read from the run. It lives here,
// not in lessons/deadlock-demo/*.md: those texts are installed for students, and a why gives the answer away.
#include "techniques/deadlock_demo/deadlock_demo_course.hpp"

namespace cudasync::deadlock_demo {

const course::Whys& exercise_whys() {
  static const course::Whys whys = {
      {"oversubscribed-blocks-without-slot",
       {R"w({launch}, {resident} resident: {blocks} - {resident} = {answer} blocks wait for a slot the )w"
        R"w(spinning blocks never free.)w",
        R"w({launch}，驻留 {resident} 个：{blocks} - {resident} = {answer} 个块在等一个自旋的块永远不)w"
        R"w(会让出的位置。)w"}},
      {"ring-of-flags-independent",
       {R"w(The model under independent scheduling: {verdict}. The wait-for cycle is {cycle}: no scheduler )w"
        R"w(can break a cycle in the program itself.)w",
        R"w(独立调度下的模型：{verdict}。等待环是 {cycle}：程序本身的环，任何调度器都打不破。)w"}},
      {"divergent-syncthreads-waiters",
       {R"w(The model's wait-for cycle: {cycle}. Threads {answer} wait for the whole block; the rest wait )w"
        R"w(for a flag only a thread at the barrier would set.)w",
        R"w(模型的等待环：{cycle}。线程 {answer} 等整个块；其余线程等一个只有屏障处的线程才会设置的标)w"
        R"w(志。)w"}},
      {"syncwarp-mask-waiters",
       {R"w(The model's wait-for cycle: {cycle}. The mask 0xffffffff names lanes 16-31 too, which never )w"
        R"w(arrive.)w",
        R"w(模型的等待环：{cycle}。掩码 0xffffffff 也包括了永远不会到达的 lane 16-31。)w"}},
      {"lock-order-cycle",
       {R"w(The model: {cycle}. Taking the locks in one global order (A before B) removes the cycle.)w",
        R"w(模型：{cycle}。按一个全局顺序取锁（先 A 后 B）就没有环了。)w"}},
  };
  return whys;
}

}  // namespace cudasync::deadlock_demo
