// deadlock-demo's exercises: every answer is read from a run of the lesson (its wait-for models, the
// occupancy of this GPU or of the model's assumed one), never stored.
#include "techniques/deadlock_demo/deadlock_demo_course.hpp"

#include <string>

#include "core/course/answer_format.hpp"
#include "core/course/report_read.hpp"

namespace cudasync::deadlock_demo {

namespace {

using course::Answer;
using course::AnswerKind;
using course::Exercise;
using course::LessonRunner;
using std::to_string;

const char* kLesson = "deadlock-demo";

// "0-47" from "threads 0-47 (at the barrier) -> ..." (or "lanes ..."): the waiters of a cycle.
std::string waiters(const std::string& cycle) {
  const std::size_t space = cycle.find(' '), paren = cycle.find(" (at the barrier)");
  if (space == std::string::npos || paren == std::string::npos || paren < space) return "?";
  return course::canonical({AnswerKind::lanes, {}}, cycle.substr(space + 1, paren - space - 1)).value_or("?");
}

Exercise no_slot() {
  Exercise e;
  e.number = 1;
  e.id = "oversubscribed-blocks-without-slot";
  e.question = {"A software grid barrier is launched with twice as many blocks of 256 threads as fit on the GPU at "
                "once (this lesson's default). How many blocks never get an SM slot while the others spin?",
                "软件网格屏障以 GPU 同时能容纳的块数的两倍启动，每块 256 个线程（本课的默认值）。在其他块自旋时，"
                "有多少个块永远得不到 SM 的位置？"};
  e.hint = {"The resident blocks spin at the barrier and never leave their slots.", "驻留的块在屏障处自旋，永远不让出位置。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "grid-oversubscribed", "--deadline-ms", "20"});
    const std::int64_t resident = course::as_int(course::fact(rep, "grid-oversubscribed", "resident"));
    const std::string launch = course::as_text(course::fact(rep, "grid-oversubscribed", "launch"));
    const auto n = course::numbers_in(launch);
    const std::int64_t blocks = n.empty() ? 0 : n.front();
    const std::string v = to_string(blocks - resident);
    return Answer{v, {launch + ", " + to_string(resident) + " resident: " + to_string(blocks) + " - " +
                          to_string(resident) + " = " + v + " blocks wait for a slot the spinning blocks never free.",
                      launch + "，驻留 " + to_string(resident) + " 个：" + to_string(blocks) + " - " +
                          to_string(resident) + " = " + v + " 个块在等一个自旋的块永远不会让出的位置。"}};
  };
  return e;
}

Exercise ring() {
  Exercise e;
  e.number = 2;
  e.id = "ring-of-flags-independent";
  e.format = {AnswerKind::choice, {"completes", "deadlocks"}};
  e.question = {"Each lane i of a warp waits for lane i + 1's flag (lane 31 for lane 0's) before setting its own. "
                "Under independent thread scheduling (Volta and newer), does it complete or deadlock?",
                "warp 中每个 lane i 先等 lane i + 1 的标志（lane 31 等 lane 0 的），再设置自己的。"
                "在独立线程调度（Volta 及以后）下，它会完成（completes）还是死锁（deadlocks）？"};
  e.hint = {"Independent scheduling lets every lane make progress. Which lane can make the first step here?",
            "独立调度让每个 lane 都能前进。这里哪个 lane 能迈出第一步？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "warp-spinlock"});
    const report::Table& t = course::table(rep, "warp-spinlock", "verdicts");
    const std::size_t row = course::row_starting(t, "program", "lane i waits");
    const std::string verdict = course::as_text(t.cell(row, "independent"));
    const std::string cycle = course::as_text(course::fact(rep, "warp-spinlock", "ring-cycle"));
    const std::string v = verdict.rfind("deadlock", 0) == 0 ? "deadlocks" : "completes";
    return Answer{v, {"the model under independent scheduling: " + verdict + ". The wait-for cycle is " + cycle +
                          ": no scheduler can break a cycle in the program itself.",
                      "独立调度下的模型：" + verdict + "。等待环是 " + cycle + "：程序本身的环，任何调度器都打不破。"}};
  };
  return e;
}

Exercise divergent_syncthreads() {
  Exercise e;
  e.number = 3;
  e.id = "divergent-syncthreads-waiters";
  e.format = {AnswerKind::lanes, {}};
  e.question = {"A block of 64 threads: threads below 48 call __syncthreads(), the others spin on a flag that a "
                "thread below 48 sets after the barrier. Which threads wait at the barrier? (like 0-15)",
                "64 个线程的块：编号小于 48 的线程调用 __syncthreads()，其余线程自旋等待一个标志，"
                "该标志由编号小于 48 的线程在屏障之后设置。哪些线程在屏障处等待？（写成 0-15 这样）"};
  e.hint = {"__syncthreads() waits for every thread of the block.", "__syncthreads() 要等整个块的所有线程。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "divergent-syncthreads", "--deadline-ms", "20"});
    const std::string cycle = course::as_text(course::fact(rep, "divergent-syncthreads", "cycle-inside-a-warp"));
    const std::string v = waiters(cycle);
    return Answer{v, {"the model's wait-for cycle: " + cycle + ". Threads " + v + " wait for the whole block; the "
                      "rest wait for a flag only a thread at the barrier would set.",
                      "模型的等待环：" + cycle + "。线程 " + v + " 等整个块；其余线程等一个只有屏障处的线程才会设置"
                      "的标志。"}};
  };
  return e;
}

Exercise syncwarp_mask() {
  Exercise e;
  e.number = 4;
  e.id = "syncwarp-mask-waiters";
  e.format = {AnswerKind::lanes, {}};
  e.question = {"Lanes 0-15 call __syncwarp(0xffffffff) while lanes 16-31 spin on a flag that lanes 0-15 set "
                "afterwards. Which lanes wait in __syncwarp?",
                "lane 0-15 调用 __syncwarp(0xffffffff)，lane 16-31 自旋等待一个由 lane 0-15 随后设置的标志。"
                "哪些 lane 在 __syncwarp 里等待？"};
  e.hint = {"The mask names the lanes that must arrive.", "掩码列出的是必须到达的 lane。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "syncwarp-mask", "--deadline-ms", "20"});
    const std::string cycle = course::as_text(course::fact(rep, "syncwarp-mask", "cycle-lanes-0-15"));
    const std::string v = waiters(cycle);
    return Answer{v, {"the model's wait-for cycle: " + cycle + ". The mask 0xffffffff names lanes 16-31 too, "
                      "which never arrive.",
                      "模型的等待环：" + cycle + "。掩码 0xffffffff 也包括了永远不会到达的 lane 16-31。"}};
  };
  return e;
}

Exercise lock_order() {
  Exercise e;
  e.number = 5;
  e.id = "lock-order-cycle";
  e.question = {"Block 0 takes lock A then lock B; block 1 takes B then A. When both hold their first lock, how "
                "many blocks are in the wait-for cycle?",
                "块 0 先取锁 A 再取锁 B；块 1 先取 B 再取 A。两个块都拿到第一把锁时，等待环里有几个块？"};
  e.hint = {"Follow who waits for whom until you come back.", "顺着谁在等谁走下去，直到回到起点。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "lock-order", "--deadline-ms", "20"});
    const std::string cycle = course::as_text(course::fact(rep, "lock-order", "model-cycle"));
    const auto blocks = course::numbers_in(cycle);
    const std::string v = to_string(blocks.empty() ? 0 : blocks.size() - 1);  // the first block closes the cycle
    return Answer{v, {"the model: " + cycle + ". Taking the locks in one global order (A before B) removes the "
                      "cycle.",
                      "模型：" + cycle + "。按一个全局顺序取锁（先 A 后 B）就没有环了。"}};
  };
  return e;
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "grid-oversubscribed", "--deadline-ms", "20"},
      {"Every GPU deadlock is a cycle of waiting: find who waits for whom, and break the cycle in the program (an "
       "order of locks, a ticket, a barrier every thread reaches, a grid that fits); waiting longer never helps.",
       "每个 GPU 死锁都是一个等待环：找出谁在等谁，然后在程序里打破这个环（锁的顺序、票号、所有线程都能到达的"
       "屏障、放得下的网格）；等得再久也没用。"},
      {no_slot(), ring(), divergent_syncthreads(), syncwarp_mask(), lock_order()}};
  return c;
}

}  // namespace cudasync::deadlock_demo
